#include "scheduler/plugins/least_allocated/least_allocated.h"

#include <algorithm>

namespace flotilla::scheduler {

double usedFraction(const ClusterInfo& cluster, std::string_view resource,
                    const RequestView& requests) {
  const ResourceAmount* amount = cluster.resources.find(resource);
  if (!amount || amount->allocatable <= 0) return -1;
  int64_t used = amount->used;
  for (const auto& [name, request] : requests) {
    if (name == resource) used += request;
  }
  return std::clamp(static_cast<double>(used) / static_cast<double>(amount->allocatable), 0.0, 1.0);
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

int64_t LeastAllocated::score(CycleState& state, const SchedulingUnit&,
                              const ClusterInfo& cluster) const {
  double weighted = 0;
  int64_t weights = 0;
  for (const auto& r : resources_) {
    const double used = usedFraction(cluster, r.name, state.requests);
    weights += r.weight;
    if (used >= 0) weighted += (1.0 - used) * static_cast<double>(r.weight);  // absent scores 0
  }
  return weights == 0
             ? 0
             : static_cast<int64_t>(weighted * kMaxClusterScore / static_cast<double>(weights));
}

}  // namespace flotilla::scheduler
