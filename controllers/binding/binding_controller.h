// The binding controller (docs/design.md §5.3): FederatedDeployment + the policy that wins → a
// ResourceBinding of the same name, owned by the FederatedDeployment; a FederatedObject the same
// way. The decision is
// decideBinding (binding.h); spec.clusters is the scheduler's and is never written here.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>

#include "api/time.h"
#include "controllers/common/policies.h"
#include "controllers/dependencies/follower_index.h"
#include "kube/controller/controller.h"
#include "kube/events/event_recorder.h"

namespace flotilla::controllers::binding {

struct Informers {
  const kube::SharedInformer& federatedDeployments;
  const kube::SharedInformer& bindings;
  const kube::SharedInformer& policies;
  const kube::SharedInformer& clusterPolicies;
  // FederatedObjects (any kind but Deployments): bound the same way, to a ResourceBinding of the
  // same name. Null: FederatedDeployments only.
  const kube::SharedInformer* federatedObjects = nullptr;
  // ClusterFederatedObjects, bound to ClusterResourceBindings (keys without a namespace).
  const kube::SharedInformer* clusterFederatedObjects = nullptr;
  const kube::SharedInformer* clusterBindings = nullptr;
  // Which objects follow workloads (docs/design.md §12), for spec.requiredBy. Null: none do.
  const dependencies::FollowerIndex* followers = nullptr;
};

// The watch of the bindings this controller wrote: an update passes when the spec changed outside
// the scheduler's spec.clusters, or when a binding whose policy is gone (PolicyBound not True, its
// message naming the placement kept) was placed anew; a creation (its own) does not.
kube::Predicate ownBindingChanged();

class BindingController final : public kube::Reconciler {
 public:
  BindingController(kube::RestClient& host, boost::asio::any_io_executor executor,
                    Informers informers, kube::EventRecorder& events,
                    std::function<api::Clock::time_point()> wallClock = api::Clock::now,
                    policy::ReservedNamespaces reserved = {});
  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  void watch(kube::Controller& controller, kube::SharedInformer& federatedDeployments,
             kube::SharedInformer& bindings, kube::SharedInformer& policies,
             kube::SharedInformer& clusterPolicies);
  void watchObjects(kube::Controller& controller, kube::SharedInformer& federatedObjects,
                    kube::SharedInformer& bindings, kube::SharedInformer& policies,
                    kube::SharedInformer& clusterPolicies);
  // With informers.followers: a follower's requirements are looked at again when a workload
  // needing it moves (its binding's clusters or copies) or changes what it needs.
  void watchFollowers(kube::Controller& controller, kube::SharedInformer& bindings,
                      kube::SharedInformer& federatedDeployments,
                      kube::SharedInformer& federatedObjects);
  void watchClusterObjects(kube::Controller& controller,
                           kube::SharedInformer& clusterFederatedObjects,
                           kube::SharedInformer& clusterBindings,
                           kube::SharedInformer& clusterPolicies);

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  Informers informers_;
  PolicyDecodeCache decodedPolicies_;
  kube::EventRecorder& events_;
  std::function<api::Clock::time_point()> wallClock_;
  policy::ReservedNamespaces reserved_;
};

}  // namespace flotilla::controllers::binding
