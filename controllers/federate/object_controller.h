// The federate controller for any kind but Deployments (docs/design.md §5.2, §11): a host object a
// policy governs becomes a FederatedObject (namespaced) or ClusterFederatedObject (cluster-scoped)
// it owns, named <name>-<kind>; its template follows the object; it goes when no policy governs
// the object. The decision is decideFederatedObject (federate_object.h).
//
// Keys are ObjectKey text ("ConfigMap/v1:demo/settings"); the key kKindsKey recomputes which
// kinds the host is watched for (source_kinds.h) whenever a policy changes.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "controllers/common/policies.h"
#include "controllers/dependencies/follower_index.h"
#include "controllers/federate/source_informers.h"
#include "kube/controller/controller.h"
#include "kube/events/event_recorder.h"

namespace flotilla::controllers::federate {

inline constexpr const char* kKindsKey = "#kinds";

struct ObjectInformers {
  const kube::SharedInformer& federatedObjects;
  const kube::SharedInformer& clusterFederatedObjects;
  const kube::SharedInformer& policies;
  const kube::SharedInformer& clusterPolicies;
};

struct ObjectControllerOptions {
  policy::ReservedNamespaces reserved;
  // A kind a policy names that the host does not serve is looked up again this often (a CRD
  // created later is picked up).
  std::chrono::nanoseconds unservedRetry = std::chrono::seconds(10);
  // Which objects follow workloads (docs/design.md §12); null: none do.
  const dependencies::FollowerIndex* followers = nullptr;
};

class FederateObjectController final : public kube::Reconciler {
 public:
  FederateObjectController(kube::RestClient& host, boost::asio::any_io_executor executor,
                           ObjectInformers informers, SourceInformers& sources,
                           kube::EventRecorder& events, ObjectControllerOptions options = {});
  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  // Registers the controller's watches (before the informers start).
  void watch(kube::Controller& controller, kube::SharedInformer& federatedObjects,
             kube::SharedInformer& clusterFederatedObjects, kube::SharedInformer& policies,
             kube::SharedInformer& clusterPolicies);
  // With options.followers: what a workload needs is looked at again when its placement, its
  // copies or its template change (before and after the change).
  void watchLeaders(kube::Controller& controller, kube::SharedInformer& bindings,
                    kube::SharedInformer& federatedDeployments,
                    kube::SharedInformer& federatedObjects);

 private:
  api::Result<kube::ReconcileResult> reconcileKinds();
  kube::MapFunc mapPolicyToSources() const;

  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  ObjectInformers informers_;
  SourceInformers& sources_;
  PolicyDecodeCache decodedPolicies_;
  kube::EventRecorder& events_;
  ObjectControllerOptions options_;
};

}  // namespace flotilla::controllers::federate
