// One scheduling cycle: filter -> score (+normalize) -> select -> replicas (docs/design.md §4.3).
// A pure function of the profile, the unit and a snapshot of the clusters: no I/O, so the
// controller, `flotillactl schedule` and the benchmarks all run exactly this.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "scheduler/framework/registry.h"

namespace flotilla::scheduler {

class ExtenderClient;

struct ScheduleOptions {
  bool explain = false;  // keep every plugin's weighted score per cluster (CLI, diagnosis)
  // Scheduler extenders (seed 004): filter after the in-tree filters, prioritize added to the
  // in-tree scores. Null: none. The only part of a cycle that may do I/O.
  ExtenderClient* extenders = nullptr;
};

struct ScheduleResult {
  enum class Outcome { kScheduled, kNoClusterFit, kUnschedulable, kError };
  Outcome outcome = Outcome::kScheduled;
  std::string message;                  // for the Scheduled=False condition
  std::vector<FilterVerdict> verdicts;  // every cluster, input order; plugin empty = feasible
  std::vector<ScoredCluster> feasible;  // scored, best first
  std::vector<std::string> selected;    // after the select stage, best first
  PlannerResult assignment;             // plan and overflow
  ReplicaMap placement;                 // what to write to spec.clusters (zeros dropped)
  std::vector<std::string> warnings;    // ignorable extender failures that were skipped
  // Names of extender score entries: pluginScores hold string_views into it (a deque never moves
  // its elements, so the views survive moving the result).
  std::deque<std::string> extenderPlugins;
  // `feasible` points into the snapshot; when scheduleUnit built the snapshot itself, the result
  // owns it so those pointers stay valid.
  std::shared_ptr<const ClusterSnapshot> ownedSnapshot;

  bool ok() const { return outcome == Outcome::kScheduled; }
  // The Scheduled condition's reason: Success, NoClusterFit, Unschedulable or SchedulerError.
  const char* reason() const;
};

ScheduleResult scheduleUnit(const Profile& profile, const SchedulingUnit& unit,
                            const ClusterSnapshot& snapshot, const ScheduleOptions& options = {});
// Convenience for one-off use (tests, CLI): builds the snapshot first.
ScheduleResult scheduleUnit(const Profile& profile, const SchedulingUnit& unit,
                            const std::vector<api::FederatedCluster>& clusters,
                            const ScheduleOptions& options = {});

// kube-scheduler style: "0/5 clusters are available: 2 cluster(s) had untolerated taint
// {k=v:NoSchedule}, 3 cluster(s) were not ready." (reasons sorted, counted).
std::string noClusterFitMessage(const std::vector<FilterVerdict>& verdicts);

// "member1=1 member2=3 member3=2": status.placementSummary and the PLACEMENT column.
std::string placementSummary(const ReplicaMap& placement);

// The scheduler's view of a binding: workload key, replicas, requests, defaulted placement,
// current result and auto-migration estimates.
SchedulingUnit unitFromBinding(const api::ResourceBinding& binding, bool keepUnschedulableReplicas);

}  // namespace flotilla::scheduler
