// The federate controller (docs/design.md §5.2): a host Deployment that asks for Flotilla (policy
// label) or is selected by a policy becomes a FederatedDeployment it owns; template changes follow;
// it goes when the Deployment no longer asks. The decision is decideFederated (federate.h).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "controllers/common/policies.h"
#include "kube/controller/controller.h"
#include "kube/events/event_recorder.h"

namespace flotilla::controllers::federate {

struct Informers {
  const kube::SharedInformer& deployments;
  const kube::SharedInformer& federatedDeployments;
  const kube::SharedInformer& policies;
  const kube::SharedInformer& clusterPolicies;
};

class FederateController final : public kube::Reconciler {
 public:
  FederateController(kube::RestClient& host, boost::asio::any_io_executor executor,
                     Informers informers, kube::EventRecorder& events,
                     policy::ReservedNamespaces reserved = {});
  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  // Registers the controller's watches (before the informers start).
  void watch(kube::Controller& controller, kube::SharedInformer& deployments,
             kube::SharedInformer& federatedDeployments, kube::SharedInformer& policies,
             kube::SharedInformer& clusterPolicies);

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  Informers informers_;
  PolicyDecodeCache decodedPolicies_;
  kube::EventRecorder& events_;
  policy::ReservedNamespaces reserved_;
};

}  // namespace flotilla::controllers::federate
