#include "scheduler/available_replicas.h"

#include "scheduler/framework/snapshot.h"

namespace flotilla::scheduler {

std::optional<api::Quantity> availableResource(const api::ClusterResources& resources,
                                               const std::string& name) {
  auto it = resources.allocatable.find(name);
  if (it == resources.allocatable.end()) return std::nullopt;
  api::Quantity available = it->second;
  if (auto a = resources.allocated.find(name); a != resources.allocated.end())
    available -= a->second;
  if (auto a = resources.allocating.find(name); a != resources.allocating.end()) {
    available -= a->second;
  }
  return available;
}

int64_t availableReplicas(const api::ClusterResources& resources,
                          const api::ResourceList& perReplica) {
  return availableReplicas(ResourceView(resources), requestView(perReplica));
}

}  // namespace flotilla::scheduler
