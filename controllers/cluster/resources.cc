#include "controllers/cluster/resources.h"

#include "controllers/common/pod_requests.h"

namespace flotilla::controllers::cluster {
namespace {

bool nodeReady(const api::Node& node) {
  for (const auto& c : node.status.conditions) {
    if (c.type == "Ready") return c.status == "True";
  }
  return false;
}

// Finished pods hold no resources on their node any more (the kubelet has released them), even
// though the objects linger until garbage-collected.
bool terminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

}  // namespace

ResourceSummary summarizeResources(const std::vector<api::Node>& nodes,
                                   const std::vector<api::Pod>& pods) {
  ResourceSummary out;
  api::ClusterResources& r = out.resources;
  for (const auto& node : nodes) {
    ++out.nodes.total;
    if (!nodeReady(node)) continue;
    ++out.nodes.ready;
    if (!node.spec.unschedulable) addResources(r.allocatable, node.status.allocatable);
  }

  // Every pod takes one of the node's `pods` slots, which podRequests() does not count.
  const api::ResourceList onePod = {{"pods", api::Quantity::fromUnits(1)}};
  for (const auto& pod : pods) {
    if (terminal(pod)) continue;
    api::ResourceList& into = pod.spec.nodeName.empty() ? r.allocating : r.allocated;
    addResources(into, podRequests(pod.spec));
    addResources(into, onePod);
  }

  // Pods can be bound to nodes that no longer count as allocatable (NotReady, cordoned), so the
  // difference can go negative; a negative "available" would only confuse readers and estimators.
  for (const auto& [name, allocatable] : r.allocatable) {
    api::Quantity left = allocatable;
    if (auto it = r.allocated.find(name); it != r.allocated.end()) left -= it->second;
    if (auto it = r.allocating.find(name); it != r.allocating.end()) left -= it->second;
    r.available[name] = left.sign() < 0 ? api::Quantity() : left;
  }
  return out;
}

}  // namespace flotilla::controllers::cluster
