// Make-before-break moves (docs/design.md §5.8; issue #14): when replicas move from a live cluster
// to another (auto-migration, failback, reweighting), the clusters that gain replicas are scaled up
// at once, and those that lose them only as the workload's available replicas allow, so the sum of
// available replicas over the members never drops below what the new placement asks (or what there
// was). A pure decision: the sync controller feeds it the member Deployments it has cached and
// applies the result.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flotilla::controllers::sync {

struct MoveCluster {
  std::string name;
  int32_t desired = 0;          // the binding's spec.clusters (0: not targeted)
  std::optional<int32_t> live;  // the member Deployment's spec.replicas; nullopt: none there
  int32_t available = 0;        // its status.availableReplicas
  // Ready and connected: its numbers can be trusted and it can be written. An unreachable
  // cluster's replicas count as unavailable and are never held (a move away from a cluster that
  // is gone is a failover: nothing there can be waited for).
  bool reachable = true;
};

struct MovePlan {
  // Replicas to apply on each cluster given: the desired count, or more on a cluster that is
  // losing replicas and must hold them a while (0 on a cluster not targeted: remove it).
  std::map<std::string, int32_t> replicas;
  std::map<std::string, int32_t> held;  // clusters kept above their desired count
  bool moving() const { return !held.empty(); }
};

// Scale-ups at once. A cluster losing replicas first gives up those that are not available (a
// pending pod costs nothing), then available ones only while the available replicas of the
// others cover the placement: kept = what exceeds the desired total, taken from clusters in name
// order. `timedOut` (--graceful-move-timeout since the placement was written) applies the
// desired counts as they are.
MovePlan planMove(const std::vector<MoveCluster>& clusters, bool timedOut);

// "member2 holds 3 (target 2)": for the binding's FullyApplied=False/MoveInProgress message.
std::string describeHeld(const MovePlan& plan, const std::vector<MoveCluster>& clusters);

}  // namespace flotilla::controllers::sync
