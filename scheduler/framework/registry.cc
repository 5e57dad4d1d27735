#include "scheduler/framework/registry.h"

#include <algorithm>

#include "api/enums.h"
#include "scheduler/plugins/api_enablement/api_enablement.h"
#include "scheduler/plugins/balanced_allocation/balanced_allocation.h"
#include "scheduler/plugins/cluster_affinity/cluster_affinity.h"
#include "scheduler/plugins/cluster_ready/cluster_ready.h"
#include "scheduler/plugins/divided/divided.h"
#include "scheduler/plugins/duplicated/duplicated.h"
#include "scheduler/plugins/least_allocated/least_allocated.h"
#include "scheduler/plugins/locality/locality.h"
#include "scheduler/plugins/max_clusters/max_clusters.h"
#include "scheduler/plugins/resources_fit/resources_fit.h"
#include "scheduler/plugins/spread_constraint/spread_constraint.h"
#include "scheduler/plugins/taint_toleration/taint_toleration.h"
#include "scheduler/plugins/topology_spread/topology_spread.h"

namespace flotilla::scheduler {
namespace {

template <class T>
PluginFactory simple() {
  return [](const boost::json::value&) -> api::Result<std::shared_ptr<Plugin>> {
    return std::shared_ptr<Plugin>(std::make_shared<T>());
  };
}

struct PointNames {
  const char* point;
  std::vector<std::string> defaults;
};

std::vector<std::string> names(auto list) { return {list.begin(), list.end()}; }

}  // namespace

const std::map<std::string, PluginFactory>& pluginRegistry() {
  static const std::map<std::string, PluginFactory> registry = {
      {ClusterReady::kName, simple<ClusterReady>()},
      {TaintToleration::kName, simple<TaintToleration>()},
      {ClusterAffinity::kName, simple<ClusterAffinity>()},
      {APIEnablement::kName, simple<APIEnablement>()},
      {SpreadConstraint::kName, simple<SpreadConstraint>()},
      {ResourcesFit::kName, simple<ResourcesFit>()},
      {LeastAllocated::kName, LeastAllocated::factory},
      {BalancedAllocation::kName, simple<BalancedAllocation>()},
      {Locality::kName, simple<Locality>()},
      {TopologySpread::kName, simple<TopologySpread>()},
      {MaxClusters::kName, simple<MaxClusters>()},
      {Duplicated::kName, simple<Duplicated>()},
      {Divided::kName, simple<Divided>()},
  };
  return registry;
}

api::Result<Profile> buildProfile(const api::SchedulingProfile& spec) {
  // One instance per plugin name, shared by every point it is enabled at.
  std::map<std::string, std::shared_ptr<Plugin>> instances;
  std::map<std::string, const boost::json::value*> args;
  for (const auto& c : spec.spec.pluginConfig) args[c.name] = &c.args;
  static const boost::json::value kNoArgs;
  auto instance = [&](const std::string& name,
                      const std::string& field) -> api::Result<std::shared_ptr<Plugin>> {
    if (auto it = instances.find(name); it != instances.end()) return it->second;
    auto factory = pluginRegistry().find(name);
    if (factory == pluginRegistry().end()) {
      return api::invalid("unknown plugin",
                          {{field, "Unsupported value: \"" + name + "\": unknown plugin"}});
    }
    auto a = args.find(name);
    auto created = factory->second(a == args.end() ? kNoArgs : *a->second);
    if (!created) {
      return api::invalid("invalid plugin args",
                          {{"spec.pluginConfig", name + ": " + created.error().message}});
    }
    instances[name] = *created;
    return *created;
  };

  // Resolve the ordered (name, weight) list of one extension point.
  auto resolve =
      [](const api::PluginSet& set, const std::vector<std::string>& defaults,
         const std::string& path) -> api::Result<std::vector<std::pair<std::string, int64_t>>> {
    std::vector<std::pair<std::string, int64_t>> out;
    const bool disableAll = std::any_of(set.disabled.begin(), set.disabled.end(),
                                        [](const api::PluginRef& p) { return p.name == "*"; });
    if (!disableAll) {
      for (const auto& name : defaults) {
        const bool disabled = std::any_of(set.disabled.begin(), set.disabled.end(),
                                          [&](const api::PluginRef& p) { return p.name == name; });
        if (!disabled) out.emplace_back(name, 1);
      }
    }
    for (size_t i = 0; i < set.enabled.size(); ++i) {
      const auto& ref = set.enabled[i];
      const int64_t weight = ref.weight.value_or(1);
      if (weight < 1) {
        return api::invalid("invalid weight", {{path + ".enabled[" + std::to_string(i) + "].weight",
                                                "Invalid value: " + std::to_string(weight) +
                                                    ": must be greater than or equal to 1"}});
      }
      auto it =
          std::find_if(out.begin(), out.end(), [&](const auto& p) { return p.first == ref.name; });
      if (it != out.end()) {
        it->second = weight;
      } else {
        out.emplace_back(ref.name, weight);
      }
    }
    return out;
  };

  Profile profile;
  profile.name = spec.metadata.name.empty() ? "default" : spec.metadata.name;
  const auto& p = spec.spec.plugins;
  auto notAt = [](const std::string& field, const std::string& name, const char* point) {
    return api::invalid("plugin does not implement " + std::string(point),
                        {{field, "plugin \"" + name + "\" is not a " + point + " plugin"}});
  };

  // One extension point: resolve its names, instantiate, and check each plugin implements it.
  auto addPoint = [&]<class Interface>(const api::PluginSet& set, const auto& defaults,
                                       const std::string& path, const char* point,
                                       auto&& add) -> std::optional<api::Error> {
    auto resolved = resolve(set, names(defaults), path);
    if (!resolved) return resolved.error();
    for (const auto& [name, weight] : *resolved) {
      auto plugin = instance(name, path);
      if (!plugin) return plugin.error();
      auto typed = std::dynamic_pointer_cast<const Interface>(*plugin);
      if (!typed) return notAt(path, name, point);
      add(std::move(typed), weight);
    }
    return std::nullopt;
  };
  std::optional<api::Error> error = addPoint.template operator()<FilterPlugin>(
      p.filter, api::enums::kFilterPlugins, "spec.plugins.filter", "filter",
      [&](auto plugin, int64_t) { profile.filter.push_back(std::move(plugin)); });
  if (!error) {
    error = addPoint.template operator()<ScorePlugin>(
        p.score, api::enums::kScorePlugins, "spec.plugins.score", "score",
        [&](auto plugin, int64_t weight) {
          profile.score.push_back({std::move(plugin), weight});
        });
  }
  if (!error) {
    error = addPoint.template operator()<SelectPlugin>(
        p.select, api::enums::kSelectPlugins, "spec.plugins.select", "select",
        [&](auto plugin, int64_t) { profile.select.push_back(std::move(plugin)); });
  }
  if (!error) {
    error = addPoint.template operator()<ReplicasPlugin>(
        p.replicas, api::enums::kReplicasPlugins, "spec.plugins.replicas", "replicas",
        [&](auto plugin, int64_t) { profile.replicas.push_back(std::move(plugin)); });
  }
  if (error) return *error;
  for (auto& [name, plugin] : instances) profile.all.push_back(plugin);
  return profile;
}

api::Result<Profile> defaultProfile() { return buildProfile(api::SchedulingProfile{}); }

}  // namespace flotilla::scheduler
