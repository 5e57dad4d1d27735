#include "controllers/federate/intent.h"

namespace flotilla::controllers::federate {

Intent intentOf(const policy::Resolution& resolution, bool owned, const std::string* claimed,
                bool claimedPolicyExists) {
  Intent out;
  const bool keptByDeletedPolicy = owned && claimed && !claimedPolicyExists;
  out.wanted = resolution.policy || (resolution.requested && !resolution.refused) ||
               (keptByDeletedPolicy && !resolution.refused);
  if (resolution.refused) out.refusal = resolution.message;
  if (!resolution.policy) out.message = resolution.message;
  if (!out.wanted) return out;
  if (resolution.policy) {
    out.policyValue = resolution.policy->key.str();
  } else if (resolution.requested) {
    out.policyValue = resolution.requested->str();
  } else {
    out.policyValue = *claimed;
  }
  return out;
}

}  // namespace flotilla::controllers::federate
