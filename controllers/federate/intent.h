// Whether a source object should be federated, and under which policy: the rules every kind
// shares (docs/design.md §5.2). decideFederated (Deployments) and decideFederatedObject (any other
// kind) turn it into a write.
#pragma once

#include <string>

#include "api/json_codec.h"
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

// The write an intent leads to, the same for every federated kind: an object not controlled by
// the source is never touched (kConflict when wanted, with `conflict()` as the message); an owned
// object no longer wanted is deleted; otherwise `apply(object)` sets what the source dictates, on
// a new object (kCreate) or a copy of the existing one (kUpdate when that changed anything).
template <class Decision, class Object, class Conflict, class Apply>
void decideWrite(Decision& out, const Object* existing, bool owned, const Intent& intent,
                 Conflict conflict, Apply apply) {
  using Action = decltype(out.action);
  if (existing && !owned) {
    if (intent.wanted) {
      out.action = Action::kConflict;
      out.message = conflict();
    }
    return;
  }
  if (!intent.wanted) {
    if (owned) {
      out.action = Action::kDelete;
      out.desired = *existing;
      out.message = intent.message;
    }
    return;
  }
  out.message = intent.message;
  if (!existing) {
    out.action = Action::kCreate;
    apply(out.desired);
    return;
  }
  out.desired = *existing;
  apply(out.desired);
  if (api::encode(out.desired) != api::encode(*existing)) out.action = Action::kUpdate;
}

}  // namespace flotilla::controllers::federate
