// How many more replicas of a workload a cluster can run (docs/design.md §4.5, seed 000).
#pragma once

#include <cstdint>

#include "api/flotilla_types.h"

namespace flotilla::scheduler {

// min over requested resources of (allocatable - allocated - allocating) / request, compared in
// milli-units (so 100m CPU requests count exactly), bounded by the pods the cluster can still take.
// A cluster lacking a requested resource can run 0; requests of zero are ignored. No requests at
// all: bounded by pods only. Unknown capacity (nothing reported, or no requests and no pods
// entry) is 0, never unlimited.
// The scheduler itself uses the snapshot form (framework/snapshot.h); this is the same rule.
int64_t availableReplicas(const api::ClusterResources& resources,
                          const api::ResourceList& perReplica);

// allocatable - allocated - allocating for one resource; nullopt when not allocatable at all.
std::optional<api::Quantity> availableResource(const api::ClusterResources& resources,
                                               const std::string& name);

}  // namespace flotilla::scheduler
