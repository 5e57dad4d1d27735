#include "controllers/cluster/cluster_status.h"

#include <gtest/gtest.h>

#include "api/conditions.h"

namespace flotilla::controllers::cluster {
namespace {

using namespace std::chrono_literals;
using enum ProbeOutcome;
using std::chrono::nanoseconds;
using std::chrono::seconds;

const api::Clock::time_point kT0 = *api::parseRfc3339("2026-11-01T10:00:00Z");
constexpr nanoseconds kGrace = 60s;

std::string at(seconds offset) { return api::formatRfc3339(kT0 + offset); }

const char* name(ProbeOutcome o) {
  switch (o) {
    case ProbeOutcome::kHealthy:
      return "healthy";
    case ProbeOutcome::kUnhealthy:
      return "unhealthy";
    case ProbeOutcome::kUnreachable:
      return "unreachable";
  }
  return "?";
}
std::string settledName(const ReadinessState& s) {
  return s.settled ? name(s.settled->outcome) : "none";
}

ProbeResult healthy() { return {ProbeOutcome::kHealthy, "ok"}; }
ProbeResult unhealthy(std::string message = "readyz: 500 etcd not ready") {
  return {ProbeOutcome::kUnhealthy, std::move(message)};
}
ProbeResult unreachable(std::string message = "dial tcp 10.0.0.1:6443: connect: refused") {
  return {ProbeOutcome::kUnreachable, std::move(message)};
}

api::FederatedCluster cluster() {
  api::FederatedCluster c;
  c.metadata.name = "member1";
  c.metadata.generation = 3;
  c.spec.apiEndpoint = "https://member1:6443";
  return c;
}

// What the reconciler does with a decision: write status and spec.
void apply(api::FederatedCluster& c, const ClusterDecision& d) {
  c.status = d.status;
  c.spec.taints = d.taints;
}

ClusterObservation probed(ProbeResult readiness) {
  ClusterObservation o;
  o.readiness = std::move(readiness);
  o.probedNow = true;
  return o;
}

const api::Condition& condition(const api::FederatedClusterStatus& s, const char* type) {
  static const api::Condition kMissing{"<missing>", "", 0, "", "", ""};
  const api::Condition* c = api::findCondition(s.conditions, type);
  return c ? *c : kMissing;
}

std::vector<std::string> taintStrs(const std::vector<api::Taint>& taints) {
  std::vector<std::string> out;
  for (const auto& t : taints) out.push_back(t.str());
  return out;
}

const api::Taint* findTaint(const std::vector<api::Taint>& taints, const char* key) {
  for (const auto& t : taints) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

// ---- hysteresis ----

struct HysteresisCase {
  std::string name;
  std::optional<ProbeOutcome> settled;  // the starting state; nullopt: nothing settled
  int threshold;
  std::vector<ProbeOutcome> probes;
  std::vector<std::string> settledAfter;  // settledName() after each probe
  std::vector<int> streakAfter;
};

class HysteresisTest : public ::testing::TestWithParam<HysteresisCase> {};

TEST_P(HysteresisTest, Sequence) {
  const HysteresisCase& c = GetParam();
  ASSERT_EQ(c.probes.size(), c.settledAfter.size());
  ASSERT_EQ(c.probes.size(), c.streakAfter.size());
  ReadinessState state;
  if (c.settled) state.settled = ProbeResult{*c.settled, "initial"};
  for (size_t i = 0; i < c.probes.size(); ++i) {
    state = observeProbe(state, {c.probes[i], "probe " + std::to_string(i)}, c.threshold);
    EXPECT_EQ(settledName(state), c.settledAfter[i]) << "after probe " << i;
    EXPECT_EQ(state.streak, c.streakAfter[i]) << "after probe " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, HysteresisTest,
    ::testing::Values(
        HysteresisCase{
            "FirstProbeSettlesAtOnce", std::nullopt, 3, {kUnreachable}, {"unreachable"}, {0}},
        HysteresisCase{
            "FirstHealthyProbeSettlesAtOnce", std::nullopt, 3, {kHealthy}, {"healthy"}, {0}},
        HysteresisCase{"OneLostProbeDoesNotFlip",
                       kHealthy,
                       3,
                       {kUnreachable, kHealthy},
                       {"healthy", "healthy"},
                       {1, 0}},
        HysteresisCase{"ThreeLostProbesFlip",
                       kHealthy,
                       3,
                       {kUnreachable, kUnreachable, kUnreachable, kUnreachable},
                       {"healthy", "healthy", "unreachable", "unreachable"},
                       {1, 2, 0, 0}},
        HysteresisCase{
            "InterruptedStreakRestarts",
            kHealthy,
            3,
            {kUnreachable, kUnreachable, kHealthy, kUnreachable, kUnreachable, kUnreachable},
            {"healthy", "healthy", "healthy", "healthy", "healthy", "unreachable"},
            {1, 2, 0, 1, 2, 0}},
        // Against a healthy cluster failures of every kind count together (a crash-looping
        // member alternates them); the latest settles.
        HysteresisCase{"FailuresOfAnyKindCountTogetherAgainstHealthy",
                       kHealthy,
                       3,
                       {kUnreachable, kUnhealthy, kUnreachable},
                       {"healthy", "healthy", "unreachable"},
                       {1, 2, 0}},
        // Between two failure kinds, a change restarts the count.
        HysteresisCase{"AnotherFailureKindRestartsTheCountAtOne",
                       kUnreachable,
                       3,
                       {kUnhealthy, kUnhealthy, kHealthy, kUnhealthy, kUnhealthy, kUnhealthy},
                       {"unreachable", "unreachable", "unreachable", "unreachable", "unreachable",
                        "unhealthy"},
                       {1, 2, 1, 1, 2, 0}},
        HysteresisCase{"RecoveryNeedsTheThresholdToo",
                       kUnreachable,
                       2,
                       {kHealthy, kUnreachable, kHealthy, kHealthy},
                       {"unreachable", "unreachable", "unreachable", "healthy"},
                       {1, 0, 1, 0}},
        HysteresisCase{"ThresholdOneFlipsAtOnce",
                       kHealthy,
                       1,
                       {kUnreachable, kUnhealthy, kHealthy},
                       {"unreachable", "unhealthy", "healthy"},
                       {0, 0, 0}},
        HysteresisCase{
            "ThresholdZeroFlipsAtOnce", kHealthy, 0, {kUnreachable}, {"unreachable"}, {0}}),
    [](const auto& info) { return info.param.name; });

TEST(ObserveProbeTest, SameOutcomeUpdatesTheMessage) {
  ReadinessState state;
  state = observeProbe(state, unhealthy("readyz: 500 etcd"), 3);
  state = observeProbe(state, unreachable(), 3);  // a streak of 1 towards unreachable
  ASSERT_EQ(state.streak, 1);
  state = observeProbe(state, unhealthy("readyz: 401 Unauthorized"), 3);
  ASSERT_TRUE(state.settled);
  EXPECT_EQ(*state.settled, unhealthy("readyz: 401 Unauthorized"));
  EXPECT_EQ(state.streak, 0);
}

TEST(ObserveProbeTest, TheSettlingProbeProvidesTheMessage) {
  ReadinessState state;
  state.settled = healthy();
  state = observeProbe(state, unreachable("timeout 1"), 2);
  state = observeProbe(state, unreachable("timeout 2"), 2);
  ASSERT_TRUE(state.settled);
  EXPECT_EQ(*state.settled, unreachable("timeout 2"));
}

struct FromStatusCase {
  std::string name;
  std::optional<std::string> readyStatus;  // nullopt: no Ready condition
  std::optional<ProbeOutcome> settled;
};

class ReadinessFromStatusTableTest : public ::testing::TestWithParam<FromStatusCase> {};

TEST_P(ReadinessFromStatusTableTest, FromReadyCondition) {
  const FromStatusCase& c = GetParam();
  api::FederatedClusterStatus status;
  status.conditions.push_back({"Offline", "False", 1, at(0s), "ClusterReachable", "x"});
  if (c.readyStatus) {
    status.conditions.push_back({"Ready", *c.readyStatus, 1, at(0s), "Reason", "stored message"});
  }
  const ReadinessState state = readinessFromStatus(status);
  EXPECT_EQ(state.streak, 0);
  if (!c.settled) {
    EXPECT_FALSE(state.settled);
    return;
  }
  ASSERT_TRUE(state.settled);
  EXPECT_EQ(*state.settled, (ProbeResult{*c.settled, "stored message"}));
}

INSTANTIATE_TEST_SUITE_P(Cases, ReadinessFromStatusTableTest,
                         ::testing::Values(FromStatusCase{"True", "True", kHealthy},
                                           FromStatusCase{"False", "False", kUnhealthy},
                                           FromStatusCase{"Unknown", "Unknown", kUnreachable},
                                           FromStatusCase{"NoReadyCondition", std::nullopt,
                                                          std::nullopt},
                                           FromStatusCase{"Garbage", "Maybe", std::nullopt}),
                         [](const auto& info) { return info.param.name; });

TEST(ReadinessFromStatusTest, RestartedOperatorKeepsTheSettledState) {
  // A cluster settled unreachable; after a restart one healthy probe is not enough to flip it.
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unreachable()), kT0, kGrace));
  ReadinessState state = readinessFromStatus(c.status);
  state = observeProbe(state, healthy(), 3);
  EXPECT_EQ(settledName(state), "unreachable");
  EXPECT_EQ(state.settled->message, unreachable().message);
}

// The reconciler's loop on a fake clock: probe every 10 s, threshold 3, 60 s failover grace.
TEST(ClusterLifecycleTest, OutageAndRecoveryOnAFakeClock) {
  api::FederatedCluster c = cluster();
  c.spec.taints.push_back({"dedicated", "gpu", "NoSchedule", ""});
  api::Clock::time_point now = kT0;
  ReadinessState state = readinessFromStatus(c.status);

  struct Step {
    seconds when;  // since kT0
    ProbeOutcome probe;
    std::string ready;       // Ready status after the step
    std::string transition;  // readyTransition
    std::vector<std::string> taints;
    std::optional<nanoseconds> recheckAfter;
  };
  const std::string user = "dedicated=gpu:NoSchedule";
  const std::string notReady = "cluster.flotilla.io/not-ready:NoSchedule";
  const std::string evict = "cluster.flotilla.io/unreachable:NoExecute";
  const std::vector<Step> steps = {
      {10s, kHealthy, "True", "True", {user}, std::nullopt},  // the first probe settles at once
      {20s, kUnreachable, "True", "", {user}, std::nullopt},
      {30s, kUnreachable, "True", "", {user}, std::nullopt},
      {40s, kUnreachable, "Unknown", "Unknown", {user, notReady}, 60s},  // third lost probe
      {50s, kUnreachable, "Unknown", "", {user, notReady}, 50s},
      {90s, kUnreachable, "Unknown", "", {user, notReady}, 10s},
      {100s, kUnreachable, "Unknown", "", {user, notReady, evict}, std::nullopt},  // grace over
      {110s, kHealthy, "Unknown", "", {user, notReady, evict}, std::nullopt},
      {120s, kHealthy, "Unknown", "", {user, notReady, evict}, std::nullopt},
      {130s, kHealthy, "True", "True", {user}, std::nullopt},
  };
  for (const Step& step : steps) {
    now = kT0 + step.when;  // the fake clock moves forward only
    state = observeProbe(state, {step.probe, name(step.probe)}, 3);
    ClusterObservation o;
    o.readiness = state.settled;
    o.probedNow = true;
    const ClusterDecision d = decideCluster(c, o, now, kGrace);
    SCOPED_TRACE("at +" + std::to_string(step.when.count()) + "s");
    EXPECT_EQ(condition(d.status, "Ready").status, step.ready);
    EXPECT_EQ(d.readyTransition, step.transition);
    EXPECT_EQ(taintStrs(d.taints), step.taints);
    EXPECT_EQ(d.recheckAfter, step.recheckAfter);
    apply(c, d);
  }
  // The Ready condition went True at t=10, Unknown at t=40, True again at t=130.
  EXPECT_EQ(condition(c.status, "Ready").lastTransitionTime, at(130s));
}

// ---- conditions ----

struct ConditionCase {
  std::string name;
  ProbeResult probe;
  api::Condition ready;
  api::Condition offline;
};

class ConditionsTableTest : public ::testing::TestWithParam<ConditionCase> {};

TEST_P(ConditionsTableTest, FromSettledReadiness) {
  const ConditionCase& c = GetParam();
  const ClusterDecision d = decideCluster(cluster(), probed(c.probe), kT0, kGrace);
  EXPECT_EQ(condition(d.status, "Ready"), c.ready);
  EXPECT_EQ(condition(d.status, "Offline"), c.offline);
  EXPECT_EQ(d.readyTransition, c.ready.status);
  EXPECT_TRUE(d.statusChanged);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConditionsTableTest,
    ::testing::Values(
        ConditionCase{
            "Healthy",
            healthy(),
            {"Ready", "True", 3, at(0s), "ClusterReady", "cluster is reachable and ready"},
            {"Offline", "False", 3, at(0s), "ClusterReachable", "cluster is reachable"}},
        ConditionCase{"Unhealthy",
                      unhealthy("x509: certificate signed by unknown authority"),
                      {"Ready", "False", 3, at(0s), "ClusterNotReady",
                       "x509: certificate signed by unknown authority"},
                      {"Offline", "False", 3, at(0s), "ClusterReachable", "cluster is reachable"}},
        ConditionCase{"Unreachable",
                      unreachable("i/o timeout"),
                      {"Ready", "Unknown", 3, at(0s), "ClusterNotReachable", "i/o timeout"},
                      {"Offline", "True", 3, at(0s), "ClusterNotReachable", "i/o timeout"}}),
    [](const auto& info) { return info.param.name; });

TEST(ConditionsTest, MessageChangeKeepsTheTransitionTime) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unhealthy("readyz: 500")), kT0, kGrace));
  const ClusterDecision d = decideCluster(c, probed(unhealthy("readyz: 503")), kT0 + 30s, kGrace);
  EXPECT_TRUE(d.statusChanged);
  EXPECT_EQ(d.readyTransition, "");
  EXPECT_EQ(condition(d.status, "Ready").message, "readyz: 503");
  EXPECT_EQ(condition(d.status, "Ready").lastTransitionTime, at(0s));
  EXPECT_EQ(condition(d.status, "Offline").lastTransitionTime, at(0s));
  EXPECT_FALSE(d.taintsChanged);
}

