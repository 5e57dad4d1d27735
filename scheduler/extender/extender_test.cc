// Extender wire format and how the scheduling cycle uses extender answers (no network here; the
// HTTP side is in http_extender_client_test.cc).
#include "scheduler/extender/extender.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/base64.h"
#include "api/validation.h"
#include "scheduler/scheduler.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

using ::testing::_;
using ::testing::ElementsAre;
using ::testing::Pair;
using ::testing::Return;

api::SchedulerExtender extenderObject() {
  api::SchedulerExtender e;
  e.metadata.name = "gpu";
  e.spec.urlPrefix = "https://extender.example.com/scheduler";
  e.spec.filterVerb = "filter";
  e.spec.prioritizeVerb = "prioritize";
  return e;
}

TEST(ExtenderConfig, DefaultsAndDecodesTheCaBundle) {
  auto e = extenderObject();
  e.spec.tls.emplace();
  e.spec.tls->caBundle = api::base64Encode("-----BEGIN CERTIFICATE-----\n");
  e.spec.tls->serverName = "extender.internal";
  auto config = extenderConfig(e);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->weight, 1);
  EXPECT_EQ(config->timeout, std::chrono::milliseconds(5000));
  EXPECT_EQ(config->caPem, "-----BEGIN CERTIFICATE-----\n");
  EXPECT_EQ(config->serverName, "extender.internal");
  EXPECT_EQ(config->pluginName(), "extender/gpu");

  e.spec.httpTimeout = "250ms";
  e.spec.weight = 3;
  EXPECT_EQ(extenderConfig(e)->timeout, std::chrono::milliseconds(250));
  EXPECT_EQ(extenderConfig(e)->weight, 3);
}

TEST(ExtenderConfig, InvalidSpecNamesTheField) {
  auto e = extenderObject();
  e.spec.weight = 0;
  auto config = extenderConfig(e);
  ASSERT_FALSE(config);
  EXPECT_EQ(config.error().reason, api::reason::kInvalid);
  EXPECT_NE(config.error().message.find("spec.weight"), std::string::npos)
      << config.error().message;
}

TEST(ExtenderConfig, IgnorableExtendersRunLast) {
  auto a = extenderObject();
  a.metadata.name = "a-optional";
  a.spec.ignorable = true;
  auto b = extenderObject();
  b.metadata.name = "b-required";
  auto c = extenderObject();
  c.metadata.name = "c-required";
  auto ordered = extenderConfigs({c, a, b});
  ASSERT_TRUE(ordered);
  ASSERT_EQ(ordered->size(), 3u);
  EXPECT_EQ((*ordered)[0].name, "b-required");
  EXPECT_EQ((*ordered)[1].name, "c-required");
  EXPECT_EQ((*ordered)[2].name, "a-optional");
}

TEST(ExtenderArgs, CarriesTheBindingAndClusters) {
  SchedulingUnit unit;
  unit.key = "default/web";
  unit.apiVersion = "apps/v1";
  unit.kind = "Deployment";
  unit.replicas = 6;
  unit.resourceRequest = {{"cpu", testing::q("500m")}};
  unit.currentReplicas = {{"member1", 2}};
  auto c1 = testing::cluster("member1", "eu");
  auto c2 = testing::cluster("member2", "us");
  auto full = boost::json::parse(extenderArgs(unit, {&c1, &c2}, false)).as_object();
  EXPECT_EQ(full.at("binding").at("key"), "default/web");
  EXPECT_EQ(full.at("binding").at("replicas"), 6);
  EXPECT_EQ(full.at("binding").at("resourceRequest").at("cpu"), "500m");
  EXPECT_EQ(full.at("binding").at("currentReplicas").at("member1"), 2);
  EXPECT_EQ(full.at("clusterNames"), (boost::json::array{"member1", "member2"}));
  const auto& items = full.at("clusters").at("items").as_array();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].at("metadata").at("name"), "member2");
  EXPECT_EQ(items[1].at("spec").at("region"), "us");

  auto names = boost::json::parse(extenderArgs(unit, {&c1}, true)).as_object();
  EXPECT_FALSE(names.contains("clusters"));  // nodeCacheCapable: names only
  EXPECT_EQ(names.at("clusterNames"), (boost::json::array{"member1"}));
}

TEST(ParseFilterResponse, PassedFailedAndSilentClusters) {
  const std::vector<std::string> sent = {"a", "b", "c", "d"};
  auto r = parseFilterResponse(
      R"({"clusterNames":["a","x"],"failedClusters":{"b":"no GPU"},
          "failedAndUnresolvableClusters":{"c":"quota exhausted"}})",
      sent, "gpu");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_THAT(r->passed, ElementsAre("a"));  // "x" was never sent: ignored
  EXPECT_THAT(r->failed, ElementsAre(Pair("b", "no GPU"), Pair("c", "quota exhausted"),
                                     Pair("d", "rejected by extender gpu")));

  auto objects =
      parseFilterResponse(R"({"clusters":{"items":[{"metadata":{"name":"d"}}]}})", sent, "gpu");
  ASSERT_TRUE(objects);
  EXPECT_THAT(objects->passed, ElementsAre("d"));
}

