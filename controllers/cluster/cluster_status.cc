#include "controllers/cluster/cluster_status.h"

#include <algorithm>
#include <boost/json/value.hpp>

#include "api/conditions.h"
#include "api/json_codec.h"

namespace flotilla::controllers::cluster {
namespace {

using std::chrono::nanoseconds;

constexpr const char* kReady = "Ready";
constexpr const char* kOffline = "Offline";
// A steady fleet refreshes lastProbeTime at most this often: each write is an API call and a
// watch event for every client of FederatedClusters.
constexpr auto kProbeTimeRefresh = std::chrono::seconds(60);

// The JSON the API server would store, for comparison. Only whole kinds have codec instantiations
// (api/codec_flotilla.cc), so the status travels inside an otherwise empty FederatedCluster.
boost::json::value encodeStatus(const api::FederatedClusterStatus& status) {
  api::FederatedCluster holder;
  holder.status = status;
  return api::encode(holder);
}

std::string readyStatus(const api::FederatedClusterStatus& status) {
  const api::Condition* c = api::findCondition(status.conditions, kReady);
  return c ? c->status : "";
}

void setReadiness(api::FederatedClusterStatus& status, const ProbeResult& probe, int64_t generation,
                  const std::string& now) {
  switch (probe.outcome) {
    case ProbeOutcome::kHealthy:
      api::setCondition(status.conditions, kReady, "True", "ClusterReady",
                        "cluster is reachable and ready", generation, now);
      break;
    case ProbeOutcome::kUnhealthy:
      api::setCondition(status.conditions, kReady, "False", "ClusterNotReady", probe.message,
                        generation, now);
      break;
    case ProbeOutcome::kUnreachable:
      api::setCondition(status.conditions, kReady, "Unknown", "ClusterNotReachable", probe.message,
                        generation, now);
      break;
  }
  if (probe.outcome == ProbeOutcome::kUnreachable) {
    api::setCondition(status.conditions, kOffline, "True", "ClusterNotReachable", probe.message,
                      generation, now);
  } else {
    api::setCondition(status.conditions, kOffline, "False", "ClusterReachable",
                      "cluster is reachable", generation, now);
  }
}

// Whether the stored lastProbeTime is stale enough to refresh. An empty or malformed time, or one
// in the future (a clock that jumped back), is refreshed at once: otherwise it could block every
// refresh until the clock catches up.
bool probeTimeStale(const std::string& stored, api::Clock::time_point now) {
  std::optional<api::Clock::time_point> last = api::parseRfc3339(stored);
  if (!last || *last > now) return true;
  return now - *last >= kProbeTimeRefresh;
}

bool isFlotillaTaint(const api::Taint& taint) {
  return taint.key == kNotReadyTaintKey || taint.key == kUnreachableTaintKey;
}

// Our taint with its original timeAdded when `current` already has it, so the time keeps saying
// since when the cluster has been tainted; a new one is stamped `now`.
api::Taint flotillaTaint(const std::vector<api::Taint>& current, const char* key,
                         const char* effect, const std::string& now) {
  for (const auto& t : current) {
    if (t.key == key && t.effect == effect) return {key, "", effect, t.timeAdded};
  }
  return {key, "", effect, now};
}

}  // namespace

ReadinessState readinessFromStatus(const api::FederatedClusterStatus& status) {
  ReadinessState state;
  const api::Condition* ready = api::findCondition(status.conditions, kReady);
  if (!ready) return state;
  ProbeOutcome outcome;
  if (ready->status == "True") {
    outcome = ProbeOutcome::kHealthy;
  } else if (ready->status == "False") {
    outcome = ProbeOutcome::kUnhealthy;
  } else if (ready->status == "Unknown") {
    outcome = ProbeOutcome::kUnreachable;
  } else {
    return state;  // not a status we write: let the next probe settle afresh
  }
  state.settled = ProbeResult{outcome, ready->message};
  state.candidate = outcome;
  return state;
}

ReadinessState observeProbe(ReadinessState state, const ProbeResult& probe, int threshold) {
  // A streak of 0 leaves `candidate` meaningless; keeping it equal to the settled outcome keeps
  // states that mean the same thing equal.
  auto settle = [&] {
    state.settled = probe;
    state.candidate = probe.outcome;
    state.streak = 0;
  };
  if (!state.settled) {
    settle();
  } else if (probe.outcome == state.settled->outcome) {
    state.settled->message = probe.message;
    state.candidate = probe.outcome;
    state.streak = 0;
  } else {
    // Against a healthy cluster every failed probe counts, whatever kind of failure it is: a
    // member that alternates "refused" and "/readyz 500" while it crash-loops is not ready.
    const bool bothFailures = state.settled->outcome == ProbeOutcome::kHealthy &&
                              state.candidate != ProbeOutcome::kHealthy &&
                              probe.outcome != ProbeOutcome::kHealthy;
    if (state.streak > 0 && (state.candidate == probe.outcome || bothFailures)) {
      ++state.streak;
      state.candidate = probe.outcome;
    } else {
      state.candidate = probe.outcome;
      state.streak = 1;
    }
    if (state.streak >= threshold) settle();
  }
  return state;
}

ClusterDecision decideCluster(const api::FederatedCluster& current,
                              const ClusterObservation& observed, api::Clock::time_point now,
                              nanoseconds failoverGrace) {
  const std::string nowText = api::formatRfc3339(now);
  const api::FederatedClusterStatus& before = current.status;
  ClusterDecision d;
  d.status = before;
  api::FederatedClusterStatus& s = d.status;

  if (observed.readiness) {
    setReadiness(s, *observed.readiness, current.metadata.generation, nowText);
  }
  if (observed.kubernetesVersion) s.kubernetesVersion = *observed.kubernetesVersion;
  if (observed.apiEnablements) s.apiEnablements = *observed.apiEnablements;
  if (observed.resources) {
    s.resources = observed.resources->resources;
    s.nodeSummary = observed.resources->nodes;
  }

  const boost::json::value beforeJson = encodeStatus(before);
  boost::json::value afterJson = encodeStatus(s);
  // lastProbeTime alone is not worth a write on every probe: it rides along with real changes
  // and is otherwise refreshed once a minute, enough to tell a live controller from a dead one.
  if (observed.probedNow &&
      (afterJson != beforeJson || probeTimeStale(before.lastProbeTime, now))) {
    s.lastProbeTime = nowText;
    afterJson = encodeStatus(s);
  }
  d.statusChanged = afterJson != beforeJson;

  const std::string ready = readyStatus(s);
  if (ready != readyStatus(before)) d.readyTransition = ready;

  for (const auto& t : current.spec.taints) {
    if (!isFlotillaTaint(t)) d.taints.push_back(t);
  }
  if (ready != "True") {
    d.taints.push_back(flotillaTaint(current.spec.taints, kNotReadyTaintKey,
                                     api::taint_effect::kNoSchedule, nowText));
  }
  if (ready == "Unknown") {
    // Measured from when Ready last changed, so a restarted operator (or a status written by
    // another replica) keeps counting instead of starting the grace over. A transition time we
    // cannot read cannot be waited for: the grace counts as elapsed.
    const api::Condition* c = api::findCondition(s.conditions, kReady);
    std::optional<api::Clock::time_point> since = api::parseRfc3339(c->lastTransitionTime);
    nanoseconds unreachableFor = since ? nanoseconds(now - *since) : failoverGrace;
    if (unreachableFor >= failoverGrace) {
      d.taints.push_back(flotillaTaint(current.spec.taints, kUnreachableTaintKey,
                                       api::taint_effect::kNoExecute, nowText));
    } else {
      d.recheckAfter = failoverGrace - unreachableFor;
    }
  }
  d.taintsChanged = d.taints != current.spec.taints;
  return d;
}

}  // namespace flotilla::controllers::cluster
