#include "controllers/sync/sync_plan.h"

#include <algorithm>
#include <set>

#include "api/conditions.h"
#include "api/time.h"

namespace flotilla::controllers::sync {

using namespace std::chrono;

bool placementCurrent(const api::ResourceBinding& rb) {
  const auto* scheduled = api::findCondition(rb.status.conditions, "Scheduled");
  return !rb.spec.clusters.empty() && scheduled && scheduled->status == "True" &&
         rb.status.schedulerObservedGeneration >= rb.metadata.generation;
}

std::optional<nanoseconds> moveTimeLeft(const api::ResourceBinding& rb, nanoseconds timeout,
                                        api::Clock::time_point now) {
  if (rb.status.schedulerObservedGeneration < rb.metadata.generation) return std::nullopt;
  const auto at = api::parseRfc3339(rb.status.lastScheduledTime);
  return at ? duration_cast<nanoseconds>(timeout - (now - *at)) : nanoseconds(0);
}

SyncPlan planSync(const SyncPlanInput& in) {
  SyncPlan plan;
  std::set<std::string> targets;
  for (const auto& t : in.targets) targets.insert(t.name);
  auto observed = [&](const std::string& name) -> ClusterObservation {
    for (const auto& c : in.clusters)
      if (c.name == name) return c;
    return ClusterObservation{name};  // not connected: nothing known
  };
  auto usable = [](const ClusterObservation& c) { return c.connected && c.ready; };

  // What each cluster holds while replicas move (move.h). Clusters the binding leaves matter
  // only where something of it may still run, and only once the placement is current.
  std::vector<MoveCluster> moves;
  for (const auto& t : in.targets) {
    const auto c = observed(t.name);
    moves.push_back({t.name, t.replicas,
                     in.makeBeforeBreak && usable(c) ? c.liveReplicas : std::nullopt, c.available,
                     usable(c)});
  }
  if (in.placementCurrent) {
    for (const auto& c : in.clusters) {
      if (targets.count(c.name) || !c.holds) continue;
      moves.push_back({c.name, 0, in.makeBeforeBreak && usable(c) ? c.liveReplicas : std::nullopt,
                       c.available, usable(c)});
    }
  }
  const bool timedOut = in.moveLeft && *in.moveLeft <= nanoseconds(0);
  plan.move = planMove(moves, timedOut || !in.makeBeforeBreak);
  plan.moving = describeHeld(plan.move, moves);

  for (const auto& t : in.targets)
    plan.actions.push_back({SyncStep::kApply, t.name, plan.move.replicas.at(t.name)});
  if (!in.placementCurrent) return plan;
  for (const auto& c : in.clusters) {
    if (targets.count(c.name)) continue;
    if (auto held = plan.move.held.find(c.name); held != plan.move.held.end()) {
      plan.actions.push_back({SyncStep::kHold, c.name, held->second});
      continue;
    }
    if (!usable(c) || !c.holds) continue;
    plan.actions.push_back({SyncStep::kRemove, c.name, 0});
  }
  return plan;
}

Requeue requeueAfter(const PassOutcome& pass, const RetryTimes& times) {
  if (pass.undecided) return {false, duration_cast<nanoseconds>(seconds(1))};
  if (pass.moving) {
    nanoseconds after = pass.moveLeft ? std::max(*pass.moveLeft, nanoseconds(0)) + milliseconds(100)
                                      : duration_cast<nanoseconds>(seconds(1));
    after = std::min(after, duration_cast<nanoseconds>(seconds(5)));
    if (pass.soon || pass.backoff) after = std::min(after, times.retryNotReady);
    return {false, after};
  }
  if (pass.soon) return {false, times.retryNotReady};
  if (pass.backoff) return {true, std::nullopt};
  if (pass.pollUnhealthy) return {false, times.healthPoll};
  return {};
}

}  // namespace flotilla::controllers::sync
