// Reading policies out of informer caches for policy::resolvePolicy, and mapping a policy change
// to the workloads it may now (or no longer) select.
#pragma once

#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "controllers/common/decoded_cache.h"
#include "controllers/policy/resolve.h"
#include "kube/cache/informer.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers {

struct PolicySet {
  std::vector<api::PropagationPolicy> policies;  // of one namespace
  std::vector<api::ClusterPropagationPolicy> clusterPolicies;
};
// Decoded policies, reused while a policy does not change (each controller that resolves
// policies keeps one: resolving reads every policy of a namespace on every reconcile).
struct PolicyDecodeCache {
  DecodedCache<api::PropagationPolicy> policies;
  DecodedCache<api::ClusterPropagationPolicy> clusterPolicies;
};
PolicySet policiesFor(const std::string& ns, const kube::SharedInformer& policies,
                      const kube::SharedInformer& clusterPolicies, PolicyDecodeCache& decoded);
// Whether the policy `key` exists (and is not being deleted).
bool policyExists(const policy::PolicyKey& key, const kube::SharedInformer& policies,
                  const kube::SharedInformer& clusterPolicies);
// Whether the policy a federated object's flotilla.io/policy annotation names (the one that
// claimed it) still exists: a deleted policy keeps its objects' placement (intent.h).
bool claimedPolicyExists(const std::map<std::string, std::string>& annotations,
                         const kube::SharedInformer& policies,
                         const kube::SharedInformer& clusterPolicies);
// A PropagationPolicy maps to every object of `objects` in its namespace; a cluster policy to all.
kube::MapFunc mapPolicyToObjects(const kube::SharedInformer& objects);

}  // namespace flotilla::controllers
