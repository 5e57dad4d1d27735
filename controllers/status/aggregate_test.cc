#include "controllers/status/aggregate.h"

#include <gtest/gtest.h>

#include "api/conditions.h"
#include "api/json_codec.h"
#include "controllers/common/managed.h"

namespace flotilla::controllers::status {
namespace {

constexpr const char* kNow = "2026-11-23T10:00:00Z";

api::FederatedDeployment fd() {
  api::FederatedDeployment f;
  f.metadata.name = "web";
  f.metadata.namespace_ = "demo";
  f.metadata.generation = 2;
  f.spec.template_.spec.replicas = 6;
  return f;
}

api::ResourceBinding rb() {
  api::ResourceBinding b;
  b.metadata.generation = 3;
  b.spec.replicas = 6;
  b.spec.clusters = {{"member2", 4}, {"member1", 2}};
  b.status.schedulerObservedGeneration = 3;
  b.status.conditions.push_back({"FullyApplied", "True", 3, kNow, "FullyAppliedSuccess", ""});
  b.status.aggregatedStatus = {{.clusterName = "member1", .applied = true, .propagation = "OK"},
                               {.clusterName = "member2", .applied = true, .propagation = "OK"}};
  return b;
}

api::Deployment host(int64_t generation = 5, int32_t replicas = 6) {
  api::Deployment d;
  d.metadata.name = "web";
  d.metadata.generation = generation;
  d.spec.replicas = replicas;
  d.status.observedGeneration = 4;
  return d;
}

// A member Deployment made from host generation `source`, `ready` of `replicas` ready.
api::Deployment member(int32_t replicas, int32_t ready, const std::string& source = "5",
                       bool observed = true) {
  api::Deployment d;
  d.metadata.generation = 7;
  d.metadata.annotations[kSourceGenerationAnnotation] = source;
  d.spec.replicas = replicas;
  d.status.observedGeneration = observed ? 7 : 6;
  d.status.replicas = replicas;
  d.status.updatedReplicas = replicas;
  d.status.readyReplicas = ready;
  d.status.availableReplicas = ready;
  d.status.unavailableReplicas = replicas - ready;
  d.status.conditions.push_back(
      {"Available", ready == replicas ? "True" : "False", "", "", "MinimumReplicasAvailable", ""});
  return d;
}

TEST(Aggregate, AllReadyEverywhere) {
  const auto b = rb();
  const auto h = host();
  const auto a =
      aggregate(fd(), &b, {{"member1", member(2, 2)}, {"member2", member(4, 4)}}, &h, kNow);
  const auto& f = a.federated;
  ASSERT_EQ(f.clusters.size(), 2u);
  EXPECT_EQ(f.clusters[0].name, "member1");  // sorted by name
  EXPECT_EQ(f.clusters[0].propagation, "OK");
  EXPECT_EQ(f.clusters[1].readyReplicas, 4);
  EXPECT_EQ(f.replicas, 6);
  EXPECT_EQ(f.readyReplicas, 6);
  EXPECT_EQ(f.ready, "6/6");
  EXPECT_EQ(f.clusterNames, "member1,member2");  // every cluster, for the CLUSTERS column
  EXPECT_EQ(f.observedGeneration, 2);
  EXPECT_EQ(api::findCondition(f.conditions, "Propagated")->status, "True");
  EXPECT_EQ(api::findCondition(f.conditions, "Available")->status, "True");
  ASSERT_EQ(a.bindings.size(), 2u);
  EXPECT_EQ(a.bindings[0].health, "Healthy");
  EXPECT_TRUE(a.bindings[0].applied);  // sync's fields are kept
  ASSERT_TRUE(a.host);
  EXPECT_EQ(a.host->observedGeneration, 5);
  EXPECT_EQ(a.host->readyReplicas, 6);
  EXPECT_EQ(a.host->updatedReplicas, 6);
  EXPECT_EQ(a.host->availableReplicas, 6);
}

TEST(Aggregate, ObservedGenerationWaitsForEveryMember) {
  const auto b = rb();
  const auto h = host();
  struct Case {
    const char* name;
    std::map<std::string, api::Deployment> members;
  };
  const std::vector<Case> cases = {
      {"a member still has the previous template",
       {{"member1", member(2, 2)}, {"member2", member(4, 4, "4")}}},
      {"a member's controller has not observed it yet",
       {{"member1", member(2, 2)}, {"member2", member(4, 4, "5", false)}}},
      {"a target has no member Deployment yet", {{"member1", member(2, 2)}}},
  };
  for (const auto& c : cases) {
    const auto a = aggregate(fd(), &b, c.members, &h, kNow);
    ASSERT_TRUE(a.host) << c.name;
    EXPECT_EQ(a.host->observedGeneration, 4) << c.name;  // unchanged: rollout status waits
  }
  // The sync controller has not applied the binding's current generation yet.
  auto behind = b;
  behind.status.conditions[0].observedGeneration = 2;
  EXPECT_EQ(
      aggregate(fd(), &behind, {{"member1", member(2, 2)}, {"member2", member(4, 4)}}, &h, kNow)
          .host->observedGeneration,
      4);
  // The placement is for another replica count (the scale has not been scheduled yet).
  const auto scaled = host(6, 9);
  const auto a = aggregate(
      fd(), &b, {{"member1", member(2, 2, "6")}, {"member2", member(4, 4, "6")}}, &scaled, kNow);
  EXPECT_EQ(a.host->observedGeneration, 4);
}

TEST(Aggregate, ProgressingAndAvailableFollowTheMembers) {
  const auto b = rb();
  const auto h = host();
  auto stuck = member(4, 1);
  stuck.status.conditions.push_back({"Progressing", "False", "", "", "ProgressDeadlineExceeded",
                                     "ReplicaSet web-1 has timed out progressing."});
  const auto a = aggregate(fd(), &b, {{"member1", member(2, 2)}, {"member2", stuck}}, &h, kNow);
  ASSERT_TRUE(a.host);
  bool sawProgressing = false;
  for (const auto& c : a.host->conditions) {
    if (c.type == "Progressing") {
      sawProgressing = true;
      EXPECT_EQ(c.status, "False");
      EXPECT_EQ(c.reason, "ProgressDeadlineExceeded");
      EXPECT_NE(c.message.find("member2"), std::string::npos);
    }
    if (c.type == "Available") {
      EXPECT_EQ(c.status, "False");
    }
  }
  EXPECT_TRUE(sawProgressing);
  EXPECT_EQ(a.federated.ready, "3/6");
  EXPECT_EQ(a.bindings[1].health, "Unhealthy");
}

TEST(Aggregate, PropagationStatesAndPending) {
  auto b = rb();
  b.status.aggregatedStatus[1].propagation = "CreationFailed";
  b.status.aggregatedStatus[1].message = "Deployment demo/web exists and is not managed";
  b.spec.clusters.push_back({"member3", 1});
  const auto a = aggregate(fd(), &b, {{"member1", member(2, 2)}}, nullptr, kNow);
  ASSERT_EQ(a.federated.clusters.size(), 3u);
  EXPECT_EQ(a.federated.clusters[1].propagation, "CreationFailed");
  EXPECT_EQ(a.federated.clusters[1].message, "Deployment demo/web exists and is not managed");
  EXPECT_EQ(a.federated.clusters[2].propagation, "PendingCreate");
  const auto* propagated = api::findCondition(a.federated.conditions, "Propagated");
  EXPECT_EQ(propagated->status, "False");
  EXPECT_NE(propagated->message.find("member2: CreationFailed"), std::string::npos);
  // member3 holds nothing and the sync controller has not said anything about it yet: no binding
  // entry (its first comes with the sync's, rather than one write saying nothing is known).
  ASSERT_EQ(a.bindings.size(), 2u);
  EXPECT_EQ(a.bindings[1].clusterName, "member2");
  EXPECT_EQ(a.bindings[1].health, "Unknown");
  EXPECT_FALSE(a.host);  // a FederatedDeployment written by a user has no host Deployment
}

TEST(Aggregate, StableInputsGiveTheSameStatus) {
  // Write-on-difference: aggregating the stored result again changes nothing.
  const auto b = rb();
  auto h = host();
  auto f = fd();
  const std::map<std::string, api::Deployment> members = {{"member1", member(2, 2)},
                                                          {"member2", member(4, 4)}};
  const auto first = aggregate(f, &b, members, &h, kNow);
  f.status = first.federated;
  h.status = *first.host;
  const auto second = aggregate(f, &b, members, &h, "2026-11-23T11:00:00Z");
  EXPECT_EQ(api::encode(f), [&] {
    auto g = f;
    g.status = second.federated;
    return api::encode(g);
  }());
  api::Deployment h2 = h;
  h2.status = *second.host;
  EXPECT_EQ(api::encode(h2), api::encode(h));
}

TEST(Aggregate, TheFirstDecisionIsTheSchedulersScheduledCondition) {
  auto federated = fd();
  EXPECT_FALSE(awaitingFirstDecision(federated, nullptr)) << "a user's FD, no binding will come";
  api::OwnerReference owner;
  owner.kind = "Deployment";
  owner.controller = true;
  federated.metadata.ownerReferences.push_back(owner);
  EXPECT_TRUE(awaitingFirstDecision(federated, nullptr)) << "made from a Deployment: bound soon";
  auto waiting = rb();  // (the fixture carries FullyApplied but no Scheduled condition)
  EXPECT_TRUE(awaitingFirstDecision(federated, &waiting));
  auto placed = rb();
  placed.status.conditions.push_back({"Scheduled", "True", 3, kNow, "Success", ""});
  EXPECT_FALSE(awaitingFirstDecision(federated, &placed));
  auto unschedulable = rb();
  unschedulable.spec.clusters.clear();
  unschedulable.status.conditions.push_back({"Scheduled", "False", 3, kNow, "NoClusterFit", ""});
  EXPECT_FALSE(awaitingFirstDecision(federated, &unschedulable))
      << "an unschedulable workload says so";
}

TEST(Aggregate, NoPlacementYet) {
  const auto a = aggregate(fd(), nullptr, {}, nullptr, kNow);
  EXPECT_EQ(a.federated.ready, "0/6");
  EXPECT_EQ(api::findCondition(a.federated.conditions, "Propagated")->status, "False");
  EXPECT_TRUE(a.bindings.empty());
}

}  // namespace
}  // namespace flotilla::controllers::status

namespace flotilla::controllers::status {
namespace {

TEST(Aggregate, AClusterThatCannotBeSeenKeepsItsLastReport) {
  const auto b = rb();
  auto h = host();
  auto f = fd();
  const auto first =
      aggregate(f, &b, {{"member1", member(2, 2)}, {"member2", member(4, 4)}}, &h, kNow);
  f.status = first.federated;
  h.status = *first.host;
  h.metadata.generation = 6;  // a new template while member2 is down
  const auto a = aggregate(f, &b, {{"member1", member(2, 2, "6")}}, &h, kNow, {"member2"});
  ASSERT_EQ(a.federated.clusters.size(), 2u);
  EXPECT_EQ(a.federated.clusters[1].readyReplicas, 4);  // what member2 said last
  EXPECT_EQ(a.federated.ready, "6/6");
  EXPECT_EQ(a.bindings[1].health, "Unknown");
  EXPECT_EQ(a.bindings[1].readyReplicas, 0);  // rb() had none reported for it
  EXPECT_EQ(a.host->observedGeneration, 5);   // member2 has not seen generation 6
  EXPECT_EQ(a.host->readyReplicas, 6);
}

}  // namespace
}  // namespace flotilla::controllers::status
