// Which kinds the host is watched for (docs/design.md §11): only those some PropagationPolicy or
// ClusterPropagationPolicy names, so memory and watches stay proportional to what is propagated.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "controllers/common/object_key.h"

namespace flotilla::controllers::federate {

// Where a kind is watched: in every namespace (a ClusterPropagationPolicy names it without a
// namespace; and always for a cluster-scoped kind), or only in the namespaces of the
// PropagationPolicies (and namespaced ClusterPropagationPolicy selectors) that name it, so a
// tenant's policy naming Secrets does not cache every Secret of the host.
struct SourceScope {
  bool allNamespaces = false;
  std::set<std::string> namespaces;  // when not allNamespaces
  void add(const std::string& ns) {
    if (ns.empty()) {
      allNamespaces = true;
      namespaces.clear();
    } else if (!allNamespaces) {
      namespaces.insert(ns);
    }
  }
  bool operator==(const SourceScope&) const = default;
};

// The (apiVersion, kind) pairs the policies' resourceSelectors name, less those another path
// handles or that are never propagated: apps/v1 Deployments (FederatedDeployments), Flotilla's own
// kinds, Events, Leases, Nodes, ... (api::neverPropagated). Two versions of one group and kind
// are watched once, in the preferred one (GA over beta over alpha, the highest first). Policies
// being deleted still count:
// their objects keep their placement until the policy is gone.
std::map<KindKey, SourceScope> kindsNamed(
    const std::vector<api::PropagationPolicy>& policies,
    const std::vector<api::ClusterPropagationPolicy>& clusterPolicies);

}  // namespace flotilla::controllers::federate
