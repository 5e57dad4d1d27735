#include "scheduler/plugins/least_allocated/least_allocated.h"

#include <algorithm>

namespace flotilla::scheduler {

std::optional<int64_t> usedFractionPpm(const api::ClusterResources& r, const std::string& resource,
                                       const api::ResourceList& request) {
  auto alloc = r.allocatable.find(resource);
  if (alloc == r.allocatable.end() || alloc->second.sign() <= 0) return std::nullopt;
  api::Quantity used;
  if (auto it = r.allocated.find(resource); it != r.allocated.end()) used += it->second;
  if (auto it = r.allocating.find(resource); it != r.allocating.end()) used += it->second;
  if (auto it = request.find(resource); it != request.end()) used += it->second;
  const __int128 total = alloc->second.nanoValue();
  const __int128 ppm = std::clamp<__int128>(used.nanoValue() * 1'000'000 / total, 0, 1'000'000);
  return static_cast<int64_t>(ppm);
}

api::Result<std::shared_ptr<Plugin>> LeastAllocated::factory(const boost::json::value& args) {
  if (args.is_null()) return std::shared_ptr<Plugin>(std::make_shared<LeastAllocated>());
  const auto* resources = args.is_object() ? args.as_object().if_contains("resources") : nullptr;
  if (!resources || !resources->is_array() || resources->as_array().empty()) {
    return api::badRequest("args.resources: expected a non-empty list of {name, weight}");
  }
  std::vector<Resource> out;
  for (const auto& r : resources->as_array()) {
    const auto* name = r.is_object() ? r.as_object().if_contains("name") : nullptr;
    const auto* weight = r.is_object() ? r.as_object().if_contains("weight") : nullptr;
    if (!name || !name->is_string() || name->as_string().empty()) {
      return api::badRequest("args.resources[].name: expected a resource name");
    }
    int64_t w = 1;
    if (weight) {
      if (!weight->is_int64() || weight->as_int64() < 1) {
        return api::badRequest("args.resources[].weight: expected an integer >= 1");
      }
      w = weight->as_int64();
    }
    out.push_back({std::string(name->as_string()), w});
  }
  return std::shared_ptr<Plugin>(std::make_shared<LeastAllocated>(std::move(out)));
}

int64_t LeastAllocated::score(CycleState&, const SchedulingUnit& unit,
                              const api::FederatedCluster& cluster) const {
  int64_t weighted = 0;
  int64_t weights = 0;
  for (const auto& r : resources_) {
    const auto used = usedFractionPpm(cluster.status.resources, r.name, unit.resourceRequest);
    weights += r.weight;
    if (used) weighted += (1'000'000 - *used) * r.weight;  // absent resource scores 0
  }
  return weights == 0 ? 0 : weighted * kMaxClusterScore / (weights * 1'000'000);
}

}  // namespace flotilla::scheduler
