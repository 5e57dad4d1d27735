// When to schedule a binding, and what to write afterwards (docs/design.md §4.2; seed 000).
// Pure functions: the scheduler controller reads, calls these, and writes.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
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
  // status.autoMigration.estimatedCapacity, as values: a lifted or raised estimate (the cluster
  // can run more again) is told apart from a lowered one.
  std::map<std::string, int64_t> estimates;
  // Clusters whose replicas a FailoverSchedule moved away and that have not been failed back:
  // when one is Ready again, failback (policy failover.failback: Rebalance) moves replicas back.
  // Not derived from the binding (recordFor leaves it empty): carried from record to record.
  std::vector<std::string> failedOver;
  // The schedule that wrote this record ("ScaleSchedule"): when the placement was written but its
  // status write was lost (an API error, a kill in between), the status repaired later still
  // names the schedule that placed it. Not derived from the binding (recordFor leaves it empty).
  std::string type;
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
  // Plan toward the weighted desired distribution instead of keeping the current one
  // (avoidDisruption alone never moves replicas back while the total is unchanged): set when an
  // auto-migration estimate was lifted or raised, and for failback. The moves this causes are
  // carried out make-before-break by the sync controller. Set with any schedule type when a
  // failback is due or an estimate was lifted, so a scale at the same moment does not lose them.
  bool rebalance = false;
  // The record's failedOver list after this decision's result is written.
  std::vector<std::string> failedOver;
  std::string reason;  // one line, for logs and events
};

struct FailoverPolicy {
  std::chrono::nanoseconds clusterNotReadyFor = std::chrono::seconds(60);
  bool failbackRebalance = true;  // failover.failback: Rebalance (the default) or Never
  // Clusters whose copy has finished its work (a Job's part that completed): a failed one keeps
  // its replicas, so a failover does not run that work again elsewhere (docs/operator.md "Kinds
  // and their replicas").
  std::set<std::string> finished;
};

// First: never scheduled (no record). Reconcile: placement or policy changed. Scale: replicas
// changed. Failover: a target cluster is deleted or NotReady past `clusterNotReadyFor`, or
// (failback, with rebalance) a cluster failed away from is Ready again. Migration: auto-migration
// estimates changed (rebalance when one was lifted or raised). Otherwise none: status writes, the
// scheduler's own writes and operator restarts do not reschedule.
ScheduleDecision decideSchedule(const api::ResourceBinding& binding,
                                const std::optional<ScheduleRecord>& last,
                                const std::vector<api::FederatedCluster>& clusters,
                                api::Clock::time_point now, const FailoverPolicy& failover);

// The binding as it should be after a scheduling attempt. On success spec.clusters becomes the
// new placement (sorted by name) and the record annotation is updated; on failure spec.clusters
// is left exactly as it was — a failed reschedule never empties a placement that still runs —
// and Scheduled=False explains why. Status: Scheduled condition, lastScheduledTime,
// lastScheduleType, placementSummary, schedulerObservedGeneration, diagnosis.
api::ResourceBinding applyScheduleResult(const api::ResourceBinding& binding,
                                         const ScheduleResult& result,
                                         const ScheduleDecision& decision,
                                         api::Clock::time_point now);

}  // namespace flotilla::scheduler
