// The scheduler controller (docs/design.md §4, §5.4): the seed-002 scheduling queue fed by binding
// changes that matter and by cluster events; workers pop a binding, decide whether and how to
// schedule it (scheduler/schedule_type.h), run the scheduling cycle with the policy's
// SchedulingProfile and the SchedulerExtenders, and write spec.clusters (one update, only when it
// differs) and status (one write).
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "api/clock.h"
#include "api/time.h"
#include "controllers/common/decoded_cache.h"
#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/events/event_recorder.h"
#include "kube/manager/metrics.h"
#include "scheduler/framework/registry.h"
#include "scheduler/queue/scheduling_queue.h"
#include "scheduler/schedule_type.h"

namespace flotilla::scheduler {
class ExtenderClient;
}

namespace flotilla::controllers::scheduler {

struct Informers {
  kube::SharedInformer& bindings;
  kube::SharedInformer& clusters;
  const kube::SharedInformer& policies;
  const kube::SharedInformer& clusterPolicies;
  kube::SharedInformer& profiles;
  kube::SharedInformer& extenders;
  // ClusterResourceBindings (cluster-scoped objects), scheduled the same way; their queue keys
  // have no namespace ("name"). Null: ResourceBindings only.
  kube::SharedInformer* clusterBindings = nullptr;
};

struct SchedulerControllerOptions {
  int workers = 2;
  std::function<api::Clock::time_point()> wallClock = api::Clock::now;
  const api::SteadyClockInterface* clock = nullptr;  // the queue's; default: real steady clock
  std::chrono::nanoseconds defaultClusterNotReadyFor = std::chrono::seconds(60);
  // A first placement's status (Scheduled, placementSummary, lastScheduledTime) is left to the
  // binding's next status write, which the placement brings at once (the sync controller's, or
  // the status controller's: firstPlacementStatus in placement_status.h): one host write where
  // there were two. When none carried it within this grace (longer than a loaded sync queue's
  // lag), the scheduler writes it itself. 0: always itself.
  std::chrono::nanoseconds firstStatusGrace = std::chrono::seconds(10);
};

class SchedulerController {
 public:
  SchedulerController(kube::RestClient& host, boost::asio::any_io_executor executor,
                      Informers informers, kube::EventRecorder& events,
                      SchedulerControllerOptions options = {});
  ~SchedulerController();

  // Registers the event handlers that feed the queue (before the informers start).
  void watch();
  void start();  // workers and the queue's 1 s ticker
  void stop();   // closes the queue, joins the workers

  void collectMetrics(kube::MetricsWriter& w) const;
  flotilla::scheduler::SchedulingQueue& queue() { return queue_; }

 private:
  struct Fleet;
  enum class Outcome { kNothing, kScheduled, kFailed, kError };
  void worker();
  void ticker();
  Outcome scheduleOne(const std::string& key);
  std::shared_ptr<const Fleet> fleet();
  api::Result<flotilla::scheduler::Profile> profileFor(const std::string& name);
  std::shared_ptr<flotilla::scheduler::ExtenderClient> extenders(std::string* error);
  void enqueueBindingsOn(const std::string& cluster);
  const kube::SharedInformer& bindingsOf(const std::string& key) const;
  // Re-queues `key` after `delay` (a failover grace running out); the ticker adds it.
  void addAfter(const std::string& key, int32_t priority, std::chrono::nanoseconds delay);
  void addDue();

  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  Informers informers_;
  kube::EventRecorder& events_;
  SchedulerControllerOptions options_;
  api::RealSteadyClock realClock_;
  flotilla::scheduler::SchedulingQueue queue_;

  std::atomic<uint64_t> fleetVersion_{0};
  std::atomic<uint64_t> extenderVersion_{0};
  mutable std::mutex cacheMutex_;
  std::shared_ptr<const Fleet> fleet_;
  DecodedCache<api::FederatedCluster> decodedClusters_;
  uint64_t builtFleetVersion_ = ~uint64_t{0};
  std::shared_ptr<flotilla::scheduler::ExtenderClient> extenderClient_;
  std::string extenderError_;
  uint64_t builtExtenderVersion_ = ~uint64_t{0};

  std::mutex delayedMutex_;
  std::multimap<std::chrono::steady_clock::time_point, std::pair<std::string, int32_t>> delayed_;

  std::vector<std::thread> threads_;
  std::mutex stopMutex_;
  std::condition_variable stopWake_;
  bool stopping_ = false;
  bool started_ = false;

  // Metrics
  mutable std::mutex metricsMutex_;
  std::map<std::pair<std::string, std::string>, uint64_t> attempts_;  // (result, type) -> count
  kube::Histogram latency_;
};

}  // namespace flotilla::controllers::scheduler
