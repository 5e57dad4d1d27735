#include "scheduler/available_replicas.h"

#include <algorithm>
#include <climits>

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
  int64_t maximum = INT32_MAX;
  for (const auto& [name, request] : perReplica) {
    if (request.sign() <= 0) continue;
    const auto available = availableResource(resources, name);
    if (!available || available->sign() <= 0) return 0;
    // CPU compares in millicores (100m requests must count); everything else in units, rounded
    // up for the request so a fractional request never over-counts capacity.
    const bool cpu = name == "cpu";
    const int64_t have = cpu ? available->milliValue() : available->nanoValue() / 1'000'000'000;
    const int64_t need = cpu ? request.milliValue() : request.value();
    if (need <= 0) continue;
    maximum = std::min(maximum, have / need);
  }
  // Pods: every replica is a pod, whether or not the workload requests "pods".
  if (!perReplica.count("pods")) {
    if (auto pods = availableResource(resources, "pods")) {
      maximum = std::min(maximum, std::max<int64_t>(pods->value(), 0));
    }
  }
  return std::max<int64_t>(maximum, 0);
}

}  // namespace flotilla::scheduler