TEST(ConditionsTest, TransitionMovesTheTransitionTime) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(healthy()), kT0, kGrace));
  const ClusterDecision d = decideCluster(c, probed(unreachable()), kT0 + 30s, kGrace);
  EXPECT_EQ(d.readyTransition, "Unknown");
  EXPECT_EQ(condition(d.status, "Ready").lastTransitionTime, at(30s));
  EXPECT_EQ(condition(d.status, "Offline").status, "True");
  EXPECT_EQ(condition(d.status, "Offline").lastTransitionTime, at(30s));
}

TEST(ConditionsTest, ObservedGenerationFollowsTheObject) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(healthy()), kT0, kGrace));
  c.metadata.generation = 4;  // spec edited
  const ClusterDecision d = decideCluster(c, probed(healthy()), kT0 + 5s, kGrace);
  EXPECT_TRUE(d.statusChanged);
  EXPECT_EQ(condition(d.status, "Ready").observedGeneration, 4);
  EXPECT_EQ(condition(d.status, "Ready").lastTransitionTime, at(0s));
}

TEST(ConditionsTest, UnknownReadinessLeavesConditionsAlone) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unhealthy()), kT0, kGrace));
  const ClusterDecision d = decideCluster(c, ClusterObservation{}, kT0 + 5min, kGrace);
  EXPECT_EQ(d.status.conditions, c.status.conditions);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.readyTransition, "");
}

