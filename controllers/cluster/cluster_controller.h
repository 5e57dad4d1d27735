// The cluster controller (docs/design.md §5.1): for every FederatedCluster, a connection built
// from its Secret, a readiness probe every period with hysteresis, the member's version, API
// enablements, resources and node summary in status, and the not-ready/unreachable taints. The
// decision is decideCluster (cluster_status.h); this class probes, reads caches and writes the
// difference.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "api/clock.h"
#include "controllers/cluster/cluster_status.h"
#include "controllers/cluster/resources.h"
#include "controllers/common/managed.h"
#include "controllers/common/member_registry.h"
#include "kube/controller/controller.h"
#include "kube/events/event_recorder.h"
#include "kube/manager/metrics.h"

namespace flotilla::controllers::cluster {

struct ClusterControllerOptions {
  std::chrono::nanoseconds probePeriod = std::chrono::seconds(10);
  int probeThreshold = 3;  // consecutive agreeing probes before Ready flips
  std::chrono::nanoseconds failoverGrace = std::chrono::seconds(60);
  std::chrono::nanoseconds discoveryPeriod = std::chrono::minutes(5);
  std::chrono::nanoseconds secretRefresh = std::chrono::minutes(1);
  std::function<api::Clock::time_point()> wallClock = api::Clock::now;
  const api::SteadyClockInterface* clock = nullptr;  // default: the real steady clock
  // This host's identity: deleting a FederatedCluster removes from the member only what this
  // host made through that entry (docs/security.md, M1).
  std::string hostId;
};

class ClusterController final : public kube::Reconciler {
 public:
  // `clusters` is the host's FederatedCluster informer.
  ClusterController(kube::RestClient& host, boost::asio::any_io_executor hostExecutor,
                    const kube::SharedInformer& clusters, MemberRegistry& members,
                    kube::EventRecorder& events, ClusterControllerOptions options);

  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  void collectMetrics(kube::MetricsWriter& w) const;

 private:
  struct Memory {  // per member, in memory only (observations, not state: see docs/operator.md)
    ReadinessState readiness;
    bool seeded = false;
    std::optional<api::SteadyClockInterface::time_point> lastProbe, lastDiscovery, lastSecretRead;
    std::optional<api::SteadyClockInterface::time_point> cleanupFailingSince;
    std::string fingerprint;
    kube::RestConfig config;
    std::string configError;  // the Secret could not be turned into a connection
    std::string version;
    std::optional<std::vector<api::APIEnablement>> enablements;
  };
  api::Result<kube::ReconcileResult> finalize(const api::FederatedCluster& fc);
  void readCredentials(const api::FederatedCluster& fc, Memory& memory);
  ProbeResult probe(MemberConnection& member);
  std::optional<std::vector<api::APIEnablement>> discover(MemberConnection& member);

  kube::RestClient& host_;
  boost::asio::any_io_executor hostExecutor_;
  const kube::SharedInformer& clusters_;
  MemberRegistry& members_;
  kube::EventRecorder& events_;
  ClusterControllerOptions options_;
  api::RealSteadyClock realClock_;
  const api::SteadyClockInterface* clock_;
  mutable std::mutex mutex_;
  std::map<std::string, Memory> memory_;
  std::map<std::string, std::shared_ptr<PodUsageCache>> podUsage_;  // by cluster
};

}  // namespace flotilla::controllers::cluster
