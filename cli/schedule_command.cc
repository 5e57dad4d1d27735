// `flotillactl schedule -f objects.yaml`: the whole scheduler offline (docs/design.md §8).
#include <boost/json.hpp>
#include <iomanip>
#include <iostream>

#include "api/duration.h"
#include "api/json_codec.h"
#include "api/object_validation.h"
#include "api/unstructured.h"
#include "api/validation.h"
#include "api/yaml.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "controllers/binding/binding.h"
#include "controllers/common/object_key.h"
#include "interpreter/interpreter.h"
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
    "one workload (an apps/v1 Deployment, a FederatedDeployment, a FederatedObject or any other\n"
    "kind's object: a ConfigMap, a custom resource), optionally the workload's\n"
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
  // What the binding controller binds: from a Deployment, a FederatedDeployment, a
  // FederatedObject or any other kind's object (controllers/binding/binding.h).
  std::optional<controllers::binding::BindingSubject> workload;
  std::optional<api::ResourceBinding> binding;
  std::vector<api::SchedulingProfile> profiles;
  std::vector<api::SchedulerExtender> extenders;
};

// Adds one object to the inputs; returns an error message or "".
std::string collect(const json::value& v, Inputs& in) {
  auto more = [&](const char* what) { return std::string("more than one ") + what + " given"; };
  // Any other kind's object (a ConfigMap, a custom resource): what the federate controller would
  // make of it. Secrets and Namespaces in the files are the fleet's credentials and are ignored
  // (pass a Secret's FederatedObject to schedule one).
  if (v.is_object()) {
    const auto& o = v.as_object();
    const std::string apiVersion = api::unstructured::stringAt(o, {"apiVersion"});
    const std::string kind = api::unstructured::stringAt(o, {"kind"});
    const bool builtIn = api::unstructured::groupOf(apiVersion) == "flotilla.io" ||
                         (api::unstructured::groupOf(apiVersion) == "apps" && kind == "Deployment");
    if (!builtIn && !kind.empty() && kind != "Secret" && kind != "Namespace") {
      const std::string name = api::unstructured::stringAt(o, {"metadata", "name"});
      if (name.empty()) return kind + " without metadata.name";
      if (in.workload) return more("workload");
      const auto interpreter = interpreter::Registry::builtIn().of(apiVersion, kind);
      api::FederatedObject fo;
      fo.metadata.namespace_ = api::unstructured::stringAt(o, {"metadata", "namespace"});
      fo.kind = fo.metadata.namespace_.empty() ? "ClusterFederatedObject" : "FederatedObject";
      fo.metadata.name =
          controllers::federatedName(name, kind, api::unstructured::groupOf(apiVersion));
      fo.metadata.labels = controllers::policy::workloadOf(o).labels;
      fo.spec.template_ = interpreter.memberTemplate(o);
      in.workload = controllers::binding::subjectOf(fo);
      return "";
    }
  }
  api::ObjectVerdict verdict = api::validateObject(v);
  if (!verdict.valid()) {
    std::string message = verdict.describe() + " is invalid:";
    for (const auto& e : verdict.errors) message += "\n  " + e.str();
    return message;
  }
  const std::string& kind = verdict.kind;
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
      in.workload = controllers::binding::subjectOf(*api::decode<api::FederatedDeployment>(v));
    } else {
      auto d = *api::decode<api::Deployment>(v);
      api::FederatedDeployment fd;
      fd.metadata.name = d.metadata.name;
      fd.metadata.namespace_ = d.metadata.namespace_;
      fd.metadata.labels = d.metadata.labels;
      fd.spec.template_.metadata.labels = d.metadata.labels;
      fd.spec.template_.spec = d.spec;
      in.workload = controllers::binding::subjectOf(fd);
    }
  } else if (kind == "FederatedObject" || kind == "ClusterFederatedObject") {
    if (in.workload) return more("workload");
    auto fo = *api::decode<api::FederatedObject>(v);
    fo.kind = kind;
    in.workload = controllers::binding::subjectOf(fo);
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

// The binding the binding controller would write for this workload and policy: its own
// decision (controllers/binding/binding.h), so the CLI and the operator size a replica and copy
// a placement the same way. A binding given with the objects keeps its clusters (the current
// placement) and schedule record.
api::ResourceBinding bindingFor(const Inputs& in) {
  auto subject = *in.workload;
  if (subject.owner.namespace_.empty() && subject.ownerKind == "FederatedDeployment")
    subject.owner.namespace_ = subject.workload.ns = subject.resource.namespace_ = "default";
  std::optional<api::ResourceBinding> existing = in.binding;
  if (existing) {
    // Owned by whatever the file's workload is (a Deployment given has no uid).
    for (auto& ref : existing->metadata.ownerReferences)
      if (ref.controller.value_or(false)) subject.owner.uid = ref.uid;
  }
  const controllers::policy::Resolution resolution{
      .policy = controllers::policy::ResolvedPolicy{
          .key = {in.policyKind, in.policy->metadata.namespace_, in.policy->metadata.name},
          .tier = controllers::policy::MatchTier::kName,
          .priority = in.policy->spec.priority,
          .generation = in.policy->metadata.generation,
          .spec = &in.policy->spec}};
  auto decision = controllers::binding::decideBinding(
      subject, resolution, existing ? &*existing : nullptr, api::formatRfc3339(api::Clock::now()));
  return decision.desired;
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
  if (!readManifests(files, stdinStream, err,
                     [&in](const json::value& doc) { return collect(doc, in); }))
    return 1;
  if (!in.policy) {
    err << "error: no PropagationPolicy or ClusterPropagationPolicy given\n";
    return 1;
  }
  if (!in.workload) {
    err << "error: no workload (a Deployment, a FederatedDeployment, a FederatedObject or another "
           "kind's object) given\n";
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