TEST(ConditionsTest, OtherConditionsAreKept) {
  api::FederatedCluster c = cluster();
  c.status.conditions.push_back({"Custom", "True", 1, at(-100s), "Mine", ""});
  const ClusterDecision d = decideCluster(c, probed(healthy()), kT0, kGrace);
  ASSERT_EQ(d.status.conditions.size(), 3u);
  EXPECT_EQ(d.status.conditions[0], c.status.conditions[0]);
}

// ---- observed fields ----

TEST(ObservedFieldsTest, ReplacedWhenObservedKeptOtherwise) {
  api::FederatedCluster c = cluster();
  c.status.kubernetesVersion = "v1.29.1";
  c.status.apiEnablements = {{"v1", {{"pods", "Pod"}}}};
  c.status.resources.allocatable = {{"cpu", api::Quantity::fromUnits(4)}};
  c.status.nodeSummary = {3, 3};

  ClusterDecision d = decideCluster(c, ClusterObservation{}, kT0, kGrace);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.status.kubernetesVersion, "v1.29.1");
  EXPECT_EQ(d.status.apiEnablements.size(), 1u);
  EXPECT_EQ(d.status.nodeSummary.total, 3);
  EXPECT_EQ(d.status.resources.allocatable.at("cpu"), api::Quantity::fromUnits(4));

  ClusterObservation o;
  o.kubernetesVersion = "v1.30.0";
  o.apiEnablements = std::vector<api::APIEnablement>{{"apps/v1", {{"deployments", "Deployment"}}},
                                                     {"v1", {{"pods", "Pod"}}}};
  ResourceSummary summary;
  summary.nodes = {5, 4};
  summary.resources.allocatable = {{"cpu", api::Quantity::fromUnits(8)}};
  summary.resources.available = {{"cpu", api::Quantity::fromUnits(6)}};
  o.resources = summary;
  d = decideCluster(c, o, kT0, kGrace);
  EXPECT_TRUE(d.statusChanged);
  EXPECT_EQ(d.status.kubernetesVersion, "v1.30.0");
  ASSERT_EQ(d.status.apiEnablements.size(), 2u);
  EXPECT_EQ(d.status.apiEnablements[0].groupVersion, "apps/v1");
  EXPECT_EQ(d.status.nodeSummary.total, 5);
  EXPECT_EQ(d.status.nodeSummary.ready, 4);
  EXPECT_EQ(d.status.resources.allocatable.at("cpu"), api::Quantity::fromUnits(8));
  EXPECT_EQ(d.status.resources.available.at("cpu"), api::Quantity::fromUnits(6));
  EXPECT_TRUE(d.status.conditions.empty());  // readiness was not observed
  EXPECT_EQ(d.status.lastProbeTime, "");     // nor probed
}

