#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parseObject(std::string_view text) { return json::parse(text).as_object(); }
Interpreter hpa() {
  return Registry::builtIn().of("autoscaling/v2", "HorizontalPodAutoscaler");
}

TEST(HorizontalPodAutoscalerEntry, FollowsItsScaleTargetAndOwnsItsReplicas) {
  const auto h = parseObject(R"({"metadata":{"name":"web","namespace":"shop"},
      "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
              "minReplicas":2,"maxReplicas":10}})");
  EXPECT_FALSE(hpa().divisible());  // Duplicated: each member's HPA scales that member's copy
  EXPECT_TRUE(hpa().scalesWhatItFollows());
  EXPECT_EQ(hpa().follows(h), (Dependency{"apps/v1", "Deployment", "shop", "web", false}));
  EXPECT_EQ(hpa().follows(parseObject(R"({"spec":{}})")), std::nullopt);
  // scaleTargetRef.apiVersion is optional.
  EXPECT_EQ(hpa().follows(parseObject(R"({"metadata":{"name":"h","namespace":"shop"},
      "spec":{"scaleTargetRef":{"kind":"StatefulSet","name":"db"}}})")),
            (Dependency{"apps/v1", "StatefulSet", "shop", "db", false}));
  // Both versions of the group are the same entry.
  EXPECT_TRUE(Registry::builtIn().of("autoscaling/v1", "HorizontalPodAutoscaler").scalesWhatItFollows());
}

TEST(HorizontalPodAutoscalerEntry, HealthAndTheMembersSum) {
  const auto scaling = parseObject(R"({"status":{"conditions":[{"type":"AbleToScale",
      "status":"True"},{"type":"ScalingActive","status":"True"}]}})");
  EXPECT_EQ(hpa().health(&scaling).health, Health::kHealthy);
  const auto noMetrics = parseObject(R"({"status":{"conditions":[{"type":"AbleToScale",
      "status":"True"},{"type":"ScalingActive","status":"False","reason":"FailedGetResourceMetric",
      "message":"unable to get metrics"}]}})");
  const auto report = hpa().health(&noMetrics);
  EXPECT_EQ(report.health, Health::kUnhealthy);
  EXPECT_EQ(report.message, "ScalingActive False: FailedGetResourceMetric: unable to get metrics");
  const auto one = parseObject(R"({"status":{"currentReplicas":6,"desiredReplicas":6,
      "lastScaleTime":"2026-11-28T10:00:00Z"}})");
  const auto two = parseObject(R"({"status":{"currentReplicas":2,"desiredReplicas":3}})");
  const auto status = hpa().aggregateStatus({}, {{"member1", &one}, {"member2", &two}, {"m3", nullptr}});
  EXPECT_EQ(*status, parseObject(R"({"currentReplicas":8,"desiredReplicas":9,
      "lastScaleTime":"2026-11-28T10:00:00Z"})"));
}

TEST(PodDisruptionBudgetEntry, HealthyWhenTheBudgetHoldsAndTheHostSumsTheMembers) {
  const auto pdb = Registry::builtIn().of("policy/v1", "PodDisruptionBudget");
  const auto short_ = parseObject(R"({"metadata":{"generation":1},"status":{"observedGeneration":1,
      "currentHealthy":1,"desiredHealthy":2,"expectedPods":3,"disruptionsAllowed":0}})");
  EXPECT_EQ(pdb.health(&short_).message, "1 of the 2 healthy pods the budget needs");
  const auto fine = parseObject(R"({"metadata":{"generation":1},"status":{"observedGeneration":1,
      "currentHealthy":3,"desiredHealthy":2,"expectedPods":3,"disruptionsAllowed":1}})");
  EXPECT_EQ(pdb.health(&fine).health, Health::kHealthy);
  const auto status = pdb.aggregateStatus(parseObject(R"({"metadata":{"generation":1}})"),
                                          {{"a", &short_}, {"b", &fine}});
  EXPECT_EQ(status->at("currentHealthy"), 4);
  EXPECT_EQ(status->at("disruptionsAllowed"), 1);
  EXPECT_EQ(status->at("expectedPods"), 6);
}

TEST(IngressEntry, TheHostListsEveryMembersAddresses) {
  const auto ingress = Registry::builtIn().of("networking.k8s.io/v1", "Ingress");
  const auto one = parseObject(R"({"status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.1"}]}}})");
  const auto two = parseObject(R"({"status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.2"}]}}})");
  EXPECT_EQ(*ingress.aggregateStatus({}, {{"a", &one}, {"b", &two}}),
            parseObject(R"({"loadBalancer":{"ingress":[{"ip":"198.51.100.1"},{"ip":"198.51.100.2"}]}})"));
  EXPECT_EQ(ingress.health(&one).health, Health::kHealthy);
}

}  // namespace
}  // namespace flotilla::interpreter
