#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "api/quantity.h"
#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }
const Interpreter deployment() { return Registry::builtIn().of("apps/v1", "Deployment"); }

TEST(DeploymentEntry, ReplicasDefaultToOneAndAreRevisedPerCluster) {
  EXPECT_TRUE(deployment().divisible());
  EXPECT_EQ(deployment().replicas(parse(R"({"spec":{}})")), 1);
  EXPECT_EQ(deployment().replicas(parse(R"({"spec":{"replicas":0}})")), 0);
  json::object d = parse(R"({"spec":{"replicas":6,"template":{}}})");
  EXPECT_EQ(deployment().replicas(d), 6);
  deployment().reviseReplicas(d, Share{.cluster = "a", .replicas = 2});
  EXPECT_EQ(d.at("spec").at("replicas"), 2);
  json::object bare = parse(R"({"metadata":{"name":"x"}})");
  deployment().reviseReplicas(bare, Share{.cluster = "a", .replicas = 3});
  EXPECT_EQ(bare.at("spec").at("replicas"), 3);
}

TEST(DeploymentEntry, RequirementsAreWhatOnePodAsksOfANode) {
  const json::object d = parse(R"({"spec":{"template":{"spec":{
      "nodeSelector":{"zone":"a"},
      "tolerations":[{"key":"gpu","operator":"Exists","effect":"NoSchedule"}],
      "overhead":{"cpu":"50m"},
      "initContainers":[{"name":"i","image":"i","resources":{"requests":{"cpu":"2"}}}],
      "containers":[{"name":"a","image":"a","resources":{"requests":{"cpu":"500m","memory":"1Gi"}}},
                    {"name":"b","image":"b","resources":{"requests":{"cpu":"500m"}}}]}}}})");
  const api::ReplicaRequirements r = deployment().requirements(d);
  // max(init 2, sum 1) + overhead 50m: the scheduler's own arithmetic.
  EXPECT_EQ(r.resourceRequest.at("cpu"), api::Quantity::parse("2050m").value());
  EXPECT_EQ(r.resourceRequest.at("memory"), api::Quantity::parse("1Gi").value());
  EXPECT_EQ(r.nodeSelector.at("zone"), "a");
  ASSERT_EQ(r.tolerations.size(), 1u);
  EXPECT_EQ(r.tolerations[0].key, "gpu");
  EXPECT_TRUE(deployment().requirements(parse(R"({"spec":{}})")).resourceRequest.empty());
}

TEST(DeploymentEntry, HealthAsRolloutStatusReadsIt) {
  struct Case {
    const char* name;
    const char* object;
    Health health;
    const char* message;
  };
  const Case cases[] = {
      {"rolled out",
       R"({"metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,
           "replicas":3,"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3}})",
       Health::kHealthy, ""},
      {"generation not observed",
       R"({"metadata":{"generation":3},"spec":{"replicas":3},"status":{"observedGeneration":2,
           "replicas":3,"updatedReplicas":3,"availableReplicas":3}})",
       Health::kProgressing,
       "the member's deployment controller has not observed generation 3 yet"},
      {"updating",
       R"({"metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,
           "replicas":4,"updatedReplicas":1,"availableReplicas":3}})",
       Health::kProgressing, "1 of 3 replicas updated"},
      {"old replicas left",
       R"({"metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,
           "replicas":4,"updatedReplicas":3,"availableReplicas":3}})",
       Health::kProgressing, "1 of 4 replicas still old"},
      {"not available",
       R"({"metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,
           "replicas":3,"updatedReplicas":3,"availableReplicas":1}})",
       Health::kProgressing, "1 of 3 replicas available"},
      {"deadline exceeded",
       R"({"metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,
           "replicas":3,"updatedReplicas":1,"conditions":[{"type":"Progressing","status":"False",
           "reason":"ProgressDeadlineExceeded","message":"ReplicaSet \"w-1\" has timed out progressing."}]}})",
       Health::kUnhealthy, "ReplicaSet \"w-1\" has timed out progressing."},
      {"scaled to zero",
       R"({"metadata":{"generation":1},"spec":{"replicas":0},"status":{"observedGeneration":1}})",
       Health::kHealthy, ""},
  };
  for (const auto& c : cases) {
    const json::object d = parse(c.object);
    EXPECT_EQ(deployment().health(&d), (HealthReport{c.health, c.message})) << c.name;
  }
}

TEST(DeploymentEntry, HostStatusSumsTheMembers) {
  const json::object a = parse(
      R"({"status":{"replicas":2,"readyReplicas":2,"availableReplicas":2,"updatedReplicas":2}})");
  const json::object b = parse(R"({"status":{"replicas":3,"readyReplicas":1,"availableReplicas":1,
      "updatedReplicas":3,"unavailableReplicas":2}})");
  const auto status = deployment().aggregateStatus({}, {{"m1", &a}, {"m2", &b}, {"m3", nullptr}});
  ASSERT_TRUE(status);
  EXPECT_EQ(*status, parse(R"({"replicas":5,"updatedReplicas":5,"readyReplicas":3,
      "availableReplicas":3,"unavailableReplicas":2})"));
}

TEST(WorkloadProgress, WhatTheKindsOwnColumnsSayOfTheFleet) {
  const auto& r = Registry::builtIn();
  EXPECT_EQ(r.of("apps/v1", "StatefulSet")
                .progress(parse(R"({"spec":{"replicas":5}})"),
                          parse(R"({"replicas":5,"readyReplicas":4})")),
            "4/5");
  EXPECT_EQ(r.of("apps/v1", "DaemonSet")
                .progress({}, parse(R"({"desiredNumberScheduled":9,"numberReady":9})")),
            "9/9");
  EXPECT_EQ(r.of("batch/v1", "Job").progress(parse(R"({"spec":{"completions":10}})"),
                                             parse(R"({"succeeded":7})")),
            "7/10");
  EXPECT_EQ(r.of("batch/v1", "Job").progress(parse(R"({"spec":{"parallelism":3}})"), {}),
            "0 succeeded");
  EXPECT_EQ(r.of("v1", "ConfigMap").progress({}, {}), "");
}

}  // namespace
}  // namespace flotilla::interpreter