TEST(ObservedFieldsTest, EqualValuesAreNoChange) {
  api::FederatedCluster c = cluster();
  c.status.kubernetesVersion = "v1.29.1";
  c.status.resources.allocatable = {{"memory", api::Quantity::parse("1Gi").value()}};
  ClusterObservation o;
  o.kubernetesVersion = "v1.29.1";
  ResourceSummary summary;
  summary.resources.allocatable = {{"memory", api::Quantity::parse("1Gi").value()}};
  o.resources = summary;
  EXPECT_FALSE(decideCluster(c, o, kT0, kGrace).statusChanged);
}

// ---- taints ----

TEST(TaintsTest, UserTaintsKeptAndOursAppended) {
  api::FederatedCluster c = cluster();
  c.spec.taints = {
      {"team", "a", "NoSchedule", ""},
      {kNotReadyTaintKey, "", "NoSchedule", at(-600s)},
      {"drain", "", "NoExecute", at(-50s)},
  };
  const ClusterDecision d = decideCluster(c, probed(unhealthy()), kT0, kGrace);
  EXPECT_EQ(taintStrs(d.taints),
            (std::vector<std::string>{"team=a:NoSchedule", "drain:NoExecute",
                                      std::string(kNotReadyTaintKey) + ":NoSchedule"}));
  EXPECT_EQ(d.taints[1].timeAdded, at(-50s));
  EXPECT_EQ(d.taints[2].timeAdded, at(-600s));  // ours keeps its time
  EXPECT_TRUE(d.taintsChanged);                 // only the order changed
  EXPECT_FALSE(d.recheckAfter);
}

