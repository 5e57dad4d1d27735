#include "controllers/scheduler/triggers.h"

#include <gtest/gtest.h>

#include "api/json_codec.h"
#include "api/taint.h"
#include "scheduler/schedule_type.h"

namespace flotilla::controllers::scheduler {
namespace {

namespace fs = flotilla::scheduler;

api::ResourceBinding binding() {
  api::ResourceBinding rb;
  rb.metadata.name = "web";
  rb.metadata.namespace_ = "demo";
  rb.metadata.generation = 1;
  rb.spec.replicas = 6;
  rb.spec.policy = {"PropagationPolicy", "demo-spread", "demo", 1};
  return rb;
}

// The binding as the scheduler leaves it after a successful attempt.
api::ResourceBinding scheduled(api::ResourceBinding rb) {
  rb.metadata.annotations[fs::kScheduleRecordAnnotation] = fs::encodeRecord(fs::recordFor(rb));
  rb.spec.clusters = {{"member1", 2}, {"member2", 4}};
  return rb;
}

struct UpdateCase {
  const char* name;
  std::function<void(api::ResourceBinding&)> change;
  bool enqueue;
};

std::vector<UpdateCase> updateCases() {
  return {
      {"status write (FullyApplied, aggregated status)",
       [](auto& rb) {
         rb.status.conditions.push_back({"FullyApplied", "True", 1, "", "FullyAppliedSuccess", ""});
         rb.status.aggregatedStatus.push_back({.clusterName = "member1",
                                               .applied = true,
                                               .health = "Healthy",
                                               .replicas = 2,
                                               .readyReplicas = 2});
       },
       false},
      {"scheduler's own spec.clusters write",
       [](auto& rb) {
         rb.spec.clusters = {{"member3", 6}};
       },
       false},
      {"label edit", [](auto& rb) { rb.metadata.labels["team"] = "a"; }, false},
      {"replicas", [](auto& rb) { rb.spec.replicas = 3; }, true},
      {"policy generation", [](auto& rb) { rb.spec.policy.generation = 2; }, true},
      {"placement", [](auto& rb) { rb.spec.placement.maxClusters = 1; }, true},
      {"auto-migration estimates",
       [](auto& rb) {
         rb.status.autoMigration = api::AutoMigrationStatus{{{"member1", 1}}, {}, ""};
       },
       true},
  };
}

TEST(SchedulingInputsChanged, TableOfUpdates) {
  const auto base = scheduled(binding());
  for (const auto& c : updateCases()) {
    auto after = base;
    c.change(after);
    EXPECT_EQ(schedulingInputsChanged(base, after), c.enqueue) << c.name;
  }
}

// The check on the cached JSON that lets the scheduler skip decoding: it may say "may differ"
// for more updates than schedule (the scheduler's own spec write), never for fewer; status writes
// it lets through without a look. (A spec change bumps the generation, as the API server does.)
TEST(SchedulingInputsMayDiffer, NeverHidesAnUpdateTheDecodedCheckWouldQueue) {
  const auto base = scheduled(binding());
  for (const auto& c : updateCases()) {
    auto after = base;
    c.change(after);
    if (api::encode(after).at("spec") != api::encode(base).at("spec")) ++after.metadata.generation;
    const bool may = schedulingInputsMayDiffer(api::encode(base).as_object(),
                                               api::encode(after).as_object());
    if (schedulingInputsChanged(base, after) || observedGenerationLeftBehind(base, after)) {
      EXPECT_TRUE(may) << c.name;
    }
  }
  auto status = base;
  status.status.conditions.push_back({"FullyApplied", "True", 1, "", "FullyAppliedSuccess", ""});
  EXPECT_FALSE(
      schedulingInputsMayDiffer(api::encode(base).as_object(), api::encode(status).as_object()));
}

// A follower that a policy selects too (docs/design.md §12): its spec.requiredBy changes as its
// workloads move; the scheduler must observe the new generation or nothing is ever removed.
TEST(ObservedGenerationLeftBehind, OnlyASpecChangeThatKeptThePlacement) {
  auto base = scheduled(binding());
  base.status.schedulerObservedGeneration = 1;
  auto requiredBy = base;
  requiredBy.metadata.generation = 2;
  requiredBy.spec.requiredBy = {{.namespace_ = "demo", .name = "api", .clusters = {"member1"}}};
  EXPECT_TRUE(observedGenerationLeftBehind(base, requiredBy));
  auto observed = requiredBy;
  observed.status.schedulerObservedGeneration = 2;
  EXPECT_FALSE(observedGenerationLeftBehind(requiredBy, observed)) << "status write";
  auto placedAgain = requiredBy;
  placedAgain.spec.clusters = {{"member3", 6}};
  EXPECT_FALSE(observedGenerationLeftBehind(base, placedAgain)) << "the scheduler's own write";
  auto noPolicy = requiredBy;
  noPolicy.spec.policy = {};
  EXPECT_FALSE(observedGenerationLeftBehind(base, noPolicy)) << "a follower only: never scheduled";
}

api::FederatedCluster cluster(const std::string& ready) {
  api::FederatedCluster c;
  c.metadata.name = "member1";
  c.spec.region = "eu-west";
  if (!ready.empty()) c.status.conditions.push_back({"Ready", ready, 1, "", "", ""});
  c.status.resources.allocatable["cpu"] = api::Quantity::fromUnits(8);
  c.status.resources.available["cpu"] = api::Quantity::fromUnits(4);
  return c;
}

TEST(ClusterEvents, OnlyChangesThatCanMakeBindingsSchedulable) {
  const auto base = cluster("True");
  struct Case {
    const char* name;
    std::function<void(api::FederatedCluster&)> change;
    bool matters, placedAffected;
  };
  const std::vector<Case> cases = {
      {"lastProbeTime only", [](auto& c) { c.status.lastProbeTime = "2026-11-23T00:00:00Z"; },
       false, false},
      {"condition message only", [](auto& c) { c.status.conditions[0].message = "x"; }, false,
       false},
      {"not ready", [](auto& c) { c.status.conditions[0].status = "False"; }, true, true},
      {"label", [](auto& c) { c.metadata.labels["gpu"] = "yes"; }, true, false},
      {"NoSchedule taint",
       [](auto& c) {
         c.spec.taints.push_back({"k", "", "NoSchedule", ""});
       },
       true, false},
      {"NoExecute taint",
       [](auto& c) {
         c.spec.taints.push_back({"k", "", "NoExecute", ""});
       },
       true, true},
      {"resources freed",
       [](auto& c) { c.status.resources.available["cpu"] = api::Quantity::fromUnits(6); }, true,
       false},
      {"zone", [](auto& c) { c.spec.zone = "z"; }, true, false},
      {"API enablements",
       [](auto& c) {
         c.status.apiEnablements.push_back({"apps/v1", {}});
       },
       true, false},
  };
  for (const auto& c : cases) {
    auto after = base;
    c.change(after);
    EXPECT_EQ(clusterChangeMatters(base, after), c.matters) << c.name;
    EXPECT_EQ(placedBindingsAffected(base, after), c.placedAffected) << c.name;
  }
}

}  // namespace
}  // namespace flotilla::controllers::scheduler
