#include "scheduler/scheduler.h"

#include <algorithm>
#include <map>

#include "api/validation.h"
#include "scheduler/extender/extender.h"

namespace flotilla::scheduler {

const char* ScheduleResult::reason() const {
  switch (outcome) {
    case Outcome::kScheduled:
      return "Success";
    case Outcome::kNoClusterFit:
      return "NoClusterFit";
    case Outcome::kUnschedulable:
      return "Unschedulable";
    case Outcome::kError:
      return "SchedulerError";
  }
  return "SchedulerError";
}

std::string noClusterFitMessage(const std::vector<FilterVerdict>& verdicts) {
  std::map<std::string, int> histogram;
  for (const auto& v : verdicts) {
    if (!v.plugin.empty()) ++histogram[v.reason];
  }
  std::vector<std::string> parts;
  parts.reserve(histogram.size());
  for (const auto& [reason, count] : histogram)
    parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(verdicts.size()) + " clusters are available";
  for (size_t i = 0; i < parts.size(); ++i) message += (i == 0 ? ": " : ", ") + parts[i];
  return message + ".";
}

std::string placementSummary(const ReplicaMap& placement) {
  std::string out;
  for (const auto& [cluster, n] : placement) {
    if (!out.empty()) out += ' ';
    out += cluster + "=" + std::to_string(n);
  }
  return out;
}

namespace {

std::vector<const api::FederatedCluster*> feasibleClusters(const ScheduleResult& result) {
  std::vector<const api::FederatedCluster*> out;
  out.reserve(result.feasible.size());
  for (const auto& sc : result.feasible) out.push_back(sc.cluster);
  return out;
}

// Filter extenders narrow `feasible` and record their verdicts; false when a non-ignorable one
// failed (the result then carries the error).
bool runFilterExtenders(ExtenderClient& extenders, const SchedulingUnit& unit,
                        ScheduleResult& result) {
  auto outcome = extenders.filter(unit, feasibleClusters(result));
  for (auto& w : outcome.warnings) result.warnings.push_back(std::move(w));
  if (!outcome.error.empty()) {
    result.outcome = ScheduleResult::Outcome::kError;
    result.message = std::move(outcome.error);
    return false;
  }
  if (outcome.rejected.empty()) return true;
  std::map<std::string_view, const FilterVerdict*> rejected;
  for (const auto& v : outcome.rejected) rejected.emplace(v.cluster, &v);
  for (auto& verdict : result.verdicts) {
    auto it = rejected.find(verdict.cluster);
    if (it == rejected.end() || !verdict.plugin.empty()) continue;
    verdict.plugin = it->second->plugin;
    verdict.reason = it->second->reason;
  }
  std::erase_if(result.feasible,
                [&](const ScoredCluster& sc) { return rejected.count(sc.name()) > 0; });
  return true;
}

void addExtenderScores(ExtenderClient& extenders, const SchedulingUnit& unit, bool explain,
                       ScheduleResult& result) {
  auto outcome = extenders.prioritize(unit, feasibleClusters(result));
  for (auto& w : outcome.warnings) result.warnings.push_back(std::move(w));
  for (auto& scores : outcome.scores) {
    const std::string_view plugin = result.extenderPlugins.emplace_back(std::move(scores.plugin));
    for (auto& sc : result.feasible) {
      auto it = scores.weighted.find(sc.name());
      const int64_t value = it == scores.weighted.end() ? 0 : it->second;
      sc.score += value;
      if (explain) sc.pluginScores.emplace_back(plugin, value);
    }
  }
}

}  // namespace

ScheduleResult scheduleUnit(const Profile& profile, const SchedulingUnit& unit,
                            const std::vector<api::FederatedCluster>& clusters,
                            const ScheduleOptions& options) {
  auto snapshot = std::make_shared<const ClusterSnapshot>(clusters);
  ScheduleResult result = scheduleUnit(profile, unit, *snapshot, options);
  result.ownedSnapshot = std::move(snapshot);
  return result;
}

ScheduleResult scheduleUnit(const Profile& profile, const SchedulingUnit& unit,
                            const ClusterSnapshot& snapshot, const ScheduleOptions& options) {
  ScheduleResult result;
  CycleState state;
  const auto& clusters = snapshot.clusters();
  state.current.assign(clusters.size(), 0);
  if (!unit.currentReplicas.empty()) {
    for (const auto& info : clusters) {
      auto it = unit.currentReplicas.find(info.name());
      if (it != unit.currentReplicas.end()) state.current[info.index] = it->second;
    }
  }
  state.requests = requestView(unit.resourceRequest);
  state.dividesByCapacity = unit.dividesByCapacity();
  for (const auto& plugin : profile.all) plugin->prepare(state, unit, snapshot);

  // Filter: every cluster gets a verdict; the first failing plugin is its reason.
  result.verdicts.reserve(clusters.size());
  for (const auto& cluster : clusters) {
    FilterVerdict verdict{cluster.name(), "", ""};
    for (const auto& f : profile.filter) {
      Status s = f->filter(state, unit, cluster);
      if (s.code == Status::Code::kError) {
        result.outcome = ScheduleResult::Outcome::kError;
        result.message = std::string(f->name()) + ": " + s.reason;
        return result;
      }
      if (!s.ok()) {
        verdict.plugin = std::string(f->name());
        verdict.reason = std::move(s.reason);
        break;
      }
    }
    if (verdict.plugin.empty()) result.feasible.push_back({cluster.cluster, &cluster, 0, {}});
    result.verdicts.push_back(std::move(verdict));
  }
  if (options.extenders && !result.feasible.empty() &&
      !runFilterExtenders(*options.extenders, unit, result))
    return result;
  if (result.feasible.empty()) {
    result.outcome = ScheduleResult::Outcome::kNoClusterFit;
    result.message = noClusterFitMessage(result.verdicts);
    return result;
  }

  // Score: each plugin scores every feasible cluster, normalizes, and is weighted.
  std::vector<int64_t> scores(result.feasible.size());
  for (const auto& [plugin, weight] : profile.score) {
    for (size_t i = 0; i < result.feasible.size(); ++i) {
      scores[i] = plugin->score(state, unit, *result.feasible[i].info);
    }
    plugin->normalize(state, unit, result.feasible, scores);
    for (size_t i = 0; i < result.feasible.size(); ++i) {
      const int64_t weighted = std::clamp<int64_t>(scores[i], 0, kMaxClusterScore) * weight;
      result.feasible[i].score += weighted;
      if (options.explain) result.feasible[i].pluginScores.emplace_back(plugin->name(), weighted);
    }
  }
  if (options.extenders) addExtenderScores(*options.extenders, unit, options.explain, result);
  std::sort(result.feasible.begin(), result.feasible.end(),
            [](const ScoredCluster& a, const ScoredCluster& b) {
              if (a.score != b.score) return a.score > b.score;
              return a.info->nameRank < b.info->nameRank;
            });

  // A select or replicas plugin that fails ends the cycle with its reason.
  auto failed = [&](Status status) {
    result.outcome = status.code == Status::Code::kError ? ScheduleResult::Outcome::kError
                                                         : ScheduleResult::Outcome::kUnschedulable;
    result.message = std::move(status.reason);
    return std::move(result);  // the cycle ends here: nothing reads `result` afterwards
  };

  // Select.
  std::vector<ScoredCluster> selected = result.feasible;
  for (const auto& s : profile.select) {
    if (Status status = s->select(state, unit, selected); !status.ok())
      return failed(std::move(status));
  }
  for (const auto& sc : selected) result.selected.push_back(sc.name());

  // Replicas.
  for (const auto& r : profile.replicas) {
    Status status = r->assign(state, unit, selected, result.assignment);
    if (!status.ok()) return failed(std::move(status));
  }
  result.placement = result.assignment.placement(unit.keepUnschedulableReplicas);
  if (unit.replicas == 0) {
    // Nothing to divide (a ConfigMap, a Service; a workload scaled to zero): the object goes to
    // every selected cluster, as Karmada places a resource without replicas
    // (docs/decisions.md, "Any kind, one pipeline").
    for (const auto& name : result.selected) result.placement[name] = 0;
  }
  if (unit.replicas > 0 && result.placement.empty()) {
    // Writing an empty result would delete the workload from every member (docs/design.md §4.6).
    result.outcome = ScheduleResult::Outcome::kUnschedulable;
    result.message = "no replica could be placed on the " + std::to_string(result.selected.size()) +
                     " selected cluster(s)";
  }
  return result;
}

SchedulingUnit unitFromBinding(const api::ResourceBinding& binding,
                               bool keepUnschedulableReplicas) {
  SchedulingUnit unit;
  const auto& spec = binding.spec;
  unit.key = spec.resource.namespace_ + "/" + spec.resource.name;
  // A FederatedDeployment is run by members as an apps/v1 Deployment.
  if (spec.resource.kind == "FederatedDeployment" || spec.resource.kind.empty()) {
    unit.apiVersion = "apps/v1";
    unit.kind = "Deployment";
  } else {
    unit.apiVersion = spec.resource.apiVersion;
    unit.kind = spec.resource.kind;
  }
  unit.replicas = spec.replicas;
  unit.resourceRequest = spec.replicaRequirements.resourceRequest;
  unit.placement = spec.placement;
  api::setDefaults(unit.placement);
  unit.priority = spec.priority;
  for (const auto& c : spec.clusters) unit.currentReplicas[c.name] = c.replicas;
  if (binding.status.autoMigration) {
    unit.estimatedCapacity = binding.status.autoMigration->estimatedCapacity;
  }
  unit.keepUnschedulableReplicas = keepUnschedulableReplicas;
  return unit;
}

}  // namespace flotilla::scheduler
