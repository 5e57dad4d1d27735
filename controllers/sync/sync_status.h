// The ResourceBinding status the sync controller writes: per target cluster whether the current
// template and replica count are applied (aggregatedStatus[].applied, propagation, message), and
// the FullyApplied condition. Fields the status controller owns (health, replicas,
// readyReplicas) are kept as they are.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "api/flotilla_types.h"

namespace flotilla::controllers::sync {

namespace propagation {
inline constexpr const char* kOK = "OK";
inline constexpr const char* kPendingCreate = "PendingCreate";
inline constexpr const char* kCreationFailed = "CreationFailed";
inline constexpr const char* kUpdateFailed = "UpdateFailed";
inline constexpr const char* kDeletionFailed = "DeletionFailed";
inline constexpr const char* kClusterNotReady = "ClusterNotReady";
inline constexpr const char* kConflict = "Conflict";
}  // namespace propagation

// Not a propagation state: the outcome is not known yet (no connection to the member yet), and
// nothing is written; the reconcile is retried.
inline constexpr const char* kUndecided = "Undecided";

struct ClusterOutcome {
  std::string cluster;
  std::string propagation;  // one of propagation::k*
  std::string message;
  bool target = true;  // false: an object being removed from a cluster no longer targeted
  // Not a target any more, but a make-before-break move still holds replicas there: it keeps an
  // entry (applied false) so that what follows the workload stays there too (docs/design.md §12).
  bool held = false;
  // The copy's health there, for a kind whose workloads wait until it is healthy (a CRD:
  // Interpreter::followersWaitUntilHealthy); empty: not recorded (the entry keeps its own).
  std::string health;
  // Applied, with something the user should know (a StatefulSet's ordinals a member cannot
  // take: Interpreter::reviseReplicas): the entry's message.
  std::string note;
};

// The status after a sync pass. Entries: one per target cluster (sorted by name), plus
// non-targets whose removal failed. FullyApplied is True/FullyAppliedSuccess when every target is
// OK and nothing failed to be removed, else False/FullyAppliedFailed with one "cluster:
// Propagation: message" part per problem. Nothing is said while the binding has no targets.
// When everything applied but a make-before-break move still holds replicas on clusters losing
// them (`moving`: describeHeld), FullyApplied is False/MoveInProgress, "moving replicas: <moving>".
// When every problem is a cluster still waiting (PendingCreate: its dependencies, a CRD not
// established yet) and none failed, the reason is Pending: nothing is wrong yet.
inline constexpr const char* kMoveInProgress = "MoveInProgress";
inline constexpr const char* kFullyAppliedPending = "Pending";
// `keepUnobserved`: the pass looked only at the targets (the placement is not current yet, so
// nothing elsewhere was observed): entries of other clusters stay as they were. Dropping them
// would say no copy is there while one still runs (what follows the workload would leave first).
api::ResourceBindingStatus syncStatus(const api::ResourceBinding& binding,
                                      const std::vector<ClusterOutcome>& outcomes,
                                      const std::string& now, const std::string& moving = "",
                                      bool keepUnobserved = false);
// Whether the binding object's FullyApplied condition is True (false while a move is in
// progress, or a cluster failed).
bool fullyApplied(const boost::json::object& binding);

}  // namespace flotilla::controllers::sync
