// The status controller (docs/design.md §5.6; issue #11): member Deployment status → the
// FederatedDeployment's status, the ResourceBinding's aggregatedStatus, and the status of the host
// Deployment the workload came from. The decision is aggregate() (aggregate.h); this reconciler
// reads the caches (member Deployments through the member registry) and writes each status only
// when it changed. Member events are coalesced: a burst for one workload is one reconcile.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <functional>

#include "api/time.h"
#include "controllers/common/member_registry.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers::status {

struct Informers {
  const kube::SharedInformer& federatedDeployments;
  const kube::SharedInformer& bindings;
  const kube::SharedInformer& deployments;
  const kube::SharedInformer& clusters;
};

class StatusController final : public kube::Reconciler {
 public:
  StatusController(kube::RestClient& host, boost::asio::any_io_executor executor,
                   Informers informers, MemberRegistry& members,
                   std::function<api::Clock::time_point()> wallClock = api::Clock::now);
  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  // Binding changes (placement, sync's progress) are aggregated `coalesce` after the first one:
  // a new binding is scheduled and applied within a few hundred milliseconds, and one aggregation
  // after both is one write of each status instead of one per step.
  void watch(kube::Controller& controller, kube::SharedInformer& federatedDeployments,
             kube::SharedInformer& bindings, kube::SharedInformer& deployments,
             kube::SharedInformer& clusters, std::chrono::nanoseconds coalesce);

 private:
  bool clusterReady(const std::string& cluster) const;

  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  Informers informers_;
  MemberRegistry& members_;
  std::function<api::Clock::time_point()> wallClock_;
};

}  // namespace flotilla::controllers::status
