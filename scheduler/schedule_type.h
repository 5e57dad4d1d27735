// When to schedule a binding, and what to write afterwards (DESIGN §4.2; seed 000).
// Pure functions: the scheduler controller reads, calls these, and writes.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "api/time.h"
#include "scheduler/scheduler.h"

namespace flotilla::scheduler {

enum class ScheduleType { kNone, kFirst, kReconcile, kScale, kFailover, kMigration };
// "FirstSchedule", ... (status.lastScheduleType); "" for kNone.
const char* scheduleTypeName(ScheduleType type);

// What the last result was computed from. The controller keeps it in the binding's annotation
// `flotilla.io/schedule-record` (JSON), so restarts and unrelated updates never reschedule.
struct ScheduleRecord {
  int32_t replicas = 0;
  std::string placementHash;  // policy reference and generation + defaulted placement
  std::string estimatesHash;  // status.autoMigration.estimatedCapacity
  bool operator==(const ScheduleRecord&) const = default;
};
inline constexpr const char* kScheduleRecordAnnotation = "flotilla.io/schedule-record";

ScheduleRecord recordFor(const api::ResourceBinding& binding);
std::string encodeRecord(const ScheduleRecord& record);
std::optional<ScheduleRecord> decodeRecord(const std::string& text);

struct ScheduleDecision {
  ScheduleType type = ScheduleType::kNone;
  // Target clusters that are gone or NotReady for longer than the grace period; for a failover
  // they are removed from the current result before scheduling.
  std::vector<std::string> failedClusters;
  std::string reason;  // one line, for logs and events
};

// First: never scheduled (no record). Reconcile: placement or policy changed. Scale: replicas
// changed. Failover: a target cluster is deleted or NotReady past `clusterNotReadyFor`.
// Migration: auto-migration estimates changed. Otherwise none: status writes, the scheduler's own
// writes and operator restarts do not reschedule.
ScheduleDecision decideSchedule(const api::ResourceBinding& binding,
                                const std::optional<ScheduleRecord>& last,
                                const std::vector<api::FederatedCluster>& clusters,
                                api::Clock::time_point now,
                                std::chrono::nanoseconds clusterNotReadyFor);

// The binding as it should be after a scheduling attempt. On success spec.clusters becomes the
// new placement (sorted by name) and the record annotation is updated; on failure spec.clusters
// is left exactly as it was — a failed reschedule never empties a placement that still runs —
// and Scheduled=False explains why. Status: Scheduled condition, lastScheduledTime,
// lastScheduleType, placementSummary, schedulerObservedGeneration, diagnosis.
api::ResourceBinding applyScheduleResult(const api::ResourceBinding& binding,
                                         const ScheduleResult& result, ScheduleType type,
                                         api::Clock::time_point now);

}  // namespace flotilla::scheduler
