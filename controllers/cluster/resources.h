// What a member cluster has and uses, computed from its Node and Pod objects: the numbers the
// cluster controller writes to FederatedCluster.status.resources and status.nodeSummary, and
// that the scheduler's resource plugins and available-replica estimates read.
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <unordered_map>
#include <vector>

#include "api/core_types.h"
#include "api/flotilla_types.h"

namespace flotilla::controllers::cluster {

struct ResourceSummary {
  api::ClusterResources resources;
  api::NodeSummary nodes;
};

// nodes.total counts every node, nodes.ready those whose Ready condition is "True".
// allocatable sums status.allocatable over nodes that are Ready and schedulable (as Karmada does:
// a cordoned or broken node offers nothing to new replicas). Pods that finished (Succeeded,
// Failed) are ignored; a bound pod (spec.nodeName set) counts to `allocated`, an unbound one to
// `allocating`, each with its podRequests() plus one `pods`. available is, per resource of
// allocatable, allocatable - allocated - allocating clamped at zero.
ResourceSummary summarizeResources(const std::vector<api::Node>& nodes,
                                   const std::vector<api::Pod>& pods);

// What pods take: `allocated` by bound pods, `allocating` by unbound ones (terminal pods aside).
struct PodUsage {
  api::ResourceList allocated;
  api::ResourceList allocating;
};
PodUsage podUsage(const std::vector<api::Pod>& pods);
// The same summary from the pods' usage worked out beforehand.
ResourceSummary summarizeWithUsage(const std::vector<api::Node>& nodes, PodUsage usage);

// A member's pod usage kept up to date from its informer's cache at the cost of the pods that
// changed: each pod's share is remembered by its cached object, which the informer replaces
// (never mutates) on every change. A member with thousands of pods is re-summarized on every
// burst of pod events, so decoding only what changed is what keeps this linear in the changes.
class PodUsageCache {
 public:
  // The usage of exactly these pods (the informer's current list).
  PodUsage update(const std::vector<std::shared_ptr<const boost::json::object>>& pods);

 private:
  struct Share {
    std::shared_ptr<const boost::json::object> object;  // keeps the key's address unique
    bool counted = false;                               // false: terminal, or not a Pod
    bool bound = false;
    api::ResourceList requests;  // podRequests() plus one `pods`
  };
  std::unordered_map<const boost::json::object*, Share> shares_;
};

}  // namespace flotilla::controllers::cluster
