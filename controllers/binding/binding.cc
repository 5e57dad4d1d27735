#include "controllers/binding/binding.h"

#include <algorithm>

#include "api/conditions.h"
#include "api/json_codec.h"
#include "api/unstructured.h"
#include "api/validation.h"
#include "interpreter/interpreter.h"
#include "interpreter/pod_requests.h"

namespace flotilla::controllers::binding {
namespace {

constexpr const char* kFederatedDeploymentKind = "FederatedDeployment";

std::string key(const api::ObjectMeta& meta) { return meta.namespace_ + "/" + meta.name; }

bool controlledBy(const api::ResourceBinding& rb, const std::string& uid) {
  for (const auto& ref : rb.metadata.ownerReferences) {
    if (ref.controller.value_or(false) && ref.uid == uid) return true;
  }
  return false;
}

// "member1=2 member2=4", in the scheduler's order; "none" when nothing is placed.
std::string placementSummary(const std::vector<api::TargetCluster>& clusters) {
  std::string out;
  for (const auto& c : clusters) {
    if (!out.empty()) out += ' ';
    out += c.name + "=" + std::to_string(c.replicas);
  }
  return out.empty() ? "none" : out;
}

std::string policyDisplay(const api::PolicyReference& ref) {
  if (ref.name.empty()) return "the policy";
  return policy::PolicyKey{ref.kind, ref.namespace_, ref.name}.display();
}

// Why an existing binding lost its policy. The policy it was bound to is gone (or no longer
// selects the workload; then the federate controller removes the FederatedDeployment anyway),
// unless the workload's label now names another policy, which resolution.message describes.
std::string lostPolicyMessage(const api::ResourceBinding& existing,
                              const policy::Resolution& resolution) {
  const auto& ref = existing.spec.policy;
  std::string why;
  if (resolution.requested &&
      !(*resolution.requested == policy::PolicyKey{ref.kind, ref.namespace_, ref.name})) {
    why = resolution.message;
  } else {
    why = policyDisplay(ref) + " no longer exists";
  }
  return why + "; keeping the current placement (" + placementSummary(existing.spec.clusters) + ")";
}

// What kUpdate compares: the parts of a binding this controller writes through the main resource.
boost::json::value specPart(const api::ResourceBinding& rb) {
  api::ResourceBinding part;
  part.metadata.ownerReferences = rb.metadata.ownerReferences;
  part.spec = rb.spec;
  return api::encode(part);
}

boost::json::value statusPart(const api::ResourceBinding& rb) {
  api::ResourceBinding part;
  part.status = rb.status;
  return api::encode(part);
}

}  // namespace

policy::Workload workloadOf(const api::FederatedDeployment& fd) {
  return {.apiVersion = "apps/v1",
          .kind = "Deployment",
          .ns = fd.metadata.namespace_,
          .name = fd.metadata.name,
          .labels = fd.metadata.labels};
}

BindingSubject subjectOf(const api::FederatedDeployment& fd) {
  const api::DeploymentSpec& workload = fd.spec.template_.spec;
  return {.owner = fd.metadata,
          .ownerKind = kFederatedDeploymentKind,
          .resource = {.apiVersion = api::kGroupVersion,
                       .kind = kFederatedDeploymentKind,
                       .namespace_ = fd.metadata.namespace_,
                       .name = fd.metadata.name,
                       .uid = fd.metadata.uid},
          .replicas = workload.replicas.value_or(1),
          .requirements = interpreter::replicaRequirements(workload.template_),
          .workload = workloadOf(fd)};
}

BindingSubject subjectOf(const api::FederatedObject& fo) {
  const auto& t = fo.spec.template_;
  const std::string apiVersion = api::unstructured::stringAt(t, {"apiVersion"});
  const std::string kind = api::unstructured::stringAt(t, {"kind"});
  const auto entry = interpreter::Registry::builtIn().of(apiVersion, kind);
  BindingSubject s{
      .owner = fo.metadata,
      .ownerKind = fo.kind,
      .resource = {.apiVersion = apiVersion,
                   .kind = kind,
                   .namespace_ = api::unstructured::stringAt(t, {"metadata", "namespace"}),
                   .name = api::unstructured::stringAt(t, {"metadata", "name"}),
                   .uid = fo.metadata.uid},
      .replicas = entry.replicas(t).value_or(0),
      .requirements = entry.requirements(t),
      .workload = policy::workloadOf(t),
      .defaultScheduling = entry.defaultScheduling()};
  // The federated object's labels, as a FederatedDeployment's: the source's, with the policy
  // label the template leaves out.
  s.workload.labels = fo.metadata.labels;
  return s;
}

BindingDecision decideBinding(const BindingSubject& subject, const policy::Resolution& resolution,
                              const api::ResourceBinding* existing, const std::string& now,
                              const std::vector<api::BindingRequirement>& requiredBy) {
  BindingDecision out;
  const api::ObjectMeta& owner = subject.owner;
  if (owner.deletionTimestamp) {
    // A follower whose source is gone keeps its member copies where its leaders still need them
    // (docs/design.md §12): the requirements stay current until the copies may go.
    if (existing && controlledBy(*existing, owner.uid) && existing->spec.requiredBy != requiredBy) {
      out.desired = *existing;
      out.desired.spec.requiredBy = requiredBy;
      out.action = Action::kUpdate;
    }
    return out;
  }

  if (existing && !controlledBy(*existing, owner.uid)) {
    out.action = Action::kConflict;
    out.eventType = "Warning";
    out.eventReason = kReasonBindingConflict;
    out.eventMessage = "ResourceBinding " + key(existing->metadata) +
                       " exists and is not controlled by " + subject.ownerKind + " " + key(owner) +
                       "; leaving it alone";
    return out;
  }

  // A follower only (no policy) whose workloads are placed nowhere yet: bound once one is (its
  // leader's placement brings it back), so that its binding is written once, with clusters.
  const bool placedNowhere =
      std::all_of(requiredBy.begin(), requiredBy.end(),
                  [](const api::BindingRequirement& r) { return r.clusters.empty(); });
  if (!resolution.policy && !existing && !requiredBy.empty() && placedNowhere) return out;

  if (!resolution.policy && !existing && requiredBy.empty()) {
    // Nothing to bind yet; the reconciler records why on the federated object.
    out.eventType = "Warning";
    out.eventReason = kReasonPolicyNotFound;
    out.eventMessage = resolution.message;
    return out;
  }

  // Starting from the existing binding keeps what others own: spec.clusters (the scheduler's),
  // metadata (resourceVersion, annotations such as flotilla.io/schedule-record, finalizers) and
  // the status conditions other controllers write.
  api::ResourceBinding& desired = out.desired;
  if (existing) {
    desired = *existing;
  } else {
    desired.metadata.name = owner.name;
    desired.metadata.namespace_ = owner.namespace_;
  }
  // A cluster-scoped object (a ClusterFederatedObject's) is bound by a ClusterResourceBinding:
  // the same fields, no namespace.
  desired.kind = owner.namespace_.empty() ? "ClusterResourceBinding" : "ResourceBinding";
  desired.metadata.ownerReferences = {{.apiVersion = api::kGroupVersion,
                                       .kind = subject.ownerKind,
                                       .name = owner.name,
                                       .uid = owner.uid,
                                       .controller = true,
                                       .blockOwnerDeletion = true}};
  desired.spec.resource = subject.resource;
  desired.spec.replicas = subject.replicas;
  desired.spec.replicaRequirements = subject.requirements;
  desired.spec.requiredBy = requiredBy;

  const int64_t observedGeneration = existing ? existing->metadata.generation : 0;
  if (resolution.policy) {
    const auto& winner = *resolution.policy;
    desired.spec.policy = {.kind = winner.key.kind,
                           .name = winner.key.name,
                           .namespace_ = winner.key.ns,
                           .generation = winner.generation};
    // Defaulted as the ResourceBinding mutating webhook would default it: an operator write of
    // an undefaulted copy would come back defaulted and never match, an update per reconcile.
    // (Policies stored before the webhooks existed are undefaulted; defaulting is idempotent.)
    desired.spec.placement = winner.spec->placement;
    api::setDefaults(desired.spec.placement, subject.defaultScheduling);
    desired.spec.priority = winner.priority;
    desired.spec.conflictResolution = winner.spec->conflictResolution;
    desired.spec.dependencies = winner.spec->dependencies;
    // PolicyBound is only written once something was wrong: a binding whose policy is there has
    // no such condition, which saves a status write per binding (and one per scheduler write,
    // whose generation bump would otherwise move observedGeneration).
    const api::Condition* before =
        existing ? api::findCondition(existing->status.conditions, kPolicyBoundCondition) : nullptr;
    if (before && before->status != "True") {
      api::setCondition(desired.status.conditions, kPolicyBoundCondition, "True",
                        kReasonPolicyFound, "bound to " + winner.key.str(), observedGeneration,
                        now);
    }
  } else if (!existing || existing->spec.policy.name.empty()) {
    // A follower no policy governs: nothing to report, its requirements place it.
  } else {
    // An existing binding whose policy is gone: keep policy, placement, priority and clusters.
    const std::string message = lostPolicyMessage(*existing, resolution);
    const api::Condition* before =
        api::findCondition(existing->status.conditions, kPolicyBoundCondition);
    const bool newlyFalse =
        !before || before->status != "False" || before->reason != kReasonPolicyNotFound;
    api::setCondition(desired.status.conditions, kPolicyBoundCondition, "False",
                      kReasonPolicyNotFound, message, observedGeneration, now);
    if (newlyFalse) {
      out.eventType = "Warning";
      out.eventReason = kReasonPolicyNotFound;
      out.eventMessage = message;
    }
  }

  if (!existing) {
    out.action = Action::kCreate;
    out.statusChanged = !desired.status.conditions.empty();
    return out;
  }
  if (specPart(desired) != specPart(*existing)) out.action = Action::kUpdate;
  out.statusChanged = statusPart(desired) != statusPart(*existing);
  return out;
}

}  // namespace flotilla::controllers::binding
