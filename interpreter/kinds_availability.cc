// The kinds that keep a workload available (docs/design.md §13): the HorizontalPodAutoscaler and
// the PodDisruptionBudget, Duplicated whole objects.
//
// An HPA follows the workload it scales (its scaleTargetRef) to every cluster that workload is on,
// as a Service follows the pods it selects, and there it owns the workload's replicas: the sync
// keeps the member's replica count instead of writing the share back (a member HPA scaling 2 -> 6
// is not undone), and the host's workload shows the members' sum. The host's HPA shows the
// members' current and desired replicas summed.
#include <boost/json/value.hpp>
#include <string>

#include "api/unstructured.h"
#include "interpreter/interpreter.h"
#include "interpreter/workload_status.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

std::optional<Dependency> scaleTarget(const json::object& hpa) {
  const json::object* ref = u::findObject(hpa, {"spec", "scaleTargetRef"});
  if (ref == nullptr) return std::nullopt;
  Dependency target{u::stringAt(*ref, {"apiVersion"}), u::stringAt(*ref, {"kind"}),
                    u::stringAt(hpa, {"metadata", "namespace"}), u::stringAt(*ref, {"name"}),
                    false};
  if (target.kind.empty() || target.name.empty()) return std::nullopt;
  // (apiVersion is optional in a scaleTargetRef: the kinds an HPA scales are apps/v1's.)
  if (target.apiVersion.empty() &&
      (target.kind == "Deployment" || target.kind == "StatefulSet" || target.kind == "ReplicaSet"))
    target.apiVersion = "apps/v1";
  return target;
}

// A condition of `type` that is False, or null.
const json::object* conditionFalse(const json::object& o, std::string_view type) {
  const json::object* c = u::condition(o, type);
  return c && u::stringAt(*c, {"status"}) == "False" ? c : nullptr;
}

// Not able to scale (no target, no scale subresource), or not computing a scale (no metrics):
// the member's HPA does nothing for the workload there.
HealthReport hpaHealth(const json::object& hpa) {
  for (const char* type : {"AbleToScale", "ScalingActive"})
    if (const json::object* c = conditionFalse(hpa, type))
      return {Health::kUnhealthy, std::string(type) + " False: " +
                                      u::stringAt(*c, {"reason"}) + ": " +
                                      u::stringAt(*c, {"message"})};
  return {Health::kHealthy, ""};
}

// The host's HPA: the members' replicas summed (what the fleet runs and wants), the latest scale.
std::optional<json::object> hpaStatus(const json::object& source,
                                      const std::vector<MemberObject>& members) {
  json::object status;
  int64_t current = 0, desired = 0;
  std::string lastScale;
  for (const auto& m : members) {
    if (!m.object) continue;
    current += memberCount(*m.object, {"status", "currentReplicas"});
    desired += memberCount(*m.object, {"status", "desiredReplicas"});
    const std::string at = u::stringAt(*m.object, {"status", "lastScaleTime"});
    if (at > lastScale) lastScale = at;
  }
  if (current != 0) status["currentReplicas"] = current;
  status["desiredReplicas"] = desired;  // (required by autoscaling/v2)
  if (!lastScale.empty()) status["lastScaleTime"] = lastScale;
  (void)source;
  return status;
}

// A member's budget as its disruption controller reports it.
HealthReport pdbHealth(const json::object& pdb) {
  const int64_t generation = memberCount(pdb, {"metadata", "generation"});
  if (memberCount(pdb, {"status", "observedGeneration"}) < generation)
    return {Health::kProgressing, "the member's disruption controller has not observed generation " +
                                      std::to_string(generation) + " yet"};
  const int64_t healthy = memberCount(pdb, {"status", "currentHealthy"});
  const int64_t needed = memberCount(pdb, {"status", "desiredHealthy"});
  if (healthy < needed)
    return {Health::kProgressing, std::to_string(healthy) + " of the " + std::to_string(needed) +
                                      " healthy pods the budget needs"};
  return {Health::kHealthy, ""};
}

std::optional<json::object> pdbStatus(const json::object& source,
                                      const std::vector<MemberObject>& members) {
  auto status = summedStatus(source, members,
                             {"currentHealthy", "desiredHealthy", "expectedPods",
                              "disruptionsAllowed"});
  // (Required by policy/v1; the sums leave a zero out.)
  for (const char* field : {"currentHealthy", "desiredHealthy", "expectedPods",
                            "disruptionsAllowed"})
    if (!status.contains(field)) status[field] = 0;
  status.erase("conditions");
  status.erase("disruptedPods");
  return status;
}

}  // namespace

void addAvailabilityKinds(Registry& registry) {
  registry.add(KindEntry{.group = "autoscaling",
                         .kind = "HorizontalPodAutoscaler",
                         .health = hpaHealth,
                         .aggregateStatus = hpaStatus,
                         .follows = scaleTarget,
                         .scalesWhatItFollows = true});
  registry.add(KindEntry{.group = "policy",
                         .kind = "PodDisruptionBudget",
                         .health = pdbHealth,
                         .aggregateStatus = pdbStatus});
}

}  // namespace flotilla::interpreter
