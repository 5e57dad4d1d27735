// Deployment -> FederatedDeployment (docs/design.md §5.2): a Deployment that a policy governs (or
// whose label names one) is represented by a FederatedDeployment of the same name, owned by it,
// whose template follows the Deployment's labels, annotations and spec.
#pragma once

#include <string>

#include "api/flotilla_types.h"
#include "controllers/common/managed.h"
#include "controllers/policy/resolve.h"

namespace flotilla::controllers::federate {

enum class Action { kNone, kCreate, kUpdate, kDelete, kConflict };

struct FederateDecision {
  Action action = Action::kNone;
  // kCreate/kUpdate: the object to write; kDelete: the existing object (for its uid and
  // resourceVersion preconditions); otherwise empty.
  api::FederatedDeployment desired;
  std::string message;  // kConflict and kDelete: why
  // The labelled policy refused the Deployment: the reason, for a Warning Event on it.
  std::string refusal;
};

// `existing`: the FederatedDeployment of the same namespace/name, if any.
// `claimedPolicyExists`: whether the policy named by existing's kPolicyAnnotation exists now
// (false when there is no annotation).
//
// A deleted policy never un-federates a running workload (Karmada keeps resources when their
// policy goes away); removing the label, or editing policies so none selects the Deployment, does.
// Objects not controlled by the Deployment are never modified or deleted (kConflict instead).
FederateDecision decideFederated(const api::Deployment& deployment,
                                 const api::FederatedDeployment* existing,
                                 const policy::Resolution& resolution, bool claimedPolicyExists);

// What policies are matched against: apps/v1 Deployment, namespace, name, labels.
policy::Workload workloadOf(const api::Deployment& deployment);

}  // namespace flotilla::controllers::federate
