#include "controllers/scheduler/triggers.h"

#include "api/conditions.h"
#include "api/unstructured.h"
#include "scheduler/schedule_type.h"

namespace flotilla::controllers::scheduler {

namespace fs = flotilla::scheduler;

namespace {

std::string readyStatus(const api::FederatedCluster& c) {
  const auto* ready = api::findCondition(c.status.conditions, "Ready");
  return ready ? ready->status : "";
}

std::vector<api::Taint> noExecute(const std::vector<api::Taint>& taints) {
  std::vector<api::Taint> out;
  for (const auto& t : taints)
    if (t.effect == api::taint_effect::kNoExecute) out.push_back({t.key, t.value, t.effect, ""});
  return out;
}

}  // namespace

bool schedulingInputsChanged(const api::ResourceBinding& before,
                             const api::ResourceBinding& after) {
  if (after.metadata.deletionTimestamp) return false;
  return fs::recordFor(before) != fs::recordFor(after);
}

bool schedulingInputsMayDiffer(const boost::json::object& before,
                               const boost::json::object& after) {
  namespace u = api::unstructured;
  if (u::intAt(before, {"metadata", "generation"}) != u::intAt(after, {"metadata", "generation"}))
    return true;
  const auto* a = u::find(before, {"status", "autoMigration"});
  const auto* b = u::find(after, {"status", "autoMigration"});
  if ((a == nullptr) != (b == nullptr)) return true;
  return a && *a != *b;
}

bool observedGenerationLeftBehind(const api::ResourceBinding& before,
                                  const api::ResourceBinding& after) {
  if (after.metadata.deletionTimestamp || after.spec.policy.name.empty()) return false;
  return before.metadata.generation != after.metadata.generation &&
         before.spec.clusters == after.spec.clusters &&
         after.status.schedulerObservedGeneration < after.metadata.generation;
}

bool clusterChangeMatters(const api::FederatedCluster& before, const api::FederatedCluster& after) {
  if (before.metadata.labels != after.metadata.labels) return true;
  if (before.spec.taints != after.spec.taints) return true;
  if (before.spec.region != after.spec.region || before.spec.zone != after.spec.zone ||
      before.spec.provider != after.spec.provider)
    return true;
  if (readyStatus(before) != readyStatus(after)) return true;
  const auto& a = before.status.apiEnablements;
  const auto& b = after.status.apiEnablements;
  if (a.size() != b.size()) return true;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].groupVersion != b[i].groupVersion || a[i].resources.size() != b[i].resources.size())
      return true;
    for (size_t j = 0; j < a[i].resources.size(); ++j) {
      if (a[i].resources[j].name != b[i].resources[j].name ||
          a[i].resources[j].kind != b[i].resources[j].kind)
        return true;
    }
  }
  const auto& r = before.status.resources;
  const auto& s = after.status.resources;
  return r.allocatable != s.allocatable || r.available != s.available;
}

bool placedBindingsAffected(const api::FederatedCluster& before,
                            const api::FederatedCluster& after) {
  return readyStatus(before) != readyStatus(after) ||
         noExecute(before.spec.taints) != noExecute(after.spec.taints) ||
         before.metadata.deletionTimestamp.has_value() !=
             after.metadata.deletionTimestamp.has_value();
}

}  // namespace flotilla::controllers::scheduler
