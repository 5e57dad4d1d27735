#pragma once

#include "api/result.h"
#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Score: prefers clusters with the most free capacity after one more replica, per resource
// (allocatable - allocated - allocating - request) / allocatable * 100, averaged with weights.
// pluginConfig args: {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight":
// 1}]}.
class LeastAllocated final : public ScorePlugin {
 public:
  static constexpr const char* kName = "LeastAllocated";
  struct Resource {
    std::string name;
    int64_t weight = 1;
  };
  explicit LeastAllocated(std::vector<Resource> resources = {{"cpu", 1}, {"memory", 1}})
      : resources_(std::move(resources)) {}
  static api::Result<std::shared_ptr<Plugin>> factory(const boost::json::value& args);

  std::string_view name() const override { return kName; }
  int64_t score(CycleState& state, const SchedulingUnit& unit,
                const ClusterInfo& cluster) const override;

 private:
  std::vector<Resource> resources_;
};

// Fraction of `resource` in use after one more replica (0..1); negative when the cluster does not
// offer the resource.
double usedFraction(const ClusterInfo& cluster, std::string_view resource,
                    const RequestView& requests);

}  // namespace flotilla::scheduler
