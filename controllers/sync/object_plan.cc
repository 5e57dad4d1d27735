#include "controllers/sync/object_plan.h"

#include <algorithm>
#include <boost/json/serialize.hpp>

#include "api/conditions.h"
#include "api/unstructured.h"
#include "controllers/common/managed.h"
#include "controllers/sync/member_object.h"
#include "controllers/sync/sync_status.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;
namespace u = api::unstructured;

api::Result<json::object> desiredMemberObject(
    const api::FederatedObject& fo, const interpreter::Interpreter& interpreter,
    const std::string& bindingKey, const std::string& cluster, const interpreter::Share* share,
    const std::string& hostId, bool adopted, std::string* note,
    const std::vector<override::RuleRef>& rules, override::OverrideResult* overrides) {
  json::object object = fo.spec.template_;
  // (An object of a kind with replicas may have none to divide: an Indexed Job.)
  if (share && interpreter.replicas(object)) {
    std::string limited = interpreter.reviseReplicas(object, *share);
    if (note) *note = std::move(limited);
  }
  const std::string apiVersion = u::stringAt(object, {"apiVersion"});
  const std::string kind = u::stringAt(object, {"kind"});
  const std::string name = u::stringAt(object, {"metadata", "name"});
  const std::string ns = u::stringAt(object, {"metadata", "namespace"});
  override::OverrideResult byPolicies;
  if (!rules.empty()) byPolicies = override::applyRules(object, rules);
  if (byPolicies.error) return api::Error{api::reason::kInvalid, 422, *byPolicies.error, {}};
  auto overridden = applyOverrides(std::move(object), fo.spec.overrides, cluster);
  if (!overridden) return overridden.error();
  json::object result = std::move(*overridden);
  // What overrides must not change: the object's identity.
  result["apiVersion"] = apiVersion;
  result["kind"] = kind;
  auto& meta = u::ensureObject(result, {"metadata"});
  meta["name"] = name;
  if (ns.empty()) {
    meta.erase("namespace");
  } else {
    meta["namespace"] = ns;
  }
  clearReservedAnnotations(result);
  if (adopted)
    u::ensureObject(u::ensureObject(result, {"metadata"}), {"annotations"})[kAdoptedAnnotation] =
        "true";
  setAppliedOverrides(result, byPolicies.applied);
  if (overrides) *overrides = std::move(byPolicies);
  const auto generation = fo.metadata.annotations.find(kSourceGenerationAnnotation);
  markMemberObject(result, bindingKey, cluster, hostId,
                   generation == fo.metadata.annotations.end() ? "" : generation->second);
  return result;
}

namespace {

// Whether a controller owns `live` (an ownerReference with controller: true).
bool controlledByAnother(const json::object& live) {
  if (const auto* refs = u::findArray(live, {"metadata", "ownerReferences"}))
    for (const auto& r : *refs)
      if (r.is_object() && r.as_object().if_contains("controller") &&
          r.as_object().at("controller") == true)
        return true;
  return false;
}

// A copy `bindingKey` of this host released, as it was left: it may be taken back.
bool takenBack(const json::object& live, const std::string& bindingKey, const std::string& hostId) {
  const auto annotation = [&](const char* name) {
    return u::stringAt(live, {"metadata", "annotations", name});
  };
  const auto generation = u::intAt(live, {"metadata", "generation"});
  return annotation(kReleasedByAnnotation) == bindingKey &&
         annotation(kReleasedHostAnnotation) == hostId &&
         annotation(kReleasedGenerationAnnotation) == std::to_string(generation.value_or(0)) &&
         u::stringAt(live, {"metadata", "labels", kManagedByLabel}) != kManagedByValue &&
         !controlledByAnother(live);
}

}  // namespace

std::string releasePatch(const json::object& live, const std::string& bindingKey,
                         const std::string& hostId) {
  json::object labels{{kManagedByLabel, nullptr},
                      {kBindingLabel, nullptr},
                      {kHostLabel, nullptr},
                      {kClusterLabel, nullptr}};
  json::object annotations{
      {kBindingAnnotation, nullptr},
      {kReleasedByAnnotation, bindingKey},
      {kReleasedHostAnnotation, hostId},
      {kReleasedGenerationAnnotation,
       std::to_string(u::intAt(live, {"metadata", "generation"}).value_or(0))}};
  return json::serialize(
      json::object{{"metadata", json::object{{"labels", std::move(labels)},
                                             {"annotations", std::move(annotations)}}}});
}

void keepScaledReplicas(json::object& desired, const json::object& live) {
  const json::value* replicas = u::find(live, {"spec", "replicas"});
  if (replicas == nullptr || !replicas->is_int64()) return;
  u::ensureObject(desired, {"spec"})["replicas"] = *replicas;
}

bool adopted(const json::object& live) {
  return u::stringAt(live, {"metadata", "annotations", kAdoptedAnnotation}) == "true";
}

