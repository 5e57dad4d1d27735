// The single plugin registry and scheduling profiles (docs/design.md §3.5, §4.3; seed 004).
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/result.h"
#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {

// Creates a plugin from its pluginConfig args (null when the profile gives none).
using PluginFactory =
    std::function<api::Result<std::shared_ptr<Plugin>>(const boost::json::value& args)>;

// Every in-tree plugin by name. One registry, built once; profiles instantiate from it.
const std::map<std::string, PluginFactory>& pluginRegistry();

struct WeightedScorePlugin {
  std::shared_ptr<const ScorePlugin> plugin;
  int64_t weight = 1;
};

// The plugins of one profile at each extension point, in order.
struct Profile {
  std::string name;
  std::vector<std::shared_ptr<const FilterPlugin>> filter;
  std::vector<WeightedScorePlugin> score;
  std::vector<std::shared_ptr<const SelectPlugin>> select;
  std::vector<std::shared_ptr<const ReplicasPlugin>> replicas;
  std::vector<std::shared_ptr<Plugin>> all;  // each distinct plugin once (for prepare())
};

// The default profile: every in-tree plugin, score weights 1.
api::Result<Profile> defaultProfile();

// A profile from a SchedulingProfile: defaults, minus `disabled` ("*" = all defaults of that
// point), plus `enabled` (appended, or re-weighted when already a default). Unknown names, plugins
// that do not implement the point, and score weights below 1 are errors naming the field.
api::Result<Profile> buildProfile(const api::SchedulingProfile& spec);

}  // namespace flotilla::scheduler
