// The scheduling queue for ResourceBindings (docs/design.md §4.1, seed 002: kube-scheduler's
// PriorityQueue). Three sub-queues:
//  - activeQ: ready to schedule, ordered by priority (desc) then by when they became active;
//  - backoffQ: failed recently, waiting out a per-binding exponential backoff (1s doubling to 10s);
//  - unschedulableQ: failed with nothing changed since; re-activated by a cluster event, or after
//    60s (checked every 30s).
// A binding is in at most one sub-queue, and never in a sub-queue while a worker holds it, so no
// two workers schedule the same binding. Changes to a binding while it is being scheduled are
// remembered and re-queue it when the worker finishes.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "api/clock.h"

namespace flotilla::scheduler {

struct QueueOptions {
  std::chrono::nanoseconds initialBackoff = std::chrono::seconds(1);
  std::chrono::nanoseconds maxBackoff = std::chrono::seconds(10);
  std::chrono::nanoseconds unschedulableTimeout = std::chrono::seconds(60);  // leftover flush
  std::chrono::nanoseconds leftoverCheckPeriod = std::chrono::seconds(30);
};

// What a worker gets from pop(): hand it back with done() or addUnschedulable().
struct QueuedItem {
  std::string key;  // namespace/name of the ResourceBinding
  int32_t priority = 0;
  int64_t schedulingCycle = 0;  // the cycle this attempt belongs to
  int attempts = 0;             // failed attempts so far
};

struct QueueDepths {
  size_t active = 0;
  size_t backoff = 0;
  size_t unschedulable = 0;
  size_t inFlight = 0;
};

class SchedulingQueue {
 public:
  SchedulingQueue(const api::SteadyClockInterface& clock, QueueOptions options = {});

  // A binding was created or changed. Queued: updated in place (an unschedulable binding becomes
  // active, or backs off if its backoff has not expired). Held by a worker: re-queued when it is
  // handed back.
  void add(const std::string& key, int32_t priority);
  // The binding was deleted: it leaves every sub-queue and is dropped when its worker is done.
  void remove(const std::string& key);

  // Blocks without spinning until a binding is active or the queue is closed (nullopt).
  std::optional<QueuedItem> pop();
  std::optional<QueuedItem> tryPop();  // non-blocking

  // Scheduling succeeded (or the binding needs nothing): forget its backoff.
  void done(const QueuedItem& item);
  // Scheduling failed. If a cluster event arrived after this attempt's cycle began
  // (moveRequestCycle
  // >= item.schedulingCycle), the failure may be stale: back off and retry; otherwise wait in
  // unschedulableQ for an event.
  void addUnschedulable(const QueuedItem& item);

  // The attempt failed for a reason that is not the binding's (a write conflict, an API error):
  // retry after the binding's backoff, whatever happened meanwhile (kube-scheduler does the same
  // with errors other than Unschedulable).
  void addBackoff(const QueuedItem& item);

  // A cluster event that can make bindings schedulable (added, Ready again, taints/labels/resources
  // changed): every unschedulable binding moves to activeQ, or to backoffQ while backing off.
  void moveAllToActiveOrBackoff();

  // Periodic work; call every second: completed backoffs become active, and every
  // leftoverCheckPeriod bindings unschedulable for longer than unschedulableTimeout are moved.
  void tick();

  void close();
  QueueDepths depths() const;
  int64_t schedulingCycle() const;

 private:
  using TimePoint = api::SteadyClockInterface::time_point;
  struct ActiveKey {
    int32_t priority;
    TimePoint since;
    uint64_t seq;
    std::string key;
    bool operator<(const ActiveKey& o) const {
      if (priority != o.priority) return priority > o.priority;
      if (since != o.since) return since < o.since;
      return seq < o.seq;
    }
  };
  struct BackoffKey {
    TimePoint expiry;
    uint64_t seq;
    std::string key;
    bool operator<(const BackoffKey& o) const {
      return expiry != o.expiry ? expiry < o.expiry : seq < o.seq;
    }
  };
  enum class Where { kActive, kBackoff, kUnschedulable, kInFlight };
  struct Entry {
    Where where = Where::kActive;
    int32_t priority = 0;
    int attempts = 0;
    TimePoint lastFailure{};
    TimePoint unschedulableSince{};
    std::set<ActiveKey>::iterator activeIt;
    std::set<BackoffKey>::iterator backoffIt;
    bool dirty = false;    // changed while in flight
    bool removed = false;  // deleted while in flight
  };

  TimePoint backoffExpiry(const Entry& e) const;
  bool backingOff(const Entry& e, TimePoint now) const;
  void detach(Entry& e);  // out of whichever sub-queue holds it
  void toActive(const std::string& key, Entry& e, TimePoint now);
  void toBackoff(const std::string& key, Entry& e);
  void toActiveOrBackoff(const std::string& key, Entry& e, TimePoint now);
  std::optional<QueuedItem> popLocked();
  // Takes a binding back from its worker: nullptr when it is not in flight, or when it was deleted
  // meanwhile (then it is forgotten).
  Entry* handBackLocked(const std::string& key);

  const api::SteadyClockInterface& clock_;
  const QueueOptions options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<std::string, Entry> entries_;
  std::set<ActiveKey> active_;
  std::set<BackoffKey> backoff_;
  size_t unschedulable_ = 0;
  size_t inFlight_ = 0;
  uint64_t seq_ = 0;
  int64_t schedulingCycle_ = 0;
  int64_t moveRequestCycle_ = -1;
  TimePoint lastLeftoverCheck_;
  bool closed_ = false;
};

}  // namespace flotilla::scheduler