TEST(TaintsTest, NotReadyAddedWhileNotReadyRemovedWhenReady) {
  api::FederatedCluster c = cluster();
  c.spec.taints = {{"team", "a", "NoSchedule", ""}};

  // No Ready condition yet and nothing observed: a new cluster takes no replicas.
  ClusterDecision d = decideCluster(c, ClusterObservation{}, kT0, kGrace);
  EXPECT_TRUE(d.taintsChanged);
  const api::Taint* t = findTaint(d.taints, kNotReadyTaintKey);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->effect, "NoSchedule");
  EXPECT_EQ(t->value, "");
  EXPECT_EQ(t->timeAdded, at(0s));
  apply(c, d);

  d = decideCluster(c, probed(unhealthy()), kT0 + 10s, kGrace);
  EXPECT_FALSE(d.taintsChanged);
  EXPECT_EQ(findTaint(d.taints, kNotReadyTaintKey)->timeAdded, at(0s));
  apply(c, d);

  d = decideCluster(c, probed(healthy()), kT0 + 20s, kGrace);
  EXPECT_TRUE(d.taintsChanged);
  EXPECT_EQ(taintStrs(d.taints), std::vector<std::string>{"team=a:NoSchedule"});
}

TEST(TaintsTest, UnreachableOnlyAfterTheGrace) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unreachable()), kT0, kGrace));
  ASSERT_EQ(condition(c.status, "Ready").status, "Unknown");
  EXPECT_EQ(taintStrs(c.spec.taints),
            std::vector<std::string>{std::string(kNotReadyTaintKey) + ":NoSchedule"});

  ClusterDecision d = decideCluster(c, probed(unreachable()), kT0 + 20s, kGrace);
  EXPECT_FALSE(findTaint(d.taints, kUnreachableTaintKey));
  EXPECT_FALSE(d.taintsChanged);
  EXPECT_EQ(d.recheckAfter, std::optional<nanoseconds>(40s));

  d = decideCluster(c, probed(unreachable()), kT0 + 59s + 999ms, kGrace);
  EXPECT_FALSE(findTaint(d.taints, kUnreachableTaintKey));
  EXPECT_EQ(d.recheckAfter, std::optional<nanoseconds>(1ms));

  d = decideCluster(c, probed(unreachable()), kT0 + 60s, kGrace);
  const api::Taint* t = findTaint(d.taints, kUnreachableTaintKey);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->effect, "NoExecute");
  EXPECT_EQ(t->timeAdded, at(60s));
  EXPECT_TRUE(d.taintsChanged);
  EXPECT_FALSE(d.recheckAfter);
  apply(c, d);

  // Later decisions keep both taints with their original times.
  d = decideCluster(c, probed(unreachable()), kT0 + 300s, kGrace);
  EXPECT_FALSE(d.taintsChanged);
  EXPECT_EQ(findTaint(d.taints, kUnreachableTaintKey)->timeAdded, at(60s));
  EXPECT_EQ(findTaint(d.taints, kNotReadyTaintKey)->timeAdded, at(0s));
  // Reachable but unhealthy: no failover, still not schedulable.
  d = decideCluster(c, probed(unhealthy()), kT0 + 310s, kGrace);
  EXPECT_EQ(taintStrs(d.taints),
            std::vector<std::string>{std::string(kNotReadyTaintKey) + ":NoSchedule"});
  EXPECT_FALSE(d.recheckAfter);
}

