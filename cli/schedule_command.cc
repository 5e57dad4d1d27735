// `flotillactl schedule -f objects.yaml`: the whole scheduler offline (docs/design.md §8).
#include <boost/json.hpp>
#include <iomanip>
#include <iostream>

#include "api/duration.h"
#include "api/json_codec.h"
#include "api/object_validation.h"
#include "api/validation.h"
#include "api/yaml.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "interpreter/pod_requests.h"
#include "scheduler/extender/http_extender_client.h"
#include "scheduler/schedule_type.h"

namespace flotilla::cli {
namespace {

namespace json = boost::json;
using scheduler::ScheduleResult;

constexpr const char* kScheduleUsage =
    "Usage: flotillactl schedule -f FILE [-f FILE...] [-o table|json]\n"
    "\n"
    "Runs the whole scheduler offline on manifests as `kubectl get -o yaml` prints them:\n"
    "FederatedCluster objects, exactly one PropagationPolicy or ClusterPropagationPolicy, exactly\n"
    "one workload (apps/v1 Deployment or FederatedDeployment), optionally the workload's\n"
    "ResourceBinding (its current result and auto-migration estimates), SchedulingProfiles\n"
    "(used when the policy names one) and SchedulerExtenders (called over HTTP(S) as the\n"
    "scheduler would). Prints the schedule type, the placement, every cluster's\n"
    "filter verdict and reason, and the scores.\n"
    "\n"
    "Exit status: 0 scheduled, 3 unschedulable (no cluster fits or a constraint cannot be met),\n"
    "1 invalid input, 2 usage.\n";

struct Inputs {
  std::vector<api::FederatedCluster> clusters;
  std::optional<api::PropagationPolicy> policy;  // a ClusterPropagationPolicy is converted
  std::string policyKind;
  std::optional<api::FederatedDeployment> workload;  // a Deployment is converted
  std::optional<api::ResourceBinding> binding;
  std::vector<api::SchedulingProfile> profiles;
  std::vector<api::SchedulerExtender> extenders;
};

// Adds one object to the inputs; returns an error message or "".
std::string collect(const json::value& v, Inputs& in) {
  api::ObjectVerdict verdict = api::validateObject(v);
  if (!verdict.valid()) {
    std::string message = verdict.describe() + " is invalid:";
    for (const auto& e : verdict.errors) message += "\n  " + e.str();
    return message;
  }
  const std::string& kind = verdict.kind;
  auto more = [&](const char* what) { return std::string("more than one ") + what + " given"; };
  if (kind == "FederatedCluster") {
    in.clusters.push_back(*api::decode<api::FederatedCluster>(v));
  } else if (kind == "PropagationPolicy" || kind == "ClusterPropagationPolicy") {
    if (in.policy) return more("policy");
    in.policyKind = kind;
    if (kind == "PropagationPolicy") {
      in.policy = *api::decode<api::PropagationPolicy>(v);
    } else {
      auto cpp = *api::decode<api::ClusterPropagationPolicy>(v);
      in.policy =
          api::PropagationPolicy{cpp.apiVersion, cpp.kind, cpp.metadata, cpp.spec, cpp.status};
    }
  } else if (kind == "FederatedDeployment" || kind == "Deployment") {
    if (in.workload) return more("workload");
    if (kind == "FederatedDeployment") {
      in.workload = *api::decode<api::FederatedDeployment>(v);
    } else {
      auto d = *api::decode<api::Deployment>(v);
      api::FederatedDeployment fd;
      fd.metadata.name = d.metadata.name;
      fd.metadata.namespace_ = d.metadata.namespace_;
      fd.spec.template_.metadata.labels = d.metadata.labels;
      fd.spec.template_.spec = d.spec;
      in.workload = std::move(fd);
    }
  } else if (kind == "ResourceBinding") {
    if (in.binding) return more("ResourceBinding");
    in.binding = *api::decode<api::ResourceBinding>(v);
  } else if (kind == "SchedulingProfile") {
    in.profiles.push_back(*api::decode<api::SchedulingProfile>(v));
  } else if (kind == "SchedulerExtender") {
    in.extenders.push_back(*api::decode<api::SchedulerExtender>(v));
  }
  return "";  // Secrets, Namespaces: ignored
}

// The binding the binding controller would write for this workload and policy.
api::ResourceBinding bindingFor(const Inputs& in) {
  api::ResourceBinding rb = in.binding.value_or(api::ResourceBinding{});
  const auto& w = *in.workload;
  const std::string ns = w.metadata.namespace_.empty() ? "default" : w.metadata.namespace_;
  rb.metadata.namespace_ = ns;
  if (rb.metadata.name.empty()) rb.metadata.name = w.metadata.name + "-deployment";
  rb.spec.resource = {"flotilla.io/v1alpha1", "FederatedDeployment", ns, w.metadata.name,
                      w.metadata.uid};
  rb.spec.replicas = w.spec.template_.spec.replicas.value_or(1);
  // What the binding controller computes (pod overhead, nodeSelector and tolerations included).
  rb.spec.replicaRequirements = interpreter::replicaRequirements(w.spec.template_.spec.template_);
  rb.spec.placement = in.policy->spec.placement;
  rb.spec.priority = in.policy->spec.priority;
  rb.spec.policy = {in.policyKind, in.policy->metadata.name, in.policy->metadata.namespace_,
                    in.policy->metadata.generation};
  return rb;
}

std::string describeRequests(const api::ResourceList& requests) {
  std::string out;
  for (const auto& [name, q] : requests) out += (out.empty() ? "" : " ") + name + "=" + q.str();
  return out.empty() ? "none" : out;
}

void printTable(const json::object& report, std::ostream& out) {
  out << "Workload:       " << report.at("workload").as_string().c_str() << "\n";
  out << "Policy:         " << report.at("policy").as_string().c_str() << "\n";
  out << "Profile:        " << report.at("profile").as_string().c_str() << "\n";
  out << "Schedule type:  " << report.at("scheduleType").as_string().c_str() << "\n";
  out << "Result:         " << report.at("reason").as_string().c_str();
  const std::string message(report.at("message").as_string());
  if (!message.empty()) out << ": " << message;
  out << "\n";
  out << "Placement:      " << report.at("placementSummary").as_string().c_str() << "\n";
  if (const auto* warnings = report.if_contains("warnings")) {
    for (const auto& w : warnings->as_array())
      out << "Warning:        " << w.as_string().c_str() << "\n";
  }
  out << "\n";
  const auto& clusters = report.at("clusters").as_array();
  std::vector<std::string> plugins;
  for (const auto& c : clusters) {
    for (const auto& kv : c.at("scores").as_object()) {
      if (std::find(plugins.begin(), plugins.end(), kv.key()) == plugins.end())
        plugins.emplace_back(kv.key());
    }
  }
  out << std::left << std::setw(16) << "CLUSTER" << std::setw(9) << "REPLICAS" << std::setw(7)
      << "SCORE";
  for (const auto& p : plugins) out << std::setw(static_cast<int>(p.size()) + 2) << p;
  out << "FILTER\n";
  for (const auto& c : clusters) {
    const auto& o = c.as_object();
    out << std::setw(16) << o.at("name").as_string().c_str();
    out << std::setw(9)
        << (o.at("replicas").is_null() ? std::string("-")
                                       : std::to_string(o.at("replicas").as_int64()));
    out << std::setw(7)
        << (o.at("score").is_null() ? std::string("-") : std::to_string(o.at("score").as_int64()));
    for (const auto& p : plugins) {
      const auto* s = o.at("scores").as_object().if_contains(p);
      out << std::setw(static_cast<int>(p.size()) + 2) << (s ? std::to_string(s->as_int64()) : "-");
    }
    if (o.at("feasible").as_bool()) {
      out << "passed";
    } else {
      out << o.at("plugin").as_string().c_str() << ": " << o.at("reason").as_string().c_str();
    }
    out << "\n";
  }
}

}  // namespace

int runSchedule(const Args& args, std::istream& stdinStream, std::ostream& out, std::ostream& err) {
  std::vector<std::string> files;
  std::string format = "table";
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      out << kScheduleUsage;
      return 0;
    }
    if ((args[i] == "-f" || args[i] == "--filename") && i + 1 < args.size()) {
      files.push_back(args[++i]);
    } else if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size()) {
      format = args[++i];
      if (format != "table" && format != "json") {
        err << "flotillactl schedule: -o must be table or json\n";
        return 2;
      }
    } else {
      err << "flotillactl schedule: unexpected argument \"" << args[i] << "\"\n" << kScheduleUsage;
      return 2;
    }
  }
  if (files.empty()) {
    err << "flotillactl schedule: at least one -f FILE is required\n" << kScheduleUsage;
    return 2;
  }
  Inputs in;
  for (const auto& file : files) {
    auto text = readInput(file, stdinStream);
    if (!text) {
      err << "error: " << text.error().message << "\n";
      return 1;
    }
    auto docs = api::parseManifests(*text);
    if (!docs) {
      err << "error: " << file << ": " << docs.error().message << "\n";
      return 1;
    }
    for (const auto& doc : *docs) {
      std::string problem = collect(doc.value, in);
      if (!problem.empty()) {
        err << "error: " << file << " (document " << doc.index << "): " << problem << "\n";
        return 1;
      }
    }
  }
  if (!in.policy) {
    err << "error: no PropagationPolicy or ClusterPropagationPolicy given\n";
    return 1;
  }
  if (!in.workload) {
    err << "error: no workload (Deployment or FederatedDeployment) given\n";
    return 1;
  }
  if (in.clusters.empty()) {
    err << "error: no FederatedCluster given\n";
    return 1;
  }
  api::setDefaults(*in.policy);

  // Profile: the one the policy names, else the default.
  api::SchedulingProfile profileSpec;
  const std::string& wanted = in.policy->spec.schedulingProfile;
  if (!wanted.empty()) {
    auto it =
        std::find_if(in.profiles.begin(), in.profiles.end(),
                     [&](const api::SchedulingProfile& p) { return p.metadata.name == wanted; });
    if (it == in.profiles.end()) {
      err << "error: the policy uses SchedulingProfile \"" << wanted << "\", which was not given\n";
      return 1;
    }
    profileSpec = *it;
  }
  auto profile = scheduler::buildProfile(profileSpec);
  if (!profile) {
    err << "error: SchedulingProfile " << wanted << ": " << profile.error().str() << "\n";
    return 1;
  }

  const api::ResourceBinding rb = bindingFor(in);
  const auto now = api::Clock::now();
  std::optional<scheduler::ScheduleRecord> record;
  if (auto it = rb.metadata.annotations.find(scheduler::kScheduleRecordAnnotation);
      it != rb.metadata.annotations.end()) {
    record = scheduler::decodeRecord(it->second);
  }
  scheduler::FailoverPolicy failover;
  failover.clusterNotReadyFor =
      api::parseDuration(in.policy->spec.failover->clusterNotReadyFor).value();
  failover.failbackRebalance = in.policy->spec.failover->failback != "Never";
  const scheduler::ScheduleDecision decision =
      scheduler::decideSchedule(rb, record, in.clusters, now, failover);

  const bool keep =
      in.policy->spec.autoMigration && in.policy->spec.autoMigration->keepUnschedulableReplicas;
  scheduler::SchedulingUnit unit = scheduler::unitFromBinding(rb, keep);
  for (const auto& failed : decision.failedClusters) unit.currentReplicas.erase(failed);
  unit.rebalance = decision.rebalance;
  // SchedulerExtenders given with the objects are called for real, as the scheduler would.
  std::unique_ptr<scheduler::HttpExtenderClient> extenders;
  if (!in.extenders.empty()) {
    auto configs = scheduler::extenderConfigs(in.extenders);
    auto client =
        configs ? scheduler::HttpExtenderClient::create(std::move(*configs))
                : api::Result<std::unique_ptr<scheduler::HttpExtenderClient>>(configs.error());
    if (!client) {
      err << "error: " << client.error().message << "\n";
      return 1;
    }
    extenders = std::move(*client);
  }
  const ScheduleResult result = scheduler::scheduleUnit(
      *profile, unit, in.clusters, {.explain = true, .extenders = extenders.get()});

  json::object report;
  report["workload"] = unit.key + " (" + std::to_string(unit.replicas) + " replicas, requests " +
                       describeRequests(unit.resourceRequest) + ")";
  report["policy"] =
      in.policyKind + " " +
      (in.policy->metadata.namespace_.empty() ? "" : in.policy->metadata.namespace_ + "/") +
      in.policy->metadata.name;
  report["profile"] = profile->name;
  report["scheduleType"] =
      decision.type == scheduler::ScheduleType::kNone
          ? "none (the current placement stands; shown: what a reschedule would compute)"
          : std::string(scheduler::scheduleTypeName(decision.type)) + " (" + decision.reason + ")";
  report["reason"] = result.reason();
  report["message"] = result.message;
  if (!result.warnings.empty()) report["warnings"] = json::value_from(result.warnings);
  report["placement"] = json::value_from(result.placement);
  report["placementSummary"] =
      result.ok() ? scheduler::placementSummary(result.placement)
                  : "unchanged: " + scheduler::placementSummary(unit.currentReplicas);
  json::array clusters;
  for (const auto& v : result.verdicts) {
    json::object c{{"name", v.cluster},  {"feasible", v.plugin.empty()},
                   {"plugin", v.plugin}, {"reason", v.reason},
                   {"score", nullptr},   {"scores", json::object{}},
                   {"replicas", nullptr}};
    for (const auto& sc : result.feasible) {
      if (sc.name() != v.cluster) continue;
      c["score"] = sc.score;
      json::object scores;
      for (const auto& [plugin, s] : sc.pluginScores) scores[plugin] = s;
      c["scores"] = std::move(scores);
    }
    if (result.ok()) {
      auto it = result.placement.find(v.cluster);
      c["replicas"] = it == result.placement.end() ? 0 : it->second;
    }
    clusters.push_back(std::move(c));
  }
  report["clusters"] = std::move(clusters);
  if (format == "json") {
    out << json::serialize(report) << "\n";
  } else {
    printTable(report, out);
  }
  return result.ok() ? 0 : 3;
}

}  // namespace flotilla::cli
