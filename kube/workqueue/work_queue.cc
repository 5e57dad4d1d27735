#include "kube/workqueue/work_queue.h"

namespace flotilla::kube {

WorkQueue::WorkQueue(const api::SteadyClockInterface& clock,
                     std::unique_ptr<WorkRateLimiter> limiter)
    : clock_(clock), limiter_(std::move(limiter)), delayThread_([this] { delayLoop(); }) {}

WorkQueue::~WorkQueue() {
  shutDown();
  {
    std::lock_guard lock(mutex_);
    stopDelay_ = true;
  }
  delayWake_.notify_all();
  delayThread_.join();
}

void WorkQueue::addLocked(const std::string& key) {
  if (shuttingDown_ || draining_) return;
  ++counters_.adds;
  if (!dirty_.insert(key).second) return;  // already waiting: de-duplicated
  addedAt_.emplace(key, clock_.now());
  if (processing_.count(key)) return;  // queued again by done()
  queue_.push_back(key);
  ready_.notify_one();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard lock(mutex_);
  addLocked(key);
}

void WorkQueue::addAfter(const std::string& key, std::chrono::nanoseconds delay) {
  std::lock_guard lock(mutex_);
  if (shuttingDown_ || draining_) return;
  if (delay <= std::chrono::nanoseconds(0)) {
    addLocked(key);
    return;
  }
  const TimePoint due = clock_.now() + delay;
  auto it = delayedUntil_.find(key);
  if (it != delayedUntil_.end()) {
    if (it->second <= due) return;  // already due sooner
    auto range = delayedByTime_.equal_range(it->second);
    for (auto r = range.first; r != range.second; ++r) {
      if (r->second == key) {
        delayedByTime_.erase(r);
        break;
      }
    }
  }
  delayedUntil_[key] = due;
  const auto at = delayedByTime_.emplace(due, key);
  // The delay thread sleeps until the earliest key is due: only a new earliest changes that.
  // (Waking it for every key was 4% of the operator's CPU under load: every member status
  // event is an addAfter.)
  if (at == delayedByTime_.begin()) delayWake_.notify_all();
}

void WorkQueue::addRateLimited(const std::string& key) {
  const auto delay = limiter_->when(key);
  {
    std::lock_guard lock(mutex_);
    ++counters_.retries;
  }
  addAfter(key, delay);
}

void WorkQueue::forget(const std::string& key) { limiter_->forget(key); }
int WorkQueue::numRequeues(const std::string& key) const { return limiter_->retries(key); }

void WorkQueue::moveDueLocked() {
  const TimePoint now = clock_.now();
  while (!delayedByTime_.empty() && delayedByTime_.begin()->first <= now) {
    const std::string key = delayedByTime_.begin()->second;
    delayedByTime_.erase(delayedByTime_.begin());
    delayedUntil_.erase(key);
    addLocked(key);
  }
}

void WorkQueue::delayLoop() {
  std::unique_lock lock(mutex_);
  while (!stopDelay_) {
    moveDueLocked();
    if (delayedByTime_.empty()) {
      delayWake_.wait(lock);
    } else {
      // Sleep until the earliest key is due by this clock's reckoning; a fake clock does not
      // move by itself, so tests call wake() after advancing it (bounded wait as a safety net).
      auto wait = delayedByTime_.begin()->first - clock_.now();
      delayWake_.wait_for(lock, std::min<std::chrono::nanoseconds>(wait, std::chrono::seconds(1)));
    }
  }
}

void WorkQueue::wake() {
  std::lock_guard lock(mutex_);
  moveDueLocked();
  delayWake_.notify_all();
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return !queue_.empty() || shuttingDown_; });
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  const TimePoint now = clock_.now();
  processing_[key] = now;
  dirty_.erase(key);
  if (auto it = addedAt_.find(key); it != addedAt_.end()) {
    counters_.totalQueueLatency += now - it->second;
    addedAt_.erase(it);
  }
  ++counters_.gets;
  return key;
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard lock(mutex_);
  processing_.erase(key);
  if (dirty_.count(key)) {
    queue_.push_back(key);
    ready_.notify_one();
  }
  if (processing_.empty()) drained_.notify_all();
  if (draining_ && processing_.empty() && queue_.empty()) {
    shuttingDown_ = true;
    ready_.notify_all();
  }
}

void WorkQueue::shutDown() {
  std::lock_guard lock(mutex_);
  shuttingDown_ = true;
  queue_.clear();
  ready_.notify_all();
}

void WorkQueue::shutDownWithDrain() {
  std::unique_lock lock(mutex_);
  draining_ = true;
  delayedByTime_.clear();
  delayedUntil_.clear();
  if (queue_.empty() && processing_.empty()) {
    shuttingDown_ = true;
    ready_.notify_all();
    return;
  }
  drained_.wait(lock, [&] { return (processing_.empty() && queue_.empty()) || shuttingDown_; });
  shuttingDown_ = true;
  ready_.notify_all();
}

bool WorkQueue::shuttingDown() const {
  std::lock_guard lock(mutex_);
  return shuttingDown_ || draining_;
}

size_t WorkQueue::len() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

WorkQueueStats WorkQueue::stats() const {
  std::lock_guard lock(mutex_);
  WorkQueueStats s = counters_;
  s.depth = queue_.size();
  s.delayed = delayedByTime_.size();
  s.processing = processing_.size();
  const TimePoint now = clock_.now();
  for (const auto& [key, since] : processing_)
    s.longestRunning = std::max(s.longestRunning, now - since);
  return s;
}

}  // namespace flotilla::kube
