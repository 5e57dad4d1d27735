#include "controllers/sync/sync_status.h"

#include <algorithm>
#include <map>

#include "api/conditions.h"

namespace flotilla::controllers::sync {

api::ResourceBindingStatus syncStatus(const api::ResourceBinding& binding,
                                      const std::vector<ClusterOutcome>& outcomes,
                                      const std::string& now, const std::string& moving,
                                      bool keepUnobserved) {
  api::ResourceBindingStatus status = binding.status;
  std::map<std::string, api::AggregatedStatusItem> previous;
  for (const auto& item : status.aggregatedStatus) previous[item.clusterName] = item;

  std::vector<api::AggregatedStatusItem> items;
  std::string problems;
  bool onlyWaiting = true;  // every problem is a cluster waiting (PendingCreate), none failed
  bool anyTarget = false;
  for (const auto& o : outcomes) {
    anyTarget = anyTarget || o.target;
    const bool ok = o.propagation == propagation::kOK;
    if (!ok) {
      onlyWaiting = onlyWaiting && o.propagation == propagation::kPendingCreate;
      if (!problems.empty()) problems += "; ";
      problems += o.cluster + ": " + o.propagation + (o.message.empty() ? "" : ": " + o.message);
    }
    if (!o.target && ok && !o.held) continue;  // removed cleanly: no entry
    api::AggregatedStatusItem item;
    if (auto it = previous.find(o.cluster); it != previous.end()) item = it->second;
    item.clusterName = o.cluster;
    item.applied = ok && o.target;
    item.propagation = o.propagation;
    item.message = ok ? (o.held ? o.message : o.note) : o.message;
    if (!o.health.empty()) item.health = o.health;
    if (item.health.empty()) item.health = "Unknown";
    items.push_back(std::move(item));
  }
  if (keepUnobserved) {
    for (const auto& [cluster, item] : previous) {
      const bool observed =
          std::any_of(outcomes.begin(), outcomes.end(),
                      [&](const ClusterOutcome& o) { return o.cluster == cluster; });
      if (!observed) items.push_back(item);
    }
  }
  std::sort(items.begin(), items.end(),
            [](const auto& a, const auto& b) { return a.clusterName < b.clusterName; });
  status.aggregatedStatus = std::move(items);
  if (anyTarget || !problems.empty()) {
    const int64_t generation = binding.metadata.generation;
    if (problems.empty() && !moving.empty()) {
      api::setCondition(status.conditions, "FullyApplied", "False", kMoveInProgress,
                        "moving replicas: " + moving, generation, now);
    } else if (problems.empty()) {
      api::setCondition(status.conditions, "FullyApplied", "True", "FullyAppliedSuccess",
                        "the current template and replicas are applied on every target cluster",
                        generation, now);
    } else {
      api::setCondition(status.conditions, "FullyApplied", "False",
                        onlyWaiting ? kFullyAppliedPending : "FullyAppliedFailed", problems,
                        generation, now);
    }
  }
  return status;
}

bool fullyApplied(const boost::json::object& binding) {
  const auto* status = binding.if_contains("status");
  const auto* conditions =
      status && status->is_object() ? status->as_object().if_contains("conditions") : nullptr;
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    const auto* type = c.as_object().if_contains("type");
    const auto* value = c.as_object().if_contains("status");
    if (type && *type == "FullyApplied") return value && *value == "True";
  }
  return false;
}

}  // namespace flotilla::controllers::sync
