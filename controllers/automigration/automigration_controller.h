// The automigration controller (docs/design.md §5.7, §5.10; issue #14; seed 003). For bindings
// whose policy has spec.autoMigration: reads the pods of the workload's newest ReplicaSet on each
// member (from the member registry's caches, by the flotilla.io/binding label index), calls
// decide() (estimate.h) and writes status.autoMigration only when it changed. The scheduler turns a
// change into a MigrationSchedule. Requeued at the next threshold crossing or TTL expiry, never
// polled.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>

#include "api/flotilla_types.h"
#include "api/time.h"
#include "controllers/common/decoded_cache.h"
#include "controllers/common/member_registry.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers::automigration {

struct Informers {
  kube::SharedInformer& bindings;
  const kube::SharedInformer& policies;
  const kube::SharedInformer& clusterPolicies;
  const kube::SharedInformer& clusters;
};

class AutoMigrationController final : public kube::Reconciler {
 public:
  AutoMigrationController(kube::RestClient& host, boost::asio::any_io_executor executor,
                          Informers informers, MemberRegistry& members,
                          std::function<api::Clock::time_point()> wallClock = api::Clock::now);
  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  // Bindings whose spec changed (placement, replicas, or the policy's generation: autoMigration
  // turned on, off or retuned) and clusters whose resources changed (they may lift estimates).
  // Member pod events come through MemberEvents::workloadPodChanged and bindingsWithHash.
  void watch(kube::Controller& controller, kube::SharedInformer& bindings,
             kube::SharedInformer& clusters);
  // The binding keys whose flotilla.io/binding label value is `hash` (a member pod event).
  std::vector<std::string> bindingsWithHash(const std::string& hash) const;

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  Informers informers_;
  DecodedCache<api::FederatedCluster> decodedClusters_;
  MemberRegistry& members_;
  std::function<api::Clock::time_point()> wallClock_;
};

}  // namespace flotilla::controllers::automigration
