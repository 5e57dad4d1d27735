// How a StatefulSet and a Job are divided among clusters (docs/design.md §13; docs/operator.md
// "Kinds"): the object each cluster receives for its share of the replicas. Pure functions on
// JSON, tested by tables (workload_division_test.cc); the kinds' entries in kinds_workloads.cc
// use them.
//
// - A StatefulSet's share is its spec.replicas. Divided, the clusters number their pods one after
//   the other in cluster-name order, so that no two clusters run a pod of the same name: on a
//   member that serves spec.ordinals (Kubernetes 1.27 and later) the cluster's copy starts at
//   the replicas of the clusters before it (always written, the first cluster's too). An older
//   member is never sent the field: its pods start at 0, and the division says so (the binding's
//   message for that cluster and an Event). Duplicated, every cluster runs the whole set from the
//   template's own start.
// - A Job's share is its parallelism; completions are divided in the proportion of the shares,
//   largest remainders first and ties by cluster name, so the same placement always gives each
//   cluster the same part. A work-queue Job (no completions) divides only its parallelism. An
//   Indexed Job is not divided (each part would run the same indexes): it is Duplicated, and
//   placed on more than one cluster it is warned about (jobDuplicatedWarning).
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/flotilla_types.h"
#include "interpreter/interpreter.h"

namespace flotilla::interpreter {

// Whether a member of `kubernetesVersion` ("v1.27.3", "v1.32.0-flotilla-sim") serves a
// StatefulSet's spec.ordinals (the StatefulSetStartOrdinal feature, on by default from 1.27).
// An unknown version (empty, unparsable) is taken to serve it: every supported Kubernetes does.
bool servesStartOrdinal(std::string_view kubernetesVersion);

// The first ordinal of `share.cluster`'s pods: `templateStart` plus the replicas of the clusters
// before it in name order.
int64_t ordinalStart(const Share& share, int64_t templateStart);

std::optional<int32_t> statefulSetReplicas(const boost::json::object& statefulSet);
std::string reviseStatefulSet(boost::json::object& statefulSet, const Share& share);

// `total` divided in proportion to each cluster's replicas in `placement` (largest remainder,
// ties by cluster name). Every cluster of `placement` has an entry.
std::map<std::string, int64_t> divideInProportion(int64_t total,
                                                  const std::vector<api::TargetCluster>& placement);

// A Job's replicas: its parallelism (at most its completions); none for an Indexed Job.
std::optional<int32_t> jobReplicas(const boost::json::object& job);
std::string reviseJob(boost::json::object& job, const Share& share);
// Server-set fields of a host Job that no member accepts: the selector and the pod template's
// labels the host's API server generated from the host Job's uid (unless manualSelector).
void pruneJob(boost::json::object& job);
// A member Job's completions are immutable: the live value stays (a division that changes after
// a part was created does not reach it). (Its selector is never sent: pruneJob.)
void retainJob(boost::json::object& desired, const boost::json::object& live);
std::string jobDuplicatedWarning(const boost::json::object& job);

}  // namespace flotilla::interpreter
