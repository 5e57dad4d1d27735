// `flotillactl plan -f input.json`: the replica planner alone (issue #3, docs/design.md §8).
#include <boost/json.hpp>
#include <iostream>
#include <set>

#include "api/json_codec.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "scheduler/planner/replica_planner.h"

namespace flotilla::cli {
namespace {

namespace json = boost::json;
using scheduler::PlannerInput;

constexpr const char* kPlanUsage =
    "Usage: flotillactl plan -f FILE   (FILE may be '-' for stdin)\n"
    "\n"
    "Runs the replica planner alone. Input (JSON):\n"
    "  {\"totalReplicas\": 6, \"clusters\": [\"member1\", \"member2\", \"member3\"],\n"
    "   \"preferences\": {\"member1\": {\"weight\": 2, \"minReplicas\": 1, \"maxReplicas\": 4},\n"
    "                   \"*\": {\"weight\": 1}},\n"
    "   \"currentReplicas\": {\"member1\": 2}, \"estimatedCapacity\": {\"member1\": 1},\n"
    "   \"key\": \"namespace/name\", \"avoidDisruption\": true,\n"
    "   \"keepUnschedulableReplicas\": false, \"division\": \"Weighted\",\n"
    "   \"rebalance\": false}\n"
    "Only totalReplicas and clusters are required. Output (one JSON object):\n"
    "  {\"plan\": {...}, \"overflow\": {...}, \"placement\": {...}}\n"
    "placement is what Flotilla writes: plan, plus overflow when keepUnschedulableReplicas\n"
    "(or, for Weighted division without avoidDisruption, always: KubeAdmiral's rule).\n"
    "rebalance plans the desired distribution instead of moving from currentReplicas, as the\n"
    "scheduler does when an auto-migration estimate is lifted and on failback.\n"
    "\n"
    "Exit status: 0 success, 1 malformed input (one line on stderr), 2 usage.\n";

// Reads the planner input. Malformed input is an expected failure, so it is a value: the first
// problem is kept as a one-line message naming the field, and reading stops making sense after it
// (callers check ok() once at the end).
class InputReader {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  PlannerInput read(const json::value& root) {
    PlannerInput in;
    const json::object& obj = object(root, "input");
    static const std::set<std::string> kFields = {
        "totalReplicas",     "clusters", "preferences",     "currentReplicas",
        "estimatedCapacity", "key",      "avoidDisruption", "keepUnschedulableReplicas",
        "division",          "rebalance"};
    for (const auto& kv : obj) {
      if (!kFields.count(std::string(kv.key())))
        fail("unknown field \"" + std::string(kv.key()) + "\"");
    }
    if (const json::value* total = obj.if_contains("totalReplicas")) {
      in.totalReplicas = nonNegative(*total, "totalReplicas");
    } else {
      fail("totalReplicas: required");
    }
    if (const json::value* clusters = obj.if_contains("clusters")) {
      in.clusters = clusterNames(*clusters);
    } else {
      fail("clusters: required");
    }
    if (const json::value* prefs = obj.if_contains("preferences")) {
      for (const auto& kv : object(*prefs, "preferences")) {
        in.preferences[std::string(kv.key())] =
            preference(kv.value(), "preferences." + std::string(kv.key()));
      }
    }
    if (const json::value* v = obj.if_contains("currentReplicas")) {
      in.currentReplicas = replicaMap(*v, "currentReplicas");
    }
    if (const json::value* v = obj.if_contains("estimatedCapacity")) {
      in.estimatedCapacity = replicaMap(*v, "estimatedCapacity");
    }
    if (const json::value* v = obj.if_contains("key")) {
      if (v->is_string()) {
        in.key = v->get_string();
      } else {
        fail("key: expected a string such as \"namespace/name\"");
      }
    }
    if (const json::value* v = obj.if_contains("avoidDisruption")) {
      in.avoidDisruption = boolean(*v, "avoidDisruption");
    }
    if (const json::value* v = obj.if_contains("keepUnschedulableReplicas")) {
      in.keepUnschedulableReplicas = boolean(*v, "keepUnschedulableReplicas");
    }
    if (const json::value* v = obj.if_contains("rebalance")) {
      in.rebalance = boolean(*v, "rebalance");
    }
    if (const json::value* v = obj.if_contains("division")) {
      if (*v == "Aggregated") {
        in.division = scheduler::Division::kAggregated;
      } else if (*v != "Weighted") {
        fail("division: expected \"Weighted\" or \"Aggregated\"");
      }
    }
    return in;
  }