MemberPlan planMember(const MemberInput& in) {
  MemberPlan out;
  const bool ours = in.live && managedFor(*in.live, in.bindingKey, in.hostId);
  if (!in.targeted) {
    if (ours && !adopted(*in.live)) {
      out.step = in.keptWhenUnfollowed ? MemberStep::kRelease : MemberStep::kDelete;
      if (in.keptWhenUnfollowed) out.message = in.keptWhenUnfollowed;
    }
    return out;
  }
  if (!in.live) {
    out.step = MemberStep::kApply;
    return out;
  }
  if (!ours && in.keptWhenUnfollowed && takenBack(*in.live, in.bindingKey, in.hostId)) {
    out.step = MemberStep::kApply;
    return out;
  }
  if (!ours) {
    const std::string owner = managingBinding(*in.live, in.hostId);
    // Adopt takes over what no Flotilla manages, never another binding's or another host's copy.
    const bool anotherFlotilla =
        !owner.empty() ||
        u::stringAt(*in.live, {"metadata", "labels", kManagedByLabel}) == kManagedByValue;
    // Never a Namespace (adopting one would mark it as Flotilla's, which lets every tenant's
    // objects in: docs/security.md, H3) nor an object another controller controls there.
    const bool adoptable =
        u::stringAt(*in.live, {"kind"}) != "Namespace" && !controlledByAnother(*in.live);
    if (in.adoptAllowed && !in.notAdopted && !anotherFlotilla && adoptable) {
      out.step = MemberStep::kApply;
      out.adopt = true;
      return out;
    }
    out.step = MemberStep::kConflict;
    out.message =
        anotherFlotilla
            ? "an object of that name is managed by Flotilla for " +
                  (owner.empty() ? std::string("another host or binding") : "binding " + owner) +
                  "; leaving it untouched"
        : !adoptable    ? "an object of that name exists and Flotilla does not manage it; "
                          "leaving it untouched (a Namespace, or an object another "
                          "controller owns, is never adopted)"
        : in.notAdopted ? "an object of that name exists and Flotilla does not manage "
                          "it; leaving it untouched (" +
                              std::string(in.notAdopted) + ")"
                        : "an object of that name exists and Flotilla does not manage it; "
                          "leaving it untouched (conflictResolution: Adopt in the policy "
                          "takes it over)";
    return out;
  }
  if (in.desired && !difference(json::value(*in.live), json::value(*in.desired)).empty())
    out.step = MemberStep::kApply;
  return out;
}

api::FederatedObjectStatus objectStatus(const api::FederatedObject& fo,
                                        std::vector<ClusterState> clusters,
                                        const std::string& now) {
  std::sort(clusters.begin(), clusters.end(),
            [](const ClusterState& a, const ClusterState& b) { return a.cluster < b.cluster; });
  api::FederatedObjectStatus status;
  status.conditions = fo.status.conditions;
  int targets = 0, healthy = 0;
  std::string notApplied, notHealthy;
  for (const auto& c : clusters) {
    status.clusters.push_back({c.cluster, c.propagation, std::string(toString(c.health.health)),
                               c.propagation != propagation::kOK ? c.message
                               : c.health.message.empty()        ? c.message
                               : c.message.empty()               ? c.health.message
                                                   : c.health.message + "; " + c.message,
                               c.appliedOverrides, c.skippedOverrides});
    if (!c.target) {
      if (notApplied.empty()) notApplied = c.cluster + ": " + c.propagation + ": " + c.message;
      continue;
    }
    ++targets;
    if (!status.clusterNames.empty()) status.clusterNames += ",";
    status.clusterNames += c.cluster;
    if (c.propagation != propagation::kOK && notApplied.empty())
      notApplied = c.cluster + ": " + c.propagation + (c.message.empty() ? "" : ": " + c.message);
    if (c.health.health == interpreter::Health::kHealthy) {
      ++healthy;
    } else if (notHealthy.empty()) {
      notHealthy = c.cluster + ": " + std::string(toString(c.health.health)) +
                   (c.health.message.empty() ? "" : ": " + c.health.message);
    }
  }
  if (targets == 0) {
    status.observedGeneration = fo.metadata.generation;
    return status;  // nothing placed yet: nothing to say about it
  }
  status.healthy = std::to_string(healthy) + "/" + std::to_string(targets);
  const int64_t generation = fo.metadata.generation;
  if (notApplied.empty()) {
    api::setCondition(status.conditions, "Propagated", "True", "Applied",
                      "applied on " + std::to_string(targets) + " cluster(s)", generation, now);
  } else {
    api::setCondition(status.conditions, "Propagated", "False", "NotApplied", notApplied,
                      generation, now);
  }
  if (notHealthy.empty()) {
    api::setCondition(status.conditions, "Healthy", "True", "Healthy",
                      "healthy on " + std::to_string(targets) + " cluster(s)", generation, now);
  } else {
    api::setCondition(status.conditions, "Healthy", "False", "NotHealthy", notHealthy, generation,
                      now);
  }
  status.observedGeneration = generation;
  return status;
}

}  // namespace flotilla::controllers::sync
