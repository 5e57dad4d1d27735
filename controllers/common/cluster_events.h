// Watches shared by the controllers that act per binding but depend on the clusters a binding is
// placed on (sync, status): a cluster whose Ready status changes re-queues those bindings.
#pragma once

#include <string>

#include "kube/cache/informer.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers {

// A FederatedCluster's Ready condition, read in place (no decoding: callers ask for every cluster
// of the fleet), or null when absent or malformed.
const boost::json::object* readyCondition(const boost::json::object& federatedCluster);
// The status of a FederatedCluster's Ready condition ("True", "False", "Unknown"), "" when absent
// or malformed.
std::string readyStatus(const boost::json::object& federatedCluster);

// The index of bindings by cluster: the clusters a binding is placed on, and those its replicas
// were failed over from (the schedule record's failedOver), so that a readiness change of either
// re-queues it. Each controller that reads the index registers it (idempotent): none depends on
// another having done so.
inline constexpr const char* kBindingsByClusterIndex = "cluster";
void addBindingsByClusterIndex(kube::SharedInformer& bindings);

// Re-queues every binding of `bindings` (registering the index above) placed on a cluster whose
// Ready status changed; status writes that only move resources or probe times do not.
void watchClusterReadiness(kube::Controller& controller, kube::SharedInformer& clusters,
                           kube::SharedInformer& bindings);

}  // namespace flotilla::controllers