 private:
  void fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
  }

  int64_t nonNegative(const json::value& v, const std::string& field) {
    if (v.is_int64() && v.get_int64() < 0) {
      fail(field + ": must be >= 0, got " + std::to_string(v.get_int64()));
    } else if (!v.is_int64() && !v.is_uint64()) {
      fail(field + ": expected a non-negative integer");
    } else if (v.is_uint64() || v.get_int64() > INT32_MAX) {
      fail(field + ": too large (replica counts are int32)");
    } else {
      return v.get_int64();
    }
    return 0;
  }

  bool boolean(const json::value& v, const std::string& field) {
    if (v.is_bool()) return v.get_bool();
    fail(field + ": expected true or false");
    return false;
  }

  const json::object& object(const json::value& v, const std::string& field) {
    static const json::object kEmpty;
    if (v.is_object()) return v.get_object();
    fail(field + ": expected an object");
    return kEmpty;
  }

  std::vector<std::string> clusterNames(const json::value& v) {
    std::vector<std::string> names;
    if (!v.is_array()) {
      fail("clusters: expected an array of cluster names");
      return names;
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < v.get_array().size(); ++i) {
      const json::value& c = v.get_array()[i];
      const std::string field = "clusters[" + std::to_string(i) + "]";
      if (!c.is_string() || c.get_string().empty() || c.get_string() == "*") {
        fail(field + ": expected a cluster name");
      } else if (!seen.insert(std::string(c.get_string())).second) {
        fail(field + ": duplicate cluster \"" + std::string(c.get_string()) + "\"");
      } else {
        names.emplace_back(c.get_string());
      }
    }
    return names;
  }

  scheduler::ClusterPreference preference(const json::value& v, const std::string& base) {
    scheduler::ClusterPreference p;
    for (const auto& f : object(v, base)) {
      const std::string field = base + "." + std::string(f.key());
      if (f.key() == "weight") {
        p.weight = nonNegative(f.value(), field);
      } else if (f.key() == "minReplicas") {
        p.minReplicas = nonNegative(f.value(), field);
      } else if (f.key() == "maxReplicas") {
        if (!f.value().is_null()) p.maxReplicas = nonNegative(f.value(), field);
      } else {
        fail(base + ": unknown field \"" + std::string(f.key()) + "\"");
      }
    }
    if (p.maxReplicas && *p.maxReplicas < p.minReplicas) {
      fail(base + ".maxReplicas: must be >= minReplicas");
    }
    return p;
  }

  // {"<cluster>": n}; clusters not in the input are allowed and ignored by the planner.
  scheduler::ReplicaMap replicaMap(const json::value& v, const std::string& field) {
    scheduler::ReplicaMap out;
    for (const auto& kv : object(v, field)) {
      out[std::string(kv.key())] = nonNegative(kv.value(), field + "." + std::string(kv.key()));
    }
    return out;
  }

  std::string error_;
};

json::object toJson(const scheduler::ReplicaMap& m) {
  json::object out;
  for (const auto& [cluster, n] : m) out[cluster] = n;
  return out;
}

}  // namespace

int runPlan(const Args& args, std::istream& in, std::ostream& out, std::ostream& err) {
  std::string file;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      out << kPlanUsage;
      return 0;
    }
    if ((args[i] == "-f" || args[i] == "--filename") && i + 1 < args.size() && file.empty()) {
      file = args[++i];
    } else {
      err << "flotillactl plan: unexpected argument \"" << args[i] << "\"\n" << kPlanUsage;
      return 2;
    }
  }
  if (file.empty()) {
    err << "flotillactl plan: -f FILE is required\n" << kPlanUsage;
    return 2;
  }
  auto text = readInput(file, in);
  if (!text) {
    err << "error: " << text.error().message << "\n";
    return 1;
  }
  auto root = api::parseJson(*text);
  if (!root) {
    err << "error: " << root.error().message << "\n";
    return 1;
  }
  InputReader reader;
  const PlannerInput input = reader.read(*root);
  if (!reader.ok()) {
    err << "error: " << reader.error() << "\n";
    return 1;
  }
  const scheduler::PlannerResult result = scheduler::planReplicas(input);
  json::object output{{"plan", toJson(result.plan)},
                      {"overflow", toJson(result.overflow)},
                      {"placement", toJson(result.placement(input.keepUnschedulableReplicas))}};
  out << json::serialize(output) << "\n";
  return 0;
}

}  // namespace flotilla::cli