TEST(TaintsTest, UnreachableWithoutObservationUsesTheStoredCondition) {
  // The reconciler may decide without a fresh readiness (e.g. a resync); the grace still runs.
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unreachable()), kT0, kGrace));
  ClusterDecision d = decideCluster(c, ClusterObservation{}, kT0 + 45s, kGrace);
  EXPECT_EQ(d.recheckAfter, std::optional<nanoseconds>(15s));
  d = decideCluster(c, ClusterObservation{}, kT0 + 75s, kGrace);
  EXPECT_TRUE(findTaint(d.taints, kUnreachableTaintKey));
  EXPECT_EQ(findTaint(d.taints, kUnreachableTaintKey)->timeAdded, at(75s));
}

TEST(TaintsTest, UnhealthyNeverGetsTheUnreachableTaint) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unhealthy()), kT0, kGrace));
  const ClusterDecision d = decideCluster(c, probed(unhealthy()), kT0 + 24h, kGrace);
  EXPECT_FALSE(findTaint(d.taints, kUnreachableTaintKey));
  EXPECT_FALSE(d.recheckAfter);
}

TEST(TaintsTest, ZeroGraceTaintsAtOnce) {
  const ClusterDecision d = decideCluster(cluster(), probed(unreachable()), kT0, 0s);
  EXPECT_TRUE(findTaint(d.taints, kUnreachableTaintKey));
  EXPECT_FALSE(d.recheckAfter);
}

