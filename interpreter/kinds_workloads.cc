// Workload kinds (docs/design.md §3.8, §13): the Deployment; the StatefulSet, Duplicated unless
// its policy divides it, numbered across clusters (workload_division.h); the Job, whose
// parallelism and completions are divided; the DaemonSet and CronJob, Duplicated; the health and
// host status of each (workload_status.h, job_status.h); the other pod-template kinds'
// dependencies.
#include <algorithm>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>

#include "api/json_codec.h"
#include "api/unstructured.h"
#include "interpreter/interpreter.h"
#include "interpreter/job_status.h"
#include "interpreter/pod_requests.h"
#include "interpreter/workload_division.h"
#include "interpreter/workload_status.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

// A pod template's per-replica requirements; a template that does not decode asks for nothing
// (admission validates templates, so this is a Deployment written around it).
api::ReplicaRequirements templateRequirements(const json::object& object) {
  const json::object* pod = u::findObject(object, {"spec", "template"});
  if (pod == nullptr) return {};
  api::PodTemplateSpec spec;
  if (!api::decodeInto(*pod, spec).empty()) return {};
  return replicaRequirements(spec);
}

std::string of(int64_t n, int64_t total, std::string_view what) {
  return std::to_string(n) + " of " + std::to_string(total) + " replicas " + std::string(what);
}

// A member Deployment as `kubectl rollout status` reads it.
HealthReport deploymentHealth(const json::object& d) {
  const int64_t generation = memberCount(d, {"metadata", "generation"});
  const int64_t observed = memberCount(d, {"status", "observedGeneration"});
  if (observed < generation)
    return {Health::kProgressing,
            "the member's deployment controller has not observed generation " +
                std::to_string(generation) + " yet"};
  if (const json::object* progressing = u::condition(d, "Progressing");
      progressing && u::stringAt(*progressing, {"reason"}) == "ProgressDeadlineExceeded")
    return {Health::kUnhealthy,
            u::stringAt(*progressing, {"message"}, "progress deadline exceeded")};
  const int64_t wanted = u::intAt(d, {"spec", "replicas"}).value_or(1);
  const int64_t updated = memberCount(d, {"status", "updatedReplicas"});
  const int64_t total = memberCount(d, {"status", "replicas"});
  const int64_t available = memberCount(d, {"status", "availableReplicas"});
  if (updated < wanted) return {Health::kProgressing, of(updated, wanted, "updated")};
  if (total > updated) return {Health::kProgressing, of(total - updated, total, "still old")};
  if (available < wanted) return {Health::kProgressing, of(available, wanted, "available")};
  return {Health::kHealthy, ""};
}

// Sums of the members' replica counts (the status controller's aggregation also sets
// observedGeneration and conditions; docs/design.md §5.6).
std::optional<json::object> deploymentStatus(const json::object&,
                                             const std::vector<MemberObject>& members) {
  json::object status;
  for (const char* field : {"replicas", "updatedReplicas", "readyReplicas", "availableReplicas",
                            "unavailableReplicas"}) {
    int64_t sum = 0;
    for (const auto& m : members)
      if (m.object) sum += memberCount(*m.object, {"status", field});
    if (sum != 0) status[field] = sum;
  }
  return status;
}

// What the pod spec at `path` names, in the object's namespace.
std::vector<Dependency> podSpecAt(const json::object& object,
                                  std::initializer_list<std::string_view> path) {
  const json::object* pod = u::findObject(object, path);
  if (pod == nullptr) return {};
  return podSpecDependencies(*pod, u::stringAt(object, {"metadata", "namespace"}));
}

std::vector<Dependency> podTemplateDependencies(const json::object& workload) {
  return podSpecAt(workload, {"spec", "template", "spec"});
}

// A StatefulSet's pods also need their governing Service (spec.serviceName) for their DNS names;
// its volumeClaimTemplates are claims the member's controller makes, not followers.
std::vector<Dependency> statefulSetDependencies(const json::object& sts) {
  auto out = podTemplateDependencies(sts);
  const std::string service = u::stringAt(sts, {"spec", "serviceName"});
  if (!service.empty())
    out.push_back({"v1", "Service", u::stringAt(sts, {"metadata", "namespace"}), service, false});
  normalize(out);
  return out;
}

// "ready/total" of two counts of the host's aggregated status (PROGRESS of its federated object).
auto readyOf(std::string ready, std::string total) {
  return [ready = std::move(ready), total = std::move(total)](const json::object&,
                                                              const json::object& status) {
    return std::to_string(memberCount(status, {ready})) + "/" +
           std::to_string(memberCount(status, {total}));
  };
}

