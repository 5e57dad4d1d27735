// The scheduler reconciler's decisions for a binding whose placement stands (decideSchedule said
// kNone): whether its status must be repaired, and when to look at it again. Pure, tested by
// tables (placement_status_test.cc).
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "api/flotilla_types.h"
#include "api/time.h"
#include "scheduler/schedule_type.h"

namespace flotilla::controllers::scheduler {

// A placement that is current but whose status does not say so (the operator was killed between
// the spec write and the status write, or the status write was lost): the status that says what
// is placed — Scheduled=True for the generation, the placement summary, and a lastScheduledTime
// of `now` when the placed generation was never described (the sync controller times a
// make-before-break move from it). nullopt when nothing is placed or the status is current.
std::optional<api::ResourceBindingStatus> repairedStatus(
    const api::ResourceBinding& rb, const std::optional<flotilla::scheduler::ScheduleRecord>& last,
    api::Clock::time_point now);

// The status a binding's first placement gets, for the binding's first status pass to carry (the
// scheduler leaves that write to it: SchedulerControllerOptions::firstStatusGrace): the repaired
// status when the scheduler placed it (its schedule record is there, made from the replicas and
// placement the binding asks for now) and no Scheduled condition was ever written; nullopt
// otherwise. A binding that ever had a Scheduled condition, False
// included, is never touched: only the scheduler says what a later schedule decided.
std::optional<api::ResourceBindingStatus> firstPlacementStatus(const api::ResourceBinding& rb,
                                                               api::Clock::time_point now);

// Merges firstPlacementStatus(rb, now), when there is one, into `into` (a status another
// controller is about to write for `rb`); returns whether there was.
bool carryFirstPlacement(const api::ResourceBinding& rb, api::Clock::time_point now,
                         api::ResourceBindingStatus& into);

// Copies the scheduler's fields (schedulerObservedGeneration, lastScheduledTime, lastScheduleType,
// placementSummary, diagnosis, the Scheduled condition) from `scheduler` into `into`.
void mergeSchedulerStatus(api::ResourceBindingStatus& into,
                          const api::ResourceBindingStatus& scheduler);

// The soonest moment a target cluster that is not Ready runs out of the policy's grace
// (`notReadyFor`, counted from its Ready condition's last transition): no cluster event will come
// to say so, so the binding is looked at again then. nullopt when no target is waiting.
std::optional<std::chrono::nanoseconds> graceLeft(const api::ResourceBinding& rb,
                                                  const std::vector<api::FederatedCluster>& fleet,
                                                  std::chrono::nanoseconds notReadyFor,
                                                  api::Clock::time_point now);

}  // namespace flotilla::controllers::scheduler