TEST(ParseFilterResponse, ErrorsAreSpecific) {
  const std::vector<std::string> sent = {"a"};
  auto message = [&](const char* body) {
    auto r = parseFilterResponse(body, sent, "gpu");
    EXPECT_FALSE(r) << body;
    return r ? std::string() : r.error().message;
  };
  EXPECT_EQ(message(R"({"error":"backend down"})"), "extender error: backend down");
  EXPECT_NE(message("{not json").find("invalid extender response"), std::string::npos);
  EXPECT_NE(message("[1,2]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(message(R"({"clusterNames":"a"})").find("array of strings"), std::string::npos);
  EXPECT_NE(message(R"({"failedClusters":{"a":1}})").find("map cluster names"), std::string::npos);
}

TEST(ParsePrioritizeResponse, ScalesZeroToTenByWeight) {
  auto r = parsePrioritizeResponse(
      R"([{"cluster":"a","score":10},{"host":"b","score":3},{"cluster":"zz","score":9}])",
      {"a", "b", "c"}, 2);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_THAT(*r, ElementsAre(Pair("a", 200), Pair("b", 60)));  // 0..10 -> 0..100, x weight
  EXPECT_FALSE(parsePrioritizeResponse(R"([{"cluster":"a","score":11}])", {"a"}, 1));
  EXPECT_FALSE(parsePrioritizeResponse(R"([{"cluster":"a","score":-1}])", {"a"}, 1));
  EXPECT_FALSE(parsePrioritizeResponse(R"([{"cluster":"a","score":2.5}])", {"a"}, 1));
  EXPECT_FALSE(parsePrioritizeResponse(R"({"a":1})", {"a"}, 1));
}

class MockExtenderClient : public ExtenderClient {
 public:
  MOCK_METHOD(FilterOutcome, filter,
              (const SchedulingUnit&, const std::vector<const api::FederatedCluster*>&),
              (override));
  MOCK_METHOD(PrioritizeOutcome, prioritize,
              (const SchedulingUnit&, const std::vector<const api::FederatedCluster*>&),
              (override));
};

std::vector<api::FederatedCluster> members() {
  return {testing::cluster("member1"), testing::cluster("member2"), testing::cluster("member3")};
}

TEST(SchedulerWithExtenders, FilterVerdictsAndScoresEnterTheCycle) {
  MockExtenderClient extenders;
  ExtenderClient::FilterOutcome filtered;
  filtered.rejected.push_back({"member2", "extender/gpu", "no GPU"});
  EXPECT_CALL(extenders, filter(_, _)).WillOnce(Return(filtered));
  ExtenderClient::PrioritizeOutcome scored;
  scored.scores.push_back({"extender/gpu", {{"member3", 1000}}});
  EXPECT_CALL(extenders, prioritize(_, _))
      .WillOnce([&](const SchedulingUnit&, const std::vector<const api::FederatedCluster*>& c) {
        EXPECT_EQ(c.size(), 2u);  // member2 was filtered before prioritize
        return scored;
      });
  const Profile profile = defaultProfile().value();
  auto result = scheduleUnit(profile, testing::workloadUnit(4), members(),
                             {.explain = true, .extenders = &extenders});
  ASSERT_TRUE(result.ok()) << result.message;
  EXPECT_EQ(result.verdicts[1].plugin, "extender/gpu");
  EXPECT_EQ(result.verdicts[1].reason, "no GPU");
  ASSERT_EQ(result.feasible.size(), 2u);
  EXPECT_EQ(result.feasible[0].name(), "member3");  // the extender's score puts it first
  EXPECT_EQ(result.feasible[0].pluginScores.back().first, "extender/gpu");
  EXPECT_EQ(result.feasible[0].pluginScores.back().second, 1000);
  EXPECT_FALSE(result.placement.count("member2"));
}

TEST(SchedulerWithExtenders, NonIgnorableFilterFailureFailsTheCycle) {
  MockExtenderClient extenders;
  ExtenderClient::FilterOutcome failed;
  failed.error = "extender gpu filter: timed out";
  EXPECT_CALL(extenders, filter(_, _)).WillOnce(Return(failed));
  EXPECT_CALL(extenders, prioritize(_, _)).Times(0);
  const Profile profile = defaultProfile().value();
  auto result =
      scheduleUnit(profile, testing::workloadUnit(4), members(), {.extenders = &extenders});
  EXPECT_EQ(result.outcome, ScheduleResult::Outcome::kError);
  EXPECT_STREQ(result.reason(), "SchedulerError");
  EXPECT_EQ(result.message, "extender gpu filter: timed out");
}

TEST(SchedulerWithExtenders, EveryClusterRejectedIsNoClusterFit) {
  MockExtenderClient extenders;
  ExtenderClient::FilterOutcome filtered;
  for (const char* c : {"member1", "member2", "member3"})
    filtered.rejected.push_back({c, "extender/gpu", "no GPU"});
  EXPECT_CALL(extenders, filter(_, _)).WillOnce(Return(filtered));
  const Profile profile = defaultProfile().value();
  auto result =
      scheduleUnit(profile, testing::workloadUnit(4), members(), {.extenders = &extenders});
  EXPECT_EQ(result.outcome, ScheduleResult::Outcome::kNoClusterFit);
  EXPECT_EQ(result.message, "0/3 clusters are available: 3 no GPU.");
}

}  // namespace
}  // namespace flotilla::scheduler
