// What the operator keeps of a member's Pods and ReplicaSets in its caches (controller-runtime's
// cache transforms): only the fields a controller reads. A member's pods are the most numerous
// objects the operator watches, and most of a pod (container images, env, volumes, container
// statuses) is read by nobody here, so trimming them is most of the operator's memory per
// workload.
//
// Read by: the cluster controller (resources: spec.nodeName, containers' and initContainers'
// resources, overhead, status.phase), auto-migration (ownerReferences, deletionTimestamp,
// spec.nodeName, status.conditions) and the binding-hash indexes (metadata.labels); of
// ReplicaSets, auto-migration reads metadata (uid, ownerReferences, the revision annotation,
// labels).
#pragma once

#include <boost/json/fwd.hpp>

namespace flotilla::controllers {

void trimPod(boost::json::object& pod);
void trimReplicaSet(boost::json::object& replicaSet);

}  // namespace flotilla::controllers