TEST(TaintsTest, UnreadableTransitionTimeCountsAsElapsed) {
  api::FederatedCluster c = cluster();
  c.status.conditions.push_back({"Ready", "Unknown", 3, "yesterday", "ClusterNotReachable", "x"});
  const ClusterDecision d = decideCluster(c, ClusterObservation{}, kT0, kGrace);
  EXPECT_TRUE(findTaint(d.taints, kUnreachableTaintKey));
  EXPECT_FALSE(d.recheckAfter);
}

TEST(TaintsTest, OurTaintWithAnotherEffectIsReplaced) {
  api::FederatedCluster c = cluster();
  c.spec.taints = {{kNotReadyTaintKey, "x", "NoExecute", at(-600s)}};
  const ClusterDecision d = decideCluster(c, probed(unhealthy()), kT0, kGrace);
  ASSERT_EQ(d.taints.size(), 1u);
  EXPECT_EQ(d.taints[0], (api::Taint{kNotReadyTaintKey, "", "NoSchedule", at(0s)}));
  EXPECT_TRUE(d.taintsChanged);
}

// ---- write on difference ----

struct SteadyCase {
  std::string name;
  ClusterObservation observed;
  seconds firstAt;  // when the first decision is taken (from kT0)
};

class WriteOnDifferenceTableTest : public ::testing::TestWithParam<SteadyCase> {};

TEST_P(WriteOnDifferenceTableTest, SecondDecisionWritesNothing) {
  const SteadyCase& s = GetParam();
  api::FederatedCluster c = cluster();
  c.spec.taints = {{"team", "a", "NoSchedule", ""}};
  const ClusterDecision first = decideCluster(c, s.observed, kT0 + s.firstAt, kGrace);
  EXPECT_TRUE(first.statusChanged || first.taintsChanged);
  apply(c, first);
  const ClusterDecision second = decideCluster(c, s.observed, kT0 + s.firstAt + 5s, kGrace);
  EXPECT_FALSE(second.statusChanged);
  EXPECT_FALSE(second.taintsChanged);
  EXPECT_EQ(second.readyTransition, "");
  EXPECT_EQ(second.taints, c.spec.taints);
}

ClusterObservation full(ProbeResult readiness) {
  ClusterObservation o = probed(std::move(readiness));
  o.kubernetesVersion = "v1.30.2";
  o.apiEnablements = std::vector<api::APIEnablement>{{"v1", {{"pods", "Pod"}}}};
  ResourceSummary summary;
  summary.nodes = {2, 2};
  summary.resources.allocatable = {{"cpu", api::Quantity::fromUnits(8)}};
  summary.resources.available = {{"cpu", api::Quantity::fromMilli(7500)}};
  o.resources = summary;
  return o;
}

