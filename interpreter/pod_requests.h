// What one pod asks of a node, computed as Kubernetes computes it for scheduling: the larger of
// the biggest init container and the sum of the app containers, per resource, plus the pod's
// overhead (RuntimeClass). Used for a workload's per-replica requests (ResourceBinding) and for
// what running pods take from a member cluster (FederatedCluster.status.resources).
#pragma once

#include "api/core_types.h"
#include "api/flotilla_types.h"

namespace flotilla::interpreter {

api::ResourceList podRequests(const api::PodSpec& spec);

// a += b, per resource.
void addResources(api::ResourceList& a, const api::ResourceList& b);

// What one replica of a pod template needs: resourceRequest = podRequests(pod.spec), its
// nodeSelector and tolerations (ResourceBinding.spec.replicaRequirements).
api::ReplicaRequirements replicaRequirements(const api::PodTemplateSpec& pod);

}  // namespace flotilla::interpreter
