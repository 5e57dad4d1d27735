// FederatedDeployment + its resolved policy -> ResourceBinding (docs/design.md §3.4, §5.3): one
// binding per FederatedDeployment, of the same name, owned by it. The binding controller writes
// what the workload asks for (replicas, per-replica requirements) and which policy governs it
// (policy reference, a copy of its placement, priority); spec.clusters is the scheduler's.
#pragma once

#include <string>

#include "api/flotilla_types.h"
#include "controllers/policy/resolve.h"

namespace flotilla::controllers::binding {

// Condition on the binding: True/PolicyFound, False/PolicyNotFound.
inline constexpr const char* kPolicyBoundCondition = "PolicyBound";
inline constexpr const char* kReasonPolicyFound = "PolicyFound";
inline constexpr const char* kReasonPolicyNotFound = "PolicyNotFound";
inline constexpr const char* kReasonBindingConflict = "BindingConflict";

// apps/v1 Deployment (a FederatedDeployment is governed as the Deployment it represents),
// namespace, name and metadata.labels.
policy::Workload workloadOf(const api::FederatedDeployment& fd);

enum class Action { kNone, kCreate, kUpdate, kConflict };

struct BindingDecision {
  Action action = Action::kNone;
  // kCreate/kUpdate: the object to write (metadata and spec; status too, written separately);
  // kNone with statusChanged: the status to write. Empty for kConflict and when there is no
  // binding to create.
  api::ResourceBinding desired;
  bool statusChanged = false;  // the reconciler writes status separately (status subresource)
  // An Event to record (on the binding when it exists, else on the FederatedDeployment); empty
  // reason: none.
  std::string eventType, eventReason, eventMessage;
};

// What a binding is made for, whatever the kind: the federated object that owns it (a
// FederatedDeployment or a FederatedObject), the object members run (spec.resource), and what the
// kind's interpreter says it asks of the scheduler.
struct BindingSubject {
  api::ObjectMeta owner;  // the federated object's metadata (name, namespace, uid, deletion)
  std::string ownerKind;  // FederatedDeployment | FederatedObject
  api::ObjectReferenceWithUID resource;  // spec.resource
  int32_t replicas = 0;  // 0: nothing to divide (the object goes to every selected cluster)
  api::ReplicaRequirements requirements;
  policy::Workload workload;  // what policies are matched against
  // replicaScheduling.type when the policy leaves it out: the kind's default (a StatefulSet is
  // Duplicated unless its policy says Divided; docs/operator.md "Kinds").
  const char* defaultScheduling = "Divided";
};

BindingSubject subjectOf(const api::FederatedDeployment& fd);
// A FederatedObject's binding names the object members receive (the template's apiVersion, kind,
// namespace and name), as a Karmada ResourceBinding names its resource; its owner reference names
// the FederatedObject.
BindingSubject subjectOf(const api::FederatedObject& fo);

// `existing`: the ResourceBinding of the same namespace/name, if any. `now`: RFC 3339, for
// condition transition times.
//
// Without a winning policy an existing binding keeps its policy, placement, priority and clusters:
// a deleted policy never empties a running placement. Its PolicyBound condition turns False and
// one Warning event PolicyNotFound is reported when it does (not on every reconcile).
// A binding not controlled by the FederatedDeployment is left alone: kConflict with a Warning
// event BindingConflict naming it.
//
// `requiredBy`: the workloads whose follower the object is (docs/design.md §12), recorded in
// spec.requiredBy. With them a binding is made without a policy (no spec.policy: the scheduler
// leaves it alone and its copies go to the leaders' clusters); a follower that never had a
// policy reports no PolicyNotFound, and gets its binding only once some leader is placed (one
// write, with clusters). A federated object being deleted has only its requirements kept current
// (its member copies stay where they are still needed).
BindingDecision decideBinding(const BindingSubject& subject, const policy::Resolution& resolution,
                              const api::ResourceBinding* existing, const std::string& now,
                              const std::vector<api::BindingRequirement>& requiredBy = {});
inline BindingDecision decideBinding(const api::FederatedDeployment& fd,
                                     const policy::Resolution& resolution,
                                     const api::ResourceBinding* existing, const std::string& now) {
  return decideBinding(subjectOf(fd), resolution, existing, now);
}

}  // namespace flotilla::controllers::binding
