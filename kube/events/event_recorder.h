// core/v1 Events about objects, as client-go's recorder writes them: a repeated event (same
// object, type, reason and message) increments `count` and `lastTimestamp` of the existing Event
// instead of creating another, and a per-object token bucket (burst 25, then one per 5 minutes)
// drops the excess so a hot reconcile loop cannot flood the API server. Writing happens on a
// background thread; event() never blocks a reconciler.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "api/clock.h"
#include "api/result.h"
#include "kube/client/rate_limiter.h"

namespace flotilla::kube {

class EventRecorder {
 public:
  virtual ~EventRecorder() = default;
  // `involved` is the object the event is about (apiVersion, kind, metadata). type is "Normal"
  // or "Warning"; reason is CamelCase ("Scheduled"); message is for humans.
  virtual void event(const boost::json::object& involved, const std::string& type,
                     const std::string& reason, const std::string& message) = 0;
};

// Where events are written (the API server, or a fake in tests).
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual api::Result<boost::json::object> create(const std::string& ns,
                                                  const boost::json::object& event) = 0;
  virtual api::Result<boost::json::object> patch(const std::string& ns, const std::string& name,
                                                 const std::string& mergePatch) = 0;
};

struct EventRecorderOptions {
  std::string component = "flotilla-controller-manager";  // source.component
  std::string host;                                       // source.host
  int burst = 25;
  double refillPerSecond = 1.0 / 300;
  size_t cacheSize = 4096;   // distinct events remembered for aggregation (LRU)
  size_t maxPending = 1000;  // events waiting to be written; more are dropped
  // A write the API server may take on a second try (no answer, 429, 5xx, a storage conflict) is
  // tried again up to `retries` times, `retryDelay` doubling in between. (client-go's recorder
  // retries only unanswered writes; an Event a user looks for should survive a brief overload.)
  int retries = 3;
  std::chrono::milliseconds retryDelay{200};
  const api::SteadyClockInterface* clock = nullptr;                  // for the rate limit
  std::function<std::chrono::system_clock::time_point()> wallClock;  // for timestamps
};

struct EventRecorderStats {
  uint64_t created = 0, aggregated = 0, droppedByRateLimit = 0, droppedQueueFull = 0, failed = 0;
};

class AggregatingEventRecorder final : public EventRecorder {
 public:
  AggregatingEventRecorder(EventSink& sink, EventRecorderOptions options = {});
  ~AggregatingEventRecorder() override;  // writes what is pending, then stops

  void event(const boost::json::object& involved, const std::string& type,
             const std::string& reason, const std::string& message) override;
  // Blocks until every event recorded so far has been written (tests, shutdown).
  void flush();
  EventRecorderStats stats() const;

 private:
  struct Pending {
    boost::json::object involved;
    std::string type, reason, message;
    std::chrono::system_clock::time_point at;
  };
  struct Seen {
    std::string ns, name;
    int64_t count = 0;
    std::list<std::string>::iterator lru;
  };
  void writer();
  void write(const Pending& p);
  api::Result<boost::json::object> withRetries(
      const std::function<api::Result<boost::json::object>()>& call);

  EventSink& sink_;
  EventRecorderOptions options_;
  api::RealSteadyClock realClock_;
  mutable std::mutex mutex_;
  std::condition_variable wake_, idle_;
  std::deque<Pending> pending_;
  bool writing_ = false;
  bool stopping_ = false;
  std::unordered_map<std::string, std::unique_ptr<TokenBucket>> buckets_;  // per involved object
  std::unordered_map<std::string, Seen> seen_;                             // aggregation key
  std::list<std::string> lru_;
  EventRecorderStats stats_;
  uint64_t lastNameNanos_ = 0;  // writer thread only
  std::thread thread_;
};

}  // namespace flotilla::kube
