#include "interpreter/workload_status.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "api/unstructured.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

int64_t memberCount(const json::object& o, std::initializer_list<std::string_view> path) {
  return std::clamp<int64_t>(u::intAt(o, path).value_or(0), 0, INT32_MAX);
}

namespace {

std::string ofTotal(int64_t n, int64_t total, std::string_view what) {
  return std::to_string(n) + " of " + std::to_string(total) + " " + std::string(what);
}

// The member's controller has not seen the copy's current generation yet.
std::optional<HealthReport> notObserved(const json::object& o, std::string_view controller) {
  const int64_t generation = memberCount(o, {"metadata", "generation"});
  if (memberCount(o, {"status", "observedGeneration"}) >= generation) return std::nullopt;
  return HealthReport{Health::kProgressing, "the member's " + std::string(controller) +
                                                " controller has not observed generation " +
                                                std::to_string(generation) + " yet"};
}

}  // namespace

json::object summedStatus(const json::object& source, const std::vector<MemberObject>& members,
                          std::initializer_list<const char*> fields) {
  json::object status;
  if (const json::object* before = u::findObject(source, {"status"})) status = *before;
  for (const char* field : fields) {
    int64_t sum = 0;
    for (const auto& m : members)
      if (m.object) sum += memberCount(*m.object, {"status", field});
    if (sum != 0)
      status[field] = sum;
    else
      status.erase(field);
  }
  const std::string generation =
      std::to_string(u::intAt(source, {"metadata", "generation"}).value_or(0));
  bool observed = !members.empty();
  for (const auto& m : members) {
    observed = observed && m.object &&
               u::stringAt(*m.object, {"metadata", "annotations", kSourceGeneration}) ==
                   generation &&
               !notObserved(*m.object, "");
  }
  if (observed) {
    status["observedGeneration"] = u::intAt(source, {"metadata", "generation"}).value_or(0);
  } else if (auto before = u::intAt(source, {"status", "observedGeneration"})) {
    status["observedGeneration"] = *before;
  }
  return status;
}

HealthReport daemonSetHealth(const json::object& ds) {
  if (auto waiting = notObserved(ds, "daemon set")) return *waiting;
  const int64_t desired = memberCount(ds, {"status", "desiredNumberScheduled"});
  const int64_t updated = memberCount(ds, {"status", "updatedNumberScheduled"});
  const int64_t available = memberCount(ds, {"status", "numberAvailable"});
  if (updated < desired) return {Health::kProgressing, ofTotal(updated, desired, "pods updated")};
  if (available < desired)
    return {Health::kProgressing, ofTotal(available, desired, "pods available")};
  return {Health::kHealthy, ""};
}

std::optional<json::object> daemonSetStatus(const json::object& source,
                                            const std::vector<MemberObject>& members) {
  return summedStatus(source, members,
                {"currentNumberScheduled", "desiredNumberScheduled", "numberAvailable",
                 "numberMisscheduled", "numberReady", "numberUnavailable",
                 "updatedNumberScheduled"});
}

HealthReport statefulSetHealth(const json::object& sts) {
  if (auto waiting = notObserved(sts, "statefulset")) return *waiting;
  const int64_t wanted = u::intAt(sts, {"spec", "replicas"}).value_or(1);
  const int64_t ready = memberCount(sts, {"status", "readyReplicas"});
  const int64_t updated = memberCount(sts, {"status", "updatedReplicas"});
  // A RollingUpdate with a partition updates only the ordinals from it up.
  const int64_t partition = memberCount(sts, {"spec", "updateStrategy", "rollingUpdate", "partition"});
  const bool rolling = u::stringAt(sts, {"spec", "updateStrategy", "type"}, "RollingUpdate") ==
                       "RollingUpdate";
  if (rolling && updated < wanted - std::min(partition, wanted))
    return {Health::kProgressing, ofTotal(updated, wanted, "replicas updated")};
  if (ready < wanted) return {Health::kProgressing, ofTotal(ready, wanted, "replicas ready")};
  return {Health::kHealthy, ""};
}

std::optional<json::object> statefulSetStatus(const json::object& source,
                                              const std::vector<MemberObject>& members) {
  return summedStatus(source, members,
                {"replicas", "readyReplicas", "currentReplicas", "updatedReplicas",
                 "availableReplicas"});
}

}  // namespace flotilla::interpreter
