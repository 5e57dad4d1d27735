// Where the sync controller reads OverridePolicies and ClusterOverridePolicies from (a seam: the
// operator's is the host's informer caches, a test's a fixed set), and which federated objects a
// policy's change concerns (their syncs run again: docs/design.md §14).
#pragma once

#include <string>
#include <vector>

#include "controllers/common/decoded_cache.h"
#include "controllers/override/resolve.h"
#include "kube/cache/informer.h"

namespace flotilla::controllers::override {

class OverridePolicies {
 public:
  virtual ~OverridePolicies() = default;
  // Every ClusterOverridePolicy and the OverridePolicies of `ns` ("": a cluster-scoped object's,
  // which none reaches).
  virtual PolicySet forNamespace(const std::string& ns) const = 0;
};

// From the host's caches; each policy decoded once per version.
class CachedOverridePolicies final : public OverridePolicies {
 public:
  CachedOverridePolicies(const kube::SharedInformer& policies,
                         const kube::SharedInformer& clusterPolicies)
      : policies_(policies), clusterPolicies_(clusterPolicies) {}
  PolicySet forNamespace(const std::string& ns) const override;

 private:
  const kube::SharedInformer& policies_;
  const kube::SharedInformer& clusterPolicies_;
  mutable DecodedCache<api::OverridePolicy> decoded_;
  mutable DecodedCache<api::ClusterOverridePolicy> decodedCluster_;
};

// A federated object as policies see it, as the binding sees it for PropagationPolicies: its
// template's apiVersion, kind and name (a FederatedDeployment's template is a Deployment's) in
// the federated object's namespace, with the federated object's labels (the source's, the
// flotilla.io/ policy labels the template leaves out included).
policy::Workload federatedWorkload(const boost::json::object& federated);

// The keys of the federated objects in `informer` (namespace `ns`; "" every one) that `spec`
// selects (`policyNamespace`: an OverridePolicy's own namespace, "" for a ClusterOverridePolicy).
std::vector<std::string> selectedKeys(const kube::SharedInformer& informer,
                                      const api::OverridePolicySpec& spec,
                                      const std::string& policyNamespace);

}  // namespace flotilla::controllers::override
