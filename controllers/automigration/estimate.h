// Auto-migration's decision (docs/design.md §5.7, §5.10; seed 003): from the pods a workload runs
// on each member, which clusters cannot run their share, as status.autoMigration.estimatedCapacity.
// A pure function on plain structs; the controller reads caches, calls it, and writes only the
// difference.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "api/time.h"

namespace flotilla::controllers::automigration {

// One pod of the newest ReplicaSet, not being deleted.
struct PodView {
  // PodScheduled=False with reason Unschedulable, since (that condition's lastTransitionTime).
  bool unschedulable = false;
  api::Clock::time_point since{};
};

struct ClusterView {
  std::string name;
  int64_t desired = 0;  // the binding's spec.clusters replicas for it (0: not targeted)
  // The member's pods are known (connected and listed). Unknown clusters keep their estimates
  // until the TTL: nothing says they can run more.
  bool observed = false;
  std::vector<PodView> pods;
  // What the cluster can run of this workload, from its reported resources
  // (scheduler::availableReplicas) plus this workload's own pods still waiting for a node: the
  // cluster reports those as allocating, and their leaving (the replicas moved away) must not read
  // as the cluster growing. nullopt when the cluster is not known.
  std::optional<int64_t> availableReplicas;
};

struct Settings {
  std::chrono::nanoseconds podUnschedulableFor = std::chrono::minutes(1);
  std::chrono::nanoseconds capacityTTL = std::chrono::minutes(5);
};

struct Decision {
  // The status.autoMigration to have (nullopt: none at all).
  std::optional<api::AutoMigrationStatus> status;
  // When something will change without any event: an unschedulable pod crossing the threshold,
  // an estimate's TTL running out.
  std::optional<std::chrono::nanoseconds> requeueAfter;
};

// For each cluster:
// - unschedulable = pods Unschedulable for at least podUnschedulableFor. When > 0, the estimate
//   is max(desired, pods) - unschedulable, written only when it is below `desired` (the cluster
//   is short of its count); its time and the cluster's available replicas are remembered.
// - Otherwise an existing estimate stays in force (its pending pods are gone because replicas
//   moved away, not because the cluster grew). When the cluster's available replicas exceed those
//   remembered it is raised by the difference (and the new value remembered); when capacityTTL
//   has passed it is lifted and the scheduler probes upward.
// Estimates of clusters that left the fleet are dropped. updatedAt changes only with the
// estimates; nothing else moves when nothing changed.
Decision decide(const std::optional<api::AutoMigrationStatus>& previous,
                const std::vector<ClusterView>& clusters, const Settings& settings,
                api::Clock::time_point now);

}  // namespace flotilla::controllers::automigration
