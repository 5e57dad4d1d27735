// Whether a source object should be federated, and under which policy: the rules every kind
// shares (docs/design.md §5.2). decideFederated (Deployments) and decideFederatedObject (any other
// kind) turn it into a write.
#pragma once

#include <string>

#include "controllers/policy/resolve.h"

namespace flotilla::controllers::federate {

struct Intent {
  bool wanted = false;
  std::string policyValue;  // the PolicyKey::str() to record on the federated object
  std::string message;      // why there is no winning policy (or why it is not wanted)
  std::string refusal;      // the labelled policy refused the source: for a Warning Event
};

// `owned`: a federated object exists and is controlled by the source. `claimed`: the policy
// recorded on it (null: none). `claimedPolicyExists`: whether that policy exists now.
//
// A deleted policy never un-federates a running workload (Karmada keeps resources when their
// policy goes away); removing the label, or editing policies so none selects the source, does. A
// refused label is not a request that may still be met (as a missing policy is): whatever was
// federated through it before goes (docs/security.md, H2).
Intent intentOf(const policy::Resolution& resolution, bool owned, const std::string* claimed,
                bool claimedPolicyExists);

}  // namespace flotilla::controllers::federate
