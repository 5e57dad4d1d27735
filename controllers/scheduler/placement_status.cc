#include "controllers/scheduler/placement_status.h"

#include "api/conditions.h"
#include "scheduler/scheduler.h"

namespace flotilla::controllers::scheduler {

namespace fs = flotilla::scheduler;
using namespace std::chrono;

std::optional<api::ResourceBindingStatus> repairedStatus(
    const api::ResourceBinding& rb, const std::optional<fs::ScheduleRecord>& last,
    api::Clock::time_point now) {
  const auto* scheduled = api::findCondition(rb.status.conditions, "Scheduled");
  const bool described = scheduled && scheduled->status == "True" &&
                         rb.status.schedulerObservedGeneration >= rb.metadata.generation;
  if (rb.spec.clusters.empty() || described) return std::nullopt;
  api::ResourceBindingStatus repaired = rb.status;
  fs::ReplicaMap placed;
  for (const auto& c : rb.spec.clusters) placed[c.name] = c.replicas;
  repaired.placementSummary = fs::placementSummary(placed);
  // A placement written without its status is as new as now. A spec change that left the
  // placement as the status describes it (a follower's spec.requiredBy: docs/design.md §12) is
  // not a new placement.
  const bool samePlacement = rb.status.placementSummary == repaired.placementSummary;
  if (repaired.lastScheduledTime.empty() ||
      (rb.status.schedulerObservedGeneration < rb.metadata.generation && !samePlacement)) {
    repaired.lastScheduledTime = api::formatRfc3339(now);
    if (last && !last->type.empty()) repaired.lastScheduleType = last->type;
  }
  repaired.schedulerObservedGeneration = rb.metadata.generation;
  api::setCondition(repaired.conditions, "Scheduled", "True", "Success", "", rb.metadata.generation,
                    api::formatRfc3339(now));
  return repaired;
}

std::optional<api::ResourceBindingStatus> firstPlacementStatus(const api::ResourceBinding& rb,
                                                               api::Clock::time_point now) {
  if (rb.spec.clusters.empty() || api::findCondition(rb.status.conditions, "Scheduled"))
    return std::nullopt;
  const auto it = rb.metadata.annotations.find(fs::kScheduleRecordAnnotation);
  if (it == rb.metadata.annotations.end()) return std::nullopt;
  const auto record = fs::decodeRecord(it->second);
  if (!record) return std::nullopt;
  // The decision must be for what the binding asks now: a scale or policy change since (a new
  // generation the scheduler has not looked at) is the scheduler's to describe.
  const auto asked = fs::recordFor(rb);
  if (asked.replicas != record->replicas || asked.placementHash != record->placementHash)
    return std::nullopt;
  return repairedStatus(rb, record, now);
}

bool carryFirstPlacement(const api::ResourceBinding& rb, api::Clock::time_point now,
                         api::ResourceBindingStatus& into) {
  const auto placed = firstPlacementStatus(rb, now);
  if (placed) mergeSchedulerStatus(into, *placed);
  return placed.has_value();
}

void mergeSchedulerStatus(api::ResourceBindingStatus& into,
                          const api::ResourceBindingStatus& scheduler) {
  into.schedulerObservedGeneration = scheduler.schedulerObservedGeneration;
  into.lastScheduledTime = scheduler.lastScheduledTime;
  into.lastScheduleType = scheduler.lastScheduleType;
  into.placementSummary = scheduler.placementSummary;
  into.diagnosis = scheduler.diagnosis;
  if (const auto* c = api::findCondition(scheduler.conditions, "Scheduled")) {
    bool found = false;
    for (auto& existing : into.conditions) {
      if (existing.type == "Scheduled") {
        existing = *c;
        found = true;
      }
    }
    if (!found) into.conditions.push_back(*c);
  }
}

std::optional<nanoseconds> graceLeft(const api::ResourceBinding& rb,
                                     const std::vector<api::FederatedCluster>& fleet,
                                     nanoseconds notReadyFor, api::Clock::time_point now) {
  std::optional<nanoseconds> soonest;
  for (const auto& target : rb.spec.clusters) {
    for (const auto& c : fleet) {
      if (c.metadata.name != target.name) continue;
      const auto* ready = api::findCondition(c.status.conditions, "Ready");
      if (!ready || ready->status == "True") break;
      const auto since = api::parseRfc3339(ready->lastTransitionTime);
      if (!since) break;
      const auto left = duration_cast<nanoseconds>(notReadyFor - (now - *since));
      if (left > nanoseconds(0) && (!soonest || left < *soonest)) soonest = left;
    }
  }
  return soonest;
}

}  // namespace flotilla::controllers::scheduler
