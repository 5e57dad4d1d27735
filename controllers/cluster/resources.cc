#include "controllers/cluster/resources.h"

#include <boost/json.hpp>

#include "controllers/common/typed.h"
#include "interpreter/pod_requests.h"

namespace flotilla::controllers::cluster {
namespace json = boost::json;
using interpreter::addResources;
using interpreter::podRequests;
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

// What one pod takes: its requests plus one of the node's `pods` slots, which podRequests() does
// not count.
api::ResourceList podShare(const api::Pod& pod) {
  api::ResourceList share = podRequests(pod.spec);
  addResources(share, {{"pods", api::Quantity::fromUnits(1)}});
  return share;
}

}  // namespace

PodUsage podUsage(const std::vector<api::Pod>& pods) {
  PodUsage usage;
  for (const auto& pod : pods) {
    if (terminal(pod)) continue;
    addResources(pod.spec.nodeName.empty() ? usage.allocating : usage.allocated, podShare(pod));
  }
  return usage;
}

PodUsage PodUsageCache::update(const std::vector<std::shared_ptr<const json::object>>& pods) {
  std::unordered_map<const json::object*, Share> next;
  next.reserve(pods.size());
  PodUsage usage;
  for (const auto& object : pods) {
    if (!object) continue;
    Share share;
    if (auto it = shares_.find(object.get()); it != shares_.end()) {
      share = std::move(it->second);
    } else {
      share.object = object;
      if (auto pod = fromObject<api::Pod>(*object); pod && !terminal(*pod)) {
        share.counted = true;
        share.bound = !pod->spec.nodeName.empty();
        share.requests = podShare(*pod);
      }
    }
    if (share.counted)
      addResources(share.bound ? usage.allocated : usage.allocating, share.requests);
    next.emplace(object.get(), std::move(share));
  }
  shares_ = std::move(next);
  return usage;
}

ResourceSummary summarizeResources(const std::vector<api::Node>& nodes,
                                   const std::vector<api::Pod>& pods) {
  return summarizeWithUsage(nodes, podUsage(pods));
}

ResourceSummary summarizeWithUsage(const std::vector<api::Node>& nodes, PodUsage usage) {
  ResourceSummary out;
  api::ClusterResources& r = out.resources;
  for (const auto& node : nodes) {
    ++out.nodes.total;
    if (!nodeReady(node)) continue;
    ++out.nodes.ready;
    if (!node.spec.unschedulable) addResources(r.allocatable, node.status.allocatable);
  }
  r.allocated = std::move(usage.allocated);
  r.allocating = std::move(usage.allocating);

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
