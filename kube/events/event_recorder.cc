#include "kube/events/event_recorder.h"

#include <spdlog/spdlog.h>

#include <boost/json.hpp>
#include <cstdio>

#include "api/time.h"
#include "kube/client/status_error.h"

namespace flotilla::kube {
namespace json = boost::json;

namespace {

std::string str(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object& meta(const json::object& o) {
  static const json::object kEmpty;
  const auto* m = o.if_contains("metadata");
  return m && m->is_object() ? m->as_object() : kEmpty;
}

json::object objectReference(const json::object& involved) {
  const auto& m = meta(involved);
  json::object ref{{"apiVersion", str(involved, "apiVersion")},
                   {"kind", str(involved, "kind")},
                   {"name", str(m, "name")}};
  if (auto ns = str(m, "namespace"); !ns.empty()) ref["namespace"] = ns;
  if (auto uid = str(m, "uid"); !uid.empty()) ref["uid"] = uid;
  if (auto rv = str(m, "resourceVersion"); !rv.empty()) ref["resourceVersion"] = rv;
  return ref;
}

bool mayPass(const api::Error& e) {
  return e.code == 0 || e.code == 429 || e.code >= 500 ||
         (e.code == 409 && e.reason == api::reason::kConflict);
}

}  // namespace

api::Result<json::object> AggregatingEventRecorder::withRetries(
    const std::function<api::Result<json::object>()>& call) {
  auto result = call();
  auto delay = options_.retryDelay;
  for (int i = 0; i < options_.retries && !result && mayPass(result.error()); ++i) {
    std::this_thread::sleep_for(delay);  // the writer thread's backoff; event() never waits
    delay *= 2;
    result = call();
  }
  return result;
}

AggregatingEventRecorder::AggregatingEventRecorder(EventSink& sink, EventRecorderOptions options)
    : sink_(sink), options_(std::move(options)) {
  if (!options_.clock) options_.clock = &realClock_;
  if (!options_.wallClock) options_.wallClock = std::chrono::system_clock::now;
  thread_ = std::thread([this] { writer(); });
}

AggregatingEventRecorder::~AggregatingEventRecorder() {
  flush();
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void AggregatingEventRecorder::event(const json::object& involved, const std::string& type,
                                     const std::string& reason, const std::string& message) {
  const auto& m = meta(involved);
  const std::string objectId = str(involved, "kind") + "/" + str(m, "namespace") + "/" +
                               str(m, "name") + "/" + str(m, "uid");
  std::lock_guard lock(mutex_);
  auto& bucket = buckets_[objectId];
  if (!bucket)
    bucket =
        std::make_unique<TokenBucket>(options_.refillPerSecond, options_.burst, *options_.clock);
  if (!bucket->tryTake()) {
    ++stats_.droppedByRateLimit;
    return;
  }
  if (pending_.size() >= options_.maxPending) {
    ++stats_.droppedQueueFull;
    return;
  }
  pending_.push_back(Pending{involved, type, reason, message, options_.wallClock()});
  wake_.notify_one();
}

void AggregatingEventRecorder::writer() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
    if (pending_.empty()) break;
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    writing_ = true;
    lock.unlock();
    write(p);
    lock.lock();
    writing_ = false;
    if (pending_.empty()) idle_.notify_all();
  }
}

void AggregatingEventRecorder::write(const Pending& p) {
  const auto& m = meta(p.involved);
  std::string ns = str(m, "namespace");
  if (ns.empty()) ns = "default";  // events about cluster-scoped objects
  const std::string key = str(p.involved, "kind") + "\x1f" + ns + "\x1f" + str(m, "name") + "\x1f" +
                          str(m, "uid") + "\x1f" + p.type + "\x1f" + p.reason + "\x1f" + p.message;
  const std::string now = api::formatRfc3339(p.at);
  std::optional<Seen> previous;
  {
    std::lock_guard lock(mutex_);
    if (auto it = seen_.find(key); it != seen_.end()) previous = it->second;
  }
  if (previous) {
    const int64_t count = previous->count + 1;
    const std::string patch =
        json::serialize(json::object{{"count", count}, {"lastTimestamp", now}});
    auto patched = withRetries([&] { return sink_.patch(previous->ns, previous->name, patch); });
    std::lock_guard lock(mutex_);
    if (patched) {
      ++stats_.aggregated;
      seen_[key].count = count;
      lru_.splice(lru_.begin(), lru_, seen_[key].lru);
      return;
    }
    if (!isNotFound(patched.error())) {
      ++stats_.failed;
      spdlog::warn("event {} on {}: {}", p.reason, str(m, "name"), patched.error().str());
      return;
    }
    // The Event expired (events have a TTL): forget it and create a fresh one.
    lru_.erase(seen_[key].lru);
    seen_.erase(key);
  }
  // "<object>.<hex unix nanos>" as client-go names them, strictly increasing so two events in
  // the same nanosecond (or under a coarse clock) never collide.
  auto nanos = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(p.at.time_since_epoch()).count());
  nanos = std::max(nanos, lastNameNanos_ + 1);
  lastNameNanos_ = nanos;
  char suffix[32];
  std::snprintf(suffix, sizeof(suffix), ".%llx", static_cast<unsigned long long>(nanos));
  const std::string name = str(m, "name") + suffix;
  json::object source{{"component", options_.component}};
  if (!options_.host.empty()) source["host"] = options_.host;
  json::object event{{"apiVersion", "v1"},
                     {"kind", "Event"},
                     {"metadata", json::object{{"name", name}, {"namespace", ns}}},
                     {"involvedObject", objectReference(p.involved)},
                     {"type", p.type},
                     {"reason", p.reason},
                     {"message", p.message},
                     {"source", std::move(source)},
                     {"reportingComponent", options_.component},
                     {"firstTimestamp", now},
                     {"lastTimestamp", now},
                     {"count", 1}};
  bool retried = false;
  auto created = withRetries([&] {
    auto answer = sink_.create(ns, event);
    // A create whose answer was lost may have been stored: the name is this event's own.
    if (!answer && retried && answer.error().reason == api::reason::kAlreadyExists)
      return api::Result<json::object>(event);
    retried = true;
    return answer;
  });
  std::lock_guard lock(mutex_);
  if (!created) {
    ++stats_.failed;
    spdlog::warn("event {} on {}: {}", p.reason, str(m, "name"), created.error().str());
    return;
  }
  ++stats_.created;
  lru_.push_front(key);
  seen_[key] = Seen{ns, name, 1, lru_.begin()};
  while (seen_.size() > options_.cacheSize) {
    seen_.erase(lru_.back());
    lru_.pop_back();
  }
}

void AggregatingEventRecorder::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return pending_.empty() && !writing_; });
}

EventRecorderStats AggregatingEventRecorder::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace flotilla::kube