INSTANTIATE_TEST_SUITE_P(Cases, WriteOnDifferenceTableTest,
                         ::testing::Values(SteadyCase{"Healthy", full(healthy()), 0s},
                                           SteadyCase{"Unhealthy", full(unhealthy()), 0s},
                                           SteadyCase{"UnreachableInGrace", probed(unreachable()),
                                                      0s},
                                           SteadyCase{"NothingObserved", ClusterObservation{}, 0s},
                                           SteadyCase{"ProbeOnly", probed(healthy()), 30s}),
                         [](const auto& info) { return info.param.name; });

TEST(WriteOnDifferenceTest, UnreachablePastTheGrace) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(unreachable()), kT0, kGrace));
  const ClusterDecision first = decideCluster(c, probed(unreachable()), kT0 + 61s, kGrace);
  EXPECT_TRUE(first.taintsChanged);
  EXPECT_TRUE(first.statusChanged);  // lastProbeTime was a minute old
  apply(c, first);
  const ClusterDecision second = decideCluster(c, probed(unreachable()), kT0 + 62s, kGrace);
  EXPECT_FALSE(second.statusChanged);
  EXPECT_FALSE(second.taintsChanged);
}

// ---- lastProbeTime ----

TEST(LastProbeTimeTest, ThrottledToOnceAMinute) {
  api::FederatedCluster c = cluster();
  ClusterDecision d = decideCluster(c, probed(healthy()), kT0, kGrace);
  EXPECT_EQ(d.status.lastProbeTime, at(0s));
  apply(c, d);

  struct Step {
    seconds when;
    std::string lastProbeTime;
    bool statusChanged;
  };
  for (const Step& step : std::vector<Step>{{10s, at(0s), false},
                                            {59s, at(0s), false},
                                            {60s, at(60s), true},
                                            {90s, at(60s), false},
                                            {125s, at(125s), true}}) {
    d = decideCluster(c, probed(healthy()), kT0 + step.when, kGrace);
    SCOPED_TRACE("at +" + std::to_string(step.when.count()) + "s");
    EXPECT_EQ(d.status.lastProbeTime, step.lastProbeTime);
    EXPECT_EQ(d.statusChanged, step.statusChanged);
    apply(c, d);
  }
}

TEST(LastProbeTimeTest, RidesAlongWithOtherChanges) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(healthy()), kT0, kGrace));
  ClusterObservation o = probed(healthy());
  o.kubernetesVersion = "v1.30.0";
  const ClusterDecision d = decideCluster(c, o, kT0 + 10s, kGrace);
  EXPECT_TRUE(d.statusChanged);
  EXPECT_EQ(d.status.lastProbeTime, at(10s));
}

TEST(LastProbeTimeTest, OnlyWhenProbed) {
  api::FederatedCluster c = cluster();
  apply(c, decideCluster(c, probed(healthy()), kT0, kGrace));
  ClusterObservation o;  // a change from the member's caches, no probe this round
  o.kubernetesVersion = "v1.30.0";
  const ClusterDecision d = decideCluster(c, o, kT0 + 5min, kGrace);
  EXPECT_TRUE(d.statusChanged);
  EXPECT_EQ(d.status.lastProbeTime, at(0s));
}

TEST(LastProbeTimeTest, UnreadableOrFutureTimeIsRefreshed) {
  for (const std::string& stored : {std::string("garbage"), at(3600s)}) {
    api::FederatedCluster c = cluster();
    apply(c, decideCluster(c, probed(healthy()), kT0, kGrace));
    c.status.lastProbeTime = stored;
    const ClusterDecision d = decideCluster(c, probed(healthy()), kT0 + 5s, kGrace);
    EXPECT_TRUE(d.statusChanged) << stored;
    EXPECT_EQ(d.status.lastProbeTime, at(5s)) << stored;
  }
}

}  // namespace
}  // namespace flotilla::controllers::cluster
