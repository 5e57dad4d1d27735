// The cluster controller's decisions (docs/design.md §5.1), as pure functions: how probe results
// settle into a readiness (hysteresis), and what FederatedCluster status and taints follow from
// what was observed. The reconciler around them probes the member, reads its caches, and writes
// only what these functions say changed.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "api/time.h"
#include "controllers/cluster/resources.h"

namespace flotilla::controllers::cluster {

// Set while the cluster is not Ready: no new replicas go there (NoSchedule).
inline constexpr const char* kNotReadyTaintKey = "cluster.flotilla.io/not-ready";
// Set once the cluster has been unreachable for the failover grace: its replicas move (NoExecute).
inline constexpr const char* kUnreachableTaintKey = "cluster.flotilla.io/unreachable";

enum class ProbeOutcome {
  kHealthy,      // /readyz (or /healthz) answered ok: Ready=True
  kUnhealthy,    // the member answered but is not ready, or refused our credentials/TLS (bad
                 // Secret, wrong CA, expired token): Ready=False
  kUnreachable,  // no answer (connection refused, timeout): Ready=Unknown
};

struct ProbeResult {
  ProbeOutcome outcome = ProbeOutcome::kHealthy;
  std::string message;
  bool operator==(const ProbeResult&) const = default;
};

// Probe hysteresis: the settled readiness flips only after `threshold` consecutive probes agree on
// a new outcome, so one lost probe does not flap a cluster.
struct ReadinessState {
  std::optional<ProbeResult> settled;  // nullopt: nothing settled yet (a new cluster)
  ProbeOutcome candidate = ProbeOutcome::kHealthy;
  int streak = 0;  // consecutive probes agreeing on `candidate` (which differs from settled)
  bool operator==(const ReadinessState&) const = default;
};

// The state implied by the stored Ready condition, so a restarted operator starts from what the
// API server says: True -> healthy, False -> unhealthy, Unknown -> unreachable (message from the
// condition); no Ready condition (or a status that is none of the three) -> nothing settled.
ReadinessState readinessFromStatus(const api::FederatedClusterStatus& status);

// Nothing settled: the first probe settles at once. Against a settled healthy state, failures of
// any kind count together (the latest one settles). Same outcome as settled: the streak resets to
// 0 and settled.message follows the latest probe. Different outcome: streak counts consecutive
// probes of that outcome (a different one restarts the count at 1); when it reaches `threshold`
// (threshold <= 1 means at once) settled becomes this probe and the streak resets.
ReadinessState observeProbe(ReadinessState state, const ProbeResult& probe, int threshold);

struct ClusterObservation {
  // The settled readiness (ReadinessState::settled); nullopt: not known yet, conditions untouched.
  std::optional<ProbeResult> readiness;
  std::optional<std::string> kubernetesVersion;                   // nullopt: keep stored
  std::optional<std::vector<api::APIEnablement>> apiEnablements;  // nullopt: keep stored
  std::optional<ResourceSummary> resources;  // nullopt: member caches not synced, keep stored
  bool probedNow = false;                    // a probe ran in this reconcile
};

struct ClusterDecision {
  api::FederatedClusterStatus status;  // the status that should be stored
  bool statusChanged = false;          // write status (only when it differs from current.status)
  std::vector<api::Taint> taints;      // desired spec.taints
  bool taintsChanged = false;          // write spec (only when it differs)
  std::optional<std::chrono::nanoseconds> recheckAfter;  // when the unreachable taint becomes due
  // The new Ready status ("True"/"False"/"Unknown") when it changed in this decision, else "".
  std::string readyTransition;
};

// The status and taints `current` should have given what was observed at `now`. Ready and Offline
// conditions follow observed.readiness; version, API enablements and resources are replaced when
// observed; lastProbeTime moves at most once a minute unless something else changed. Taints: the
// user's are kept in order, then not-ready (NoSchedule) while Ready is not "True", and unreachable
// (NoExecute) once Ready has been "Unknown" for `failoverGrace`.
ClusterDecision decideCluster(const api::FederatedCluster& current,
                              const ClusterObservation& observed, api::Clock::time_point now,
                              std::chrono::nanoseconds failoverGrace);

}  // namespace flotilla::controllers::cluster
