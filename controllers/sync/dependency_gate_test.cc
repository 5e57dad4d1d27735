// deferWaitingStatus (dependency_gate.h): a new workload whose followers are still being applied
// writes no status yet; anything else that happened, or a wait past the grace, is written.
#include "controllers/sync/dependency_gate.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace flotilla::controllers::sync {
namespace {

namespace json = boost::json;
using namespace std::chrono;

const auto kCreated = api::Clock::time_point(seconds(1'800'000'000));

json::object binding(const char* statusJson = "{}") {
  json::object o = json::parse(R"({"metadata": {"name": "web", "namespace": "shop"}})").as_object();
  o["metadata"].as_object()["creationTimestamp"] = api::formatRfc3339(kCreated);
  o["status"] = json::parse(statusJson);
  return o;
}

TEST(DeferWaitingStatus, OnlyANewBindingWaitingForFollowersBeingApplied) {
  const dependencies::LeaderGate pending{{"member1"}, "False", "Pending", "ConfigMap shop/env"};
  const ClusterOutcome waiting{"member1", propagation::kPendingCreate, "waiting", true};
  const GateInputs soon{.missingGrace = seconds(10), .now = kCreated + seconds(2)};
  EXPECT_TRUE(deferWaitingStatus(binding(), pending, {waiting}, soon));

  struct Case {
    const char* name;
    json::object binding;
    std::optional<dependencies::LeaderGate> gate;
    std::vector<ClusterOutcome> outcomes;
    GateInputs in;
  };
  const ClusterOutcome applied{"member2", propagation::kOK, "", true};
  dependencies::LeaderGate missing = pending;
  missing.reason = "Missing";
  const std::vector<Case> written = {
      {"past the grace",
       binding(),
       pending,
       {waiting},
       {.missingGrace = seconds(10), .now = kCreated + seconds(11)}},
      {"a cluster applied", binding(), pending, {waiting, applied}, soon},
      {"a follower missing on the host (said: Missing, with an Event)",
       binding(),
       missing,
       {waiting},
       soon},
      {"no gate (leads nothing)", binding(), std::nullopt, {waiting}, soon},
      {"a status already written",
       binding(
           R"({"aggregatedStatus": [{"clusterName": "member1", "propagation": "PendingCreate"}]})"),
       pending,
       {waiting},
       soon},
      {"nothing to do", binding(), pending, {}, soon},
  };
  for (const auto& c : written)
    EXPECT_FALSE(deferWaitingStatus(c.binding, c.gate, c.outcomes, c.in)) << c.name;
}

// Only the gate's own waits are silent; a PendingCreate for another reason still gets its Event.
TEST(ReplicasKeptUntilKnown, OnlyAnUnknownGateThatKeptReplicas) {
  EXPECT_FALSE(replicasKeptUntilKnown(std::nullopt));
  dependencies::LeaderGate gate;
  gate.status = "Unknown";
  EXPECT_FALSE(replicasKeptUntilKnown(gate)) << "a workload on no cluster yet keeps nothing";
  gate.autoscaledOn = {"member1"};
  EXPECT_TRUE(replicasKeptUntilKnown(gate));
  gate.status = "True";  // known: an HPA's replicas there are the workload's (not a wait)
  EXPECT_FALSE(replicasKeptUntilKnown(gate));
}

TEST(WaitingForDependencies, TheGatesWaitsOnly) {
  EXPECT_TRUE(waitingForDependencies(
      ClusterOutcome{"member1", propagation::kPendingCreate,
                     std::string(kWaitingForDependencies) + "ConfigMap shop/env", true}));
  EXPECT_FALSE(waitingForDependencies(ClusterOutcome{
      "member1", propagation::kPendingCreate, "the CRD widgets.example.com is not served", true}));
  EXPECT_FALSE(waitingForDependencies(
      ClusterOutcome{"member1", propagation::kCreationFailed,
                     std::string(kWaitingForDependencies) + "ConfigMap shop/env", true}));
}

// A follower is ready on a cluster once applied there; one whose health the sync records (a CRD,
// Interpreter::followersWaitUntilHealthy) only once that health is not Progressing or Unhealthy:
// the change to Healthy is what brings its workloads back.
TEST(FollowerAppliedChanged, AnAppliedCrdCountsOnceEstablished) {
  auto crd = [](const char* item) {
    return std::make_shared<const json::object>(
        json::parse(std::string(R"({"metadata": {"name": "widgets.example.com-customresourcedefinition"},
          "spec": {"requiredBy": [{"namespace": "shop", "name": "a-widget", "clusters": ["member1"]}]},
          "status": {"aggregatedStatus": [)") +
                    item + "]}}")
            .as_object());
  };
  const auto applying = crd(
      R"({"clusterName": "member1", "applied": true, "propagation": "OK", "health": "Progressing"})");
  const auto established = crd(
      R"({"clusterName": "member1", "applied": true, "propagation": "OK", "health": "Healthy"})");
  const auto unknown = crd(
      R"({"clusterName": "member1", "applied": true, "propagation": "OK", "health": "Unknown"})");
  const auto pending =
      crd(R"({"clusterName": "member1", "applied": false, "propagation": "PendingCreate"})");
  const auto changed = followerAppliedChanged();
  EXPECT_TRUE(changed.update(applying, established));
  EXPECT_FALSE(changed.update(pending, applying)) << "applied, not established: not ready yet";
  EXPECT_FALSE(changed.update(established, unknown)) << "a health not recorded: applied is ready";
  EXPECT_TRUE(changed.update(established, applying));
  EXPECT_EQ(mapFollowerToLeaders()(established), std::vector<std::string>{"shop/a-widget"});
}

}  // namespace
}  // namespace flotilla::controllers::sync
