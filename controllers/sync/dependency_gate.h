// The leader side of docs/design.md §12 for both sync reconcilers: whether a workload may go to
// each of its clusters yet (its followers applied there first), and its DependenciesReady
// condition. Read from the caches on every pass; the decision is gateLeader (followers.h).
#pragma once

#include <functional>
#include <optional>
#include <string_view>

#include "api/time.h"
#include "controllers/common/object_key.h"
#include "controllers/dependencies/follower_index.h"
#include "controllers/sync/sync_status.h"

namespace flotilla::controllers::sync {

struct GateInputs {
  const dependencies::FollowerIndex* followers = nullptr;  // null: nothing follows
  const kube::SharedInformer* bindings = nullptr;          // the followers' bindings
  const kube::SharedInformer* clusterBindings = nullptr;   // a cluster-scoped follower's (CRD)
  // A follower's source on the host (null: gone, or its kind is not watched there).
  std::function<kube::ObjectPtr(const ObjectKey&)> sourceOf;
  // A leader whose binding is younger than this waits for a missing follower too (gateLeader's
  // waitForMissing); `now` is the wall clock.
  std::chrono::nanoseconds missingGrace = std::chrono::seconds(10);
  api::Clock::time_point now{};
};

// nullopt when the binding leads nothing (or following is off), or is placed nowhere with no
// copy anywhere. Status "Unknown" while the namespace's follower caches sync: clusters the leader
// is not on yet wait, and the condition stays as it is.
std::optional<dependencies::LeaderGate> gateOf(const boost::json::object& binding,
                                               const GateInputs& in);

// Whether a pass under this gate left replicas as they were because the follower caches are
// still syncing (Status "Unknown" with clusters whose replicas were kept: an HPA there is not
// known yet). Such a pass applied what it could but not the placement's replicas, so it is
// undecided: it writes no FullyApplied and looks again in a second. Without that, a scale that
// came while the operator restarted stayed unapplied on every member until something else
// brought the binding back (seen in the chaos suite).
bool replicasKeptUntilKnown(const std::optional<dependencies::LeaderGate>& gate);

// The message prefix of a cluster the gate holds a workload off (PendingCreate), and whether an
// outcome (ClusterOutcome, or object_sync's per-cluster state) is one: a wait, not a failure, so
// no Warning Event (DependenciesReady says why). Other PendingCreates (a CRD not served yet) are.
inline constexpr std::string_view kWaitingForDependencies = "waiting for its dependencies: ";
template <typename Outcome>
bool waitingForDependencies(const Outcome& o) {
  return o.propagation == propagation::kPendingCreate &&
         std::string_view(o.message).starts_with(kWaitingForDependencies);
}

// Whether a pass may leave the binding's status unwritten: the binding is new (younger than
// in.missingGrace), has no per-cluster status yet, and every cluster of the pass waits only for
// followers that exist on the host to be applied there (gate Pending). Nothing has happened yet,
// and a new binding without a status reads "not synced yet"; writing "waiting" first would cost
// every application a status write on its binding and on what aggregates it. The followers'
// bindings bring it back (followerAppliedChanged); after the grace the wait is written.
bool deferWaitingStatus(const boost::json::object& binding,
                        const std::optional<dependencies::LeaderGate>& gate,
                        const std::vector<ClusterOutcome>& outcomes, const GateInputs& in);

// The follower bindings' keys ("ns/name") a leader waits for, for the sync queue: each
// requirement's leader, when a follower's binding changes what it applied.
kube::MapFunc mapFollowerToLeaders();
kube::Predicate followerAppliedChanged();

}  // namespace flotilla::controllers::sync
