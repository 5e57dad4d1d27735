// The fleet-level decisions of one sync pass (docs/design.md §5.5): which clusters get the object
// and with how many replicas, which are left alone, which lose it, and when the binding is looked
// at again. Pure functions on plain structs, tested by tables (sync_plan_test.cc). Both sync
// reconcilers — Deployments (sync_controller.cc) and every other kind (object_sync.cc) — gather
// the observations from their caches, call these, and do only the I/O the plan names.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "api/time.h"
#include "controllers/sync/move.h"

namespace flotilla::controllers::sync {

// The scheduler's status describes the binding's current spec (Scheduled=True for its
// generation, and some cluster placed): only such a placement says where the object must not be.
// An unscheduled or just recreated binding never tears members down.
bool placementCurrent(const api::ResourceBinding& rb);

// How long a make-before-break move may still hold replicas, timed from when the placement in
// force was written (status.lastScheduledTime). nullopt while the scheduler's status does not
// describe this spec yet (nothing is given up early); zero or less once `timeout` has passed, or
// when the time cannot be read (a move never holds replicas for ever).
std::optional<std::chrono::nanoseconds> moveTimeLeft(const api::ResourceBinding& rb,
                                                     std::chrono::nanoseconds timeout,
                                                     api::Clock::time_point now);

// One cluster as the reconciler's caches see it.
struct ClusterObservation {
  std::string name;
  bool connected = false;  // a member connection whose caches have synced
  bool ready = false;      // its FederatedCluster is Ready and not leaving the fleet
  // Something of this binding may be there. False only when a following cache says nothing is
  // (a connection that has not synced knows nothing, so it "may").
  bool holds = true;
  // Kinds whose replicas move make-before-break: the copy's replicas there now (nullopt: none
  // of ours) and how many of them are available.
  std::optional<int32_t> liveReplicas;
  int32_t available = 0;
};

struct SyncPlanInput {
  std::vector<api::TargetCluster> targets;  // the binding's spec.clusters, in its order
  bool placementCurrent = false;
  std::optional<std::chrono::nanoseconds> moveLeft;  // moveTimeLeft()
  // The kind's replicas move make-before-break (planMove): a cluster losing replicas keeps them
  // while the others' available replicas do not cover the placement.
  bool makeBeforeBreak = false;
  // Every target, and every cluster of the fleet the operator is connected to (or knows of).
  std::vector<ClusterObservation> clusters;
};

enum class SyncStep {
  kApply,   // a target: make its copy match the template with `replicas`
  kHold,    // no longer a target, but keeps `replicas` while a move needs them
  kRemove,  // no longer a target: delete the copy Flotilla made there for this binding
};

struct SyncAction {
  SyncStep step = SyncStep::kApply;
  std::string cluster;
  int32_t replicas = 0;
  bool operator==(const SyncAction&) const = default;
};

struct SyncPlan {
  // The targets first, in the binding's order, then the other clusters in the order observed.
  // A cluster not named here is left alone: not connected yet (what is there is unknown), not
  // Ready (its copy goes when it comes back; the readiness watch brings the binding back), or
  // known to hold nothing of the binding.
  std::vector<SyncAction> actions;
  MovePlan move;
  // "member2 holds 3 (target 2)" while a move holds replicas; "" otherwise.
  std::string moving;
};

SyncPlan planSync(const SyncPlanInput& in);

// What a pass met on its clusters, for the retry policy.
struct PassOutcome {
  // A Ready target not connected yet (the operator just started): nothing is reported, the
  // pass is repeated in a second.
  bool undecided = false;
  bool soon = false;     // a cluster not Ready or unreachable: retried after retryNotReady
  bool backoff = false;  // a member answered an error: the queue's exponential backoff
  // A copy no member event will report (its kind's cache is not following, or the object is not
  // Flotilla's) and that is not healthy yet on a target: read again every healthPoll.
  bool pollUnhealthy = false;
  bool moving = false;  // a make-before-break move holds replicas
  std::optional<std::chrono::nanoseconds> moveLeft;
};

struct RetryTimes {
  std::chrono::nanoseconds retryNotReady = std::chrono::seconds(5);
  std::chrono::nanoseconds healthPoll = std::chrono::seconds(10);
};

// When the binding is looked at again: `backoff` (the queue's rate limit), after `after`, or
// never (until an event) when neither is set.
struct Requeue {
  bool backoff = false;
  std::optional<std::chrono::nanoseconds> after;
  bool operator==(const Requeue&) const = default;
};

// Undecided: 1 s. A move: when it times out (plus 100 ms), at most every 5 s (a status event
// that raced with the pass is not waited for until the timeout), sooner if a cluster asked for
// retryNotReady. Then soon > backoff > healthPoll.
Requeue requeueAfter(const PassOutcome& pass, const RetryTimes& times);

}  // namespace flotilla::controllers::sync
