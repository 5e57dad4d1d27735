#include "sim/member/hpa_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "sim/member/workload_util.h"
#include "sim/server/managed_fields.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

const std::string kHpasResource = "autoscaling/horizontalpodautoscalers";

// The store collection of a scale target, "" when the sim cannot scale it.
std::string hpaTargetResource(const json::object& ref) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  const std::string apiVersion = str(ref, "apiVersion");
  const std::string kind = str(ref, "kind");
  if (apiVersion.rfind("apps/", 0) != 0) return "";
  if (kind == "Deployment") return "apps/deployments";
  if (kind == "StatefulSet") return "apps/statefulsets";
  if (kind == "ReplicaSet") return "apps/replicasets";
  return "";
}

}  // namespace

int HpaController::reconcile(PassClock& clock) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  int writes = 0;
  const std::string now = api::formatRfc3339(clock.now);
  for (const auto& shared : store_.listShared(kHpasResource, "")) {
    const json::object& hpa = *shared;
    if (deleting(hpa)) continue;
    const std::string ns = metaOf(hpa, "namespace");
    const auto& spec = obj(hpa, "spec");
    const auto& oldStatus = obj(hpa, "status");
    const auto& ref = obj(spec, "scaleTargetRef");
    const int64_t minReplicas = num(spec, "minReplicas", 1);
    const int64_t maxReplicas = num(spec, "maxReplicas", minReplicas);
    json::object status{{"observedGeneration", generationOf(hpa)}};
    json::array conditions;
    const std::string resource = hpaTargetResource(ref);
    auto target = resource.empty() ? api::Result<json::object>(api::Error{})
                                   : store_.get({resource, ns, str(ref, "name")});
    if (!target) {
      status["currentReplicas"] = num(oldStatus, "currentReplicas", 0);
      status["desiredReplicas"] = num(oldStatus, "desiredReplicas", 0);
      if (oldStatus.contains("lastScaleTime"))
        status["lastScaleTime"] = oldStatus.at("lastScaleTime");
      conditions.push_back(makeCondition(
          oldStatus, "AbleToScale", "False", "FailedGetScale",
          "the HPA controller was unable to get the target's current scale: " +
              (resource.empty() ? std::string("no scale subresource for ") + str(ref, "kind")
                                : str(ref, "kind") + " \"" + str(ref, "name") + "\" not found"),
          now, false));
    } else {
      const int64_t specReplicas = num(obj(*target, "spec"), "replicas", 1);
      const int64_t currentReplicas = num(obj(*target, "status"), "replicas", 0);
      const std::string wanted = annotation(hpa, kDesiredReplicasAnnotation);
      int64_t recommended = specReplicas;
      bool fromAnnotation = false;
      if (!wanted.empty()) {
        try {
          recommended = std::stoll(wanted);
          fromAnnotation = true;
        } catch (const std::exception&) {
        }
      }
      const bool disabled = specReplicas == 0 && minReplicas != 0;
      int64_t desired = disabled ? 0 : std::clamp(recommended, minReplicas, maxReplicas);
      bool rescaled = false;
      if (!disabled && desired != specReplicas) {
        json::object next = *target;
        next["spec"].as_object()["replicas"] = desired;
        auto& metadata = next["metadata"].as_object();
        metadata["generation"] = generationOf(*target) + 1;
        ManagedContext context{"kube-controller-manager", str(ref, "apiVersion"), now, true};
        recordUpdate(&*target, next, context);
        if (auto* managed = metadata.if_contains("managedFields"); managed && managed->is_array())
          for (auto& entry : managed->as_array())
            if (entry.is_object() &&
                str(entry.as_object(), "manager") == "kube-controller-manager" &&
                str(entry.as_object(), "operation") == "Update")
              entry.as_object()["subresource"] = "scale";
        if (store_.update({resource, ns, str(ref, "name")}, std::move(next),
                          resourceVersionOf(*target))) {
          ++writes;
          rescaled = true;
        }
      }
      status["currentReplicas"] = currentReplicas;
      status["desiredReplicas"] = desired;
      if (rescaled)
        status["lastScaleTime"] = now;
      else if (oldStatus.contains("lastScaleTime"))
        status["lastScaleTime"] = oldStatus.at("lastScaleTime");
      if (disabled) {
        conditions.push_back(makeCondition(oldStatus, "AbleToScale", "True", "SucceededGetScale",
                                           "the HPA controller was able to get the target's "
                                           "current scale",
                                           now, false));
        conditions.push_back(makeCondition(oldStatus, "ScalingActive", "False", "ScalingDisabled",
                                           "scaling is disabled since the replica count of the "
                                           "target is zero",
                                           now, false));
      } else {
        const bool sameAsBefore = num(oldStatus, "desiredReplicas", -1) == desired &&
                                  conditionIs(oldStatus, "AbleToScale", "True");
        const json::object* previous = conditionOf(oldStatus, "AbleToScale");
        if (rescaled ||
            (sameAsBefore && previous && str(*previous, "reason") == "SucceededRescale"))
          conditions.push_back(
              makeCondition(oldStatus, "AbleToScale", "True", "SucceededRescale",
                            "the HPA controller was able to update the target scale to " +
                                std::to_string(desired),
                            now, false));
        else
          conditions.push_back(makeCondition(oldStatus, "AbleToScale", "True", "ReadyForNewScale",
                                             "recommended size matches current size", now, false));
        if (fromAnnotation)
          conditions.push_back(makeCondition(
              oldStatus, "ScalingActive", "True", "ValidMetricFound",
              std::string("the HPA was able to successfully calculate a replica count from the ") +
                  kDesiredReplicasAnnotation + " annotation",
              now, false));
        else
          conditions.push_back(makeCondition(
              oldStatus, "ScalingActive", "False", "FailedGetResourceMetric",
              "the HPA was unable to compute the replica count: failed to get cpu utilization: "
              "unable to get metrics for resource cpu: no metrics returned from resource metrics "
              "API",
              now, false));
        if (recommended > maxReplicas)
          conditions.push_back(makeCondition(oldStatus, "ScalingLimited", "True", "TooManyReplicas",
                                             "the desired replica count is more than the maximum "
                                             "replica count",
                                             now, false));
        else if (recommended < minReplicas)
          conditions.push_back(makeCondition(oldStatus, "ScalingLimited", "True", "TooFewReplicas",
                                             "the desired replica count is less than the minimum "
                                             "replica count",
                                             now, false));
        else
          conditions.push_back(
              makeCondition(oldStatus, "ScalingLimited", "False", "DesiredWithinRange",
                            "the desired count is within the acceptable range", now, false));
      }
    }
    status["conditions"] = std::move(conditions);
    writes += writeStatus(store_, kHpasResource, hpa, std::move(status));
  }
  return writes;
}

}  // namespace flotilla::sim
