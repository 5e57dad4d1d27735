// A controller's work queue (client-go semantics): keys are de-duplicated while waiting, a key is
// never handed to two workers at once (a key added while being processed is queued again when
// Done), delayed adds, rate-limited re-adds with per-key backoff, and shutdown with drain.
//
// Delays are measured on an injected clock. A background thread moves due keys into the queue;
// with a fake clock, call wake() after advancing it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "api/clock.h"
#include "kube/workqueue/rate_limiter.h"

namespace flotilla::kube {

struct WorkQueueStats {
  uint64_t adds = 0;
  uint64_t retries = 0;  // addRateLimited calls
  size_t depth = 0;      // waiting to be processed now
  size_t delayed = 0;    // waiting for their time
  size_t processing = 0;
  std::chrono::nanoseconds totalQueueLatency{0};  // add → get, summed over gets
  uint64_t gets = 0;
  std::chrono::nanoseconds longestRunning{0};  // of the keys being processed now
};

class WorkQueue {
 public:
  WorkQueue(const api::SteadyClockInterface& clock, std::unique_ptr<WorkRateLimiter> limiter);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  void add(const std::string& key);
  void addAfter(const std::string& key, std::chrono::nanoseconds delay);
  // addAfter(key, limiter.when(key)).
  void addRateLimited(const std::string& key);
  // The key succeeded: reset its backoff (does not remove it from the queue).
  void forget(const std::string& key);
  int numRequeues(const std::string& key) const;

  // Blocks until a key is ready; nullopt once shut down (with drain: once nothing is left).
  std::optional<std::string> get();
  // Every get() must be followed by done() for that key.
  void done(const std::string& key);

  // Stops handing out keys; pending adds are dropped. Workers' get() returns nullopt.
  void shutDown();
  // Stops accepting adds, lets workers finish what is queued and in progress, then shuts down.
  // Blocks until the keys being processed are done.
  void shutDownWithDrain();
  bool shuttingDown() const;

  size_t len() const;
  WorkQueueStats stats() const;
  void wake();  // re-check delayed keys (after advancing a fake clock)

 private:
  using TimePoint = api::SteadyClockInterface::time_point;
  void addLocked(const std::string& key);
  void delayLoop();
  void moveDueLocked();

  const api::SteadyClockInterface& clock_;
  std::unique_ptr<WorkRateLimiter> limiter_;
  mutable std::mutex mutex_;
  std::condition_variable ready_;    // queue non-empty or shutting down
  std::condition_variable drained_;  // processing became empty
  std::condition_variable delayWake_;
  std::deque<std::string> queue_;
  std::unordered_set<std::string> dirty_;
  std::unordered_map<std::string, TimePoint> processing_;  // key → when it was handed out
  std::unordered_map<std::string, TimePoint> addedAt_;     // for queue latency
  std::map<std::string, TimePoint> delayedUntil_;          // key → earliest due time
  std::multimap<TimePoint, std::string> delayedByTime_;
  bool shuttingDown_ = false;
  bool draining_ = false;
  bool stopDelay_ = false;
  WorkQueueStats counters_;
  std::thread delayThread_;
};

}  // namespace flotilla::kube
