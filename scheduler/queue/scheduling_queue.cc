#include "scheduler/queue/scheduling_queue.h"

#include <algorithm>
#include <vector>

namespace flotilla::scheduler {

SchedulingQueue::SchedulingQueue(const api::SteadyClockInterface& clock, QueueOptions options)
    : clock_(clock), options_(options), lastLeftoverCheck_(clock.now()) {}

SchedulingQueue::TimePoint SchedulingQueue::backoffExpiry(const Entry& e) const {
  // initial * 2^(attempts-1), capped at max.
  auto duration = options_.initialBackoff;
  for (int i = 1; i < e.attempts && duration < options_.maxBackoff; ++i) duration *= 2;
  return e.lastFailure + std::min(duration, options_.maxBackoff);
}

bool SchedulingQueue::backingOff(const Entry& e, TimePoint now) const {
  return e.attempts > 0 && backoffExpiry(e) > now;
}

void SchedulingQueue::detach(Entry& e) {
  switch (e.where) {
    case Where::kActive:
      active_.erase(e.activeIt);
      break;
    case Where::kBackoff:
      backoff_.erase(e.backoffIt);
      break;
    case Where::kUnschedulable:
      --unschedulable_;
      break;
    case Where::kInFlight:
      break;
  }
}

void SchedulingQueue::toActive(const std::string& key, Entry& e, TimePoint now) {
  e.where = Where::kActive;
  e.activeIt = active_.insert({e.priority, now, seq_++, key}).first;
  cv_.notify_one();
}

void SchedulingQueue::toBackoff(const std::string& key, Entry& e) {
  e.where = Where::kBackoff;
  e.backoffIt = backoff_.insert({backoffExpiry(e), seq_++, key}).first;
}

void SchedulingQueue::toActiveOrBackoff(const std::string& key, Entry& e, TimePoint now) {
  if (backingOff(e, now)) {
    toBackoff(key, e);
  } else {
    toActive(key, e, now);
  }
}

void SchedulingQueue::add(const std::string& key, int32_t priority) {
  std::lock_guard lock(mu_);
  if (closed_) return;
  const TimePoint now = clock_.now();
  auto [it, inserted] = entries_.try_emplace(key);
  Entry& e = it->second;
  if (inserted) {
    e.priority = priority;
    toActive(key, e, now);
    return;
  }
  switch (e.where) {
    case Where::kInFlight:
      e.priority = priority;
      e.dirty = true;
      e.removed = false;
      return;
    case Where::kActive:
      if (e.priority != priority) {  // re-sort, keeping its place in time
        ActiveKey k = *e.activeIt;
        active_.erase(e.activeIt);
        k.priority = priority;
        e.activeIt = active_.insert(k).first;
      }
      e.priority = priority;
      return;
    case Where::kBackoff:
      e.priority = priority;  // waits out its backoff, as in kube-scheduler
      return;
    case Where::kUnschedulable:
      // The binding changed: it may be schedulable now.
      --unschedulable_;
      e.priority = priority;
      toActiveOrBackoff(key, e, now);
      return;
  }
}

void SchedulingQueue::remove(const std::string& key) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  if (it->second.where == Where::kInFlight) {
    it->second.removed = true;
    it->second.dirty = false;
    return;
  }
  detach(it->second);
  entries_.erase(it);
}

std::optional<QueuedItem> SchedulingQueue::popLocked() {
  if (active_.empty()) return std::nullopt;
  const ActiveKey top = *active_.begin();
  active_.erase(active_.begin());
  Entry& e = entries_.at(top.key);
  e.where = Where::kInFlight;
  ++inFlight_;
  ++schedulingCycle_;
  return QueuedItem{top.key, e.priority, schedulingCycle_, e.attempts};
}

std::optional<QueuedItem> SchedulingQueue::pop() {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [&] { return closed_ || !active_.empty(); });
  if (closed_) return std::nullopt;
  return popLocked();
}

std::optional<QueuedItem> SchedulingQueue::tryPop() {
  std::lock_guard lock(mu_);
  if (closed_) return std::nullopt;
  return popLocked();
}

SchedulingQueue::Entry* SchedulingQueue::handBackLocked(const std::string& key) {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.where != Where::kInFlight) return nullptr;
  --inFlight_;
  if (it->second.removed) {
    entries_.erase(it);
    return nullptr;
  }
  return &it->second;
}

void SchedulingQueue::done(const QueuedItem& item) {
  std::lock_guard lock(mu_);
  Entry* entry = handBackLocked(item.key);
  if (!entry) return;
  Entry& e = *entry;
  e.attempts = 0;  // success: forget the backoff
  if (e.dirty) {
    e.dirty = false;
    toActive(item.key, e, clock_.now());  // changed while being scheduled: look again
    return;
  }
  entries_.erase(item.key);
}

void SchedulingQueue::addUnschedulable(const QueuedItem& item) {
  std::lock_guard lock(mu_);
  Entry* entry = handBackLocked(item.key);
  if (!entry) return;
  Entry& e = *entry;
  const TimePoint now = clock_.now();
  ++e.attempts;
  e.lastFailure = now;
  if (e.dirty || moveRequestCycle_ >= item.schedulingCycle) {
    // It changed, or the fleet changed, while this attempt ran: the failure may be stale.
    e.dirty = false;
    toBackoff(item.key, e);
  } else {
    e.where = Where::kUnschedulable;
    e.unschedulableSince = now;
    ++unschedulable_;
  }
}

void SchedulingQueue::addBackoff(const QueuedItem& item) {
  std::lock_guard lock(mu_);
  Entry* entry = handBackLocked(item.key);
  if (!entry) return;
  ++entry->attempts;
  entry->lastFailure = clock_.now();
  entry->dirty = false;
  toBackoff(item.key, *entry);
}

void SchedulingQueue::moveAllToActiveOrBackoff() {
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  for (auto& [key, e] : entries_) {
    if (e.where != Where::kUnschedulable) continue;
    --unschedulable_;
    toActiveOrBackoff(key, e, now);
  }
  moveRequestCycle_ = schedulingCycle_;
}

void SchedulingQueue::tick() {
  std::lock_guard lock(mu_);
  const TimePoint now = clock_.now();
  // Completed backoffs: the backoffQ is ordered by expiry, so stop at the first pending one.
  while (!backoff_.empty() && backoff_.begin()->expiry <= now) {
    const std::string key = backoff_.begin()->key;
    backoff_.erase(backoff_.begin());
    toActive(key, entries_.at(key), now);
  }
  if (now - lastLeftoverCheck_ < options_.leftoverCheckPeriod) return;
  lastLeftoverCheck_ = now;
  for (auto& [key, e] : entries_) {
    if (e.where == Where::kUnschedulable &&
        now - e.unschedulableSince > options_.unschedulableTimeout) {
      --unschedulable_;
      toActiveOrBackoff(key, e, now);
    }
  }
}

void SchedulingQueue::close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  cv_.notify_all();
}

QueueDepths SchedulingQueue::depths() const {
  std::lock_guard lock(mu_);
  return {active_.size(), backoff_.size(), unschedulable_, inFlight_};
}

int64_t SchedulingQueue::schedulingCycle() const {
  std::lock_guard lock(mu_);
  return schedulingCycle_;
}

}  // namespace flotilla::scheduler