// A Job's COMPLETIONS as kubectl prints it: succeeded/completions, or for a work queue the
// succeeded pods.
std::string jobProgress(const json::object& source, const json::object& status) {
  const int64_t succeeded = memberCount(status, {"succeeded"});
  if (const auto completions = u::intAt(source, {"spec", "completions"}))
    return std::to_string(succeeded) + "/" + std::to_string(*completions);
  return std::to_string(succeeded) + " succeeded";
}

const json::object* templateLabels(const json::object& workload) {
  return u::findObject(workload, {"spec", "template", "metadata", "labels"});
}

}  // namespace

void addWorkloadKinds(Registry& registry) {
  registry.add(KindEntry{
      .group = "apps",
      .kind = "Deployment",
      .replicas = [](const json::object& o) -> std::optional<int32_t> {
        return static_cast<int32_t>(u::intAt(o, {"spec", "replicas"}).value_or(1));
      },
      .requirements = templateRequirements,
      .reviseReplicas =
          [](json::object& o, const Share& share) {
            u::ensureObject(o, {"spec"})["replicas"] = share.replicas;
            return std::string();
          },
      .prune = {},
      .retain = {},
      .health = deploymentHealth,
      .aggregateStatus = deploymentStatus,
      .dependencies = podTemplateDependencies,
      .podLabels = templateLabels,
      // An adopted copy stays when its cluster is no longer targeted: for a workload, replicas
      // running outside the placement (docs/decisions.md).
      .notAdopted = "Deployments are not adopted: delete the member's Deployment to let Flotilla "
                    "create its own",
      .podSpecPath = {"spec", "template", "spec"},
  });
  // The other kinds with a pod template: what their pods read follows them (docs/design.md §12).
  // Each member runs its own controller for them: their health is the member's rollout, the
  // host's status the members' sum (workload_status.h, job_status.h).
  registry.add(KindEntry{.group = "apps",
                         .kind = "StatefulSet",
                         .replicas = statefulSetReplicas,
                         .requirements = templateRequirements,
                         .reviseReplicas = reviseStatefulSet,
                         .health = statefulSetHealth,
                         .aggregateStatus = statefulSetStatus,
                         .dependencies = statefulSetDependencies,
                         .podLabels = templateLabels,
                         // A stateful set split among clusters is a choice (its pods' data
                         // stays where they ran): made only by a policy that says Divided.
                         .defaultScheduling = "Duplicated",
                         .progress = readyOf("readyReplicas", "replicas"),
                         .podSpecPath = {"spec", "template", "spec"}});
  registry.add(KindEntry{.group = "apps",
                         .kind = "DaemonSet",
                         .health = daemonSetHealth,
                         .aggregateStatus = daemonSetStatus,
                         .dependencies = podTemplateDependencies,
                         .podLabels = templateLabels,
                         .progress = readyOf("numberReady", "desiredNumberScheduled"),
                         .podSpecPath = {"spec", "template", "spec"}});
  registry.add(KindEntry{.group = "batch",
                         .kind = "Job",
                         .replicas = jobReplicas,
                         .requirements = templateRequirements,
                         .reviseReplicas = reviseJob,
                         .prune = pruneJob,
                         .retain = retainJob,
                         .health = jobHealth,
                         .aggregateStatus = jobStatus,
                         .dependencies = podTemplateDependencies,
                         .podLabels = templateLabels,
                         .duplicatedWarning = jobDuplicatedWarning,
                         .progress = jobProgress,
                         .finishes = true,
                         .podSpecPath = {"spec", "template", "spec"}});
  registry.add(KindEntry{.group = "apps",
                         .kind = "ReplicaSet",
                         .dependencies = podTemplateDependencies,
                         .podLabels = templateLabels,
                         .podSpecPath = {"spec", "template", "spec"}});
  registry.add(
      KindEntry{.group = "batch",
                .kind = "CronJob",
                .aggregateStatus = cronJobStatus,
                .dependencies =
                    [](const json::object& o) {
                      return podSpecAt(o, {"spec", "jobTemplate", "spec", "template", "spec"});
                    },
                .podLabels =
                    [](const json::object& o) {
                      return u::findObject(
                          o, {"spec", "jobTemplate", "spec", "template", "metadata", "labels"});
                    },
                .duplicatedWarning = cronJobDuplicatedWarning,
                .podSpecPath = {"spec", "jobTemplate", "spec", "template", "spec"}});
  registry.add(
      KindEntry{.group = "",
                .kind = "Pod",
                .dependencies = [](const json::object& o) { return podSpecAt(o, {"spec"}); },
                .podLabels =
                    [](const json::object& o) {
                      return u::findObject(o, {"metadata", "labels"});
                    },
                .podSpecPath = {"spec"}});
}

}  // namespace flotilla::interpreter
