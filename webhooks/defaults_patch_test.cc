#include "webhooks/defaults_patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_codec.h"
#include "api/patch.h"
#include "api/validation.h"

namespace flotilla::webhooks {
namespace {
namespace json = boost::json;

// Decodes `text` as T, defaults it, builds the patch against the original JSON and checks that
// applying it yields exactly the defaulted object (and keeps what the codec does not model).
template <class T>
json::array roundTrip(const std::string& text, json::value* patched = nullptr) {
  json::value original = json::parse(text);
  T object;
  EXPECT_TRUE(api::decodeInto(original, object).empty());
  const json::value before = api::encode(object);
  api::setDefaults(object);
  const json::value after = api::encode(object);
  json::array ops = defaultsPatch(original, before, after);
  auto applied = api::applyJsonPatch(original, ops);
  EXPECT_TRUE(applied) << (applied ? "" : applied.error().message) << "\n" << json::serialize(ops);
  if (!applied) return ops;
  T again;
  EXPECT_TRUE(api::decodeInto(*applied, again).empty());
  EXPECT_EQ(api::encode(again), after) << json::serialize(ops);
  if (patched) *patched = *applied;
  return ops;
}

TEST(DefaultsPatch, MinimalPolicyGetsEveryDefaultAtTheHighestMissingLevel) {
  auto ops = roundTrip<api::PropagationPolicy>(
      R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
          "metadata":{"name":"p","namespace":"demo"},"spec":{}})");
  EXPECT_EQ(json::value(ops), json::parse(R"([
    {"op":"add","path":"/spec/placement","value":{"replicaScheduling":
      {"division":"Weighted","avoidDisruption":true}}},
    {"op":"add","path":"/spec/failover","value":{"clusterNotReadyFor":"60s","failback":"Rebalance"}}
  ])"))
      << json::serialize(ops);
}

TEST(DefaultsPatch, DefaultsInsideListsAndExistingObjectsArePreciseAdds) {
  json::value patched;
  auto ops = roundTrip<api::PropagationPolicy>(
      R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
          "metadata":{"name":"p","namespace":"demo"},
          "spec":{"placement":{"spreadConstraints":[{"spreadByField":"region","maxGroups":2},
                                                    {"spreadByField":"cluster","minGroups":2}],
                               "replicaScheduling":{"type":"Duplicated"}},
                  "failover":{"failback":"Never"},
                  "autoMigration":{"keepUnschedulableReplicas":true}}})",
      &patched);
  EXPECT_EQ(json::value(ops), json::parse(R"([
    {"op":"add","path":"/spec/placement/spreadConstraints/0/minGroups","value":1},
    {"op":"add","path":"/spec/placement/replicaScheduling/avoidDisruption","value":true},
    {"op":"add","path":"/spec/autoMigration/podUnschedulableFor","value":"1m"},
    {"op":"add","path":"/spec/autoMigration/capacityTTL","value":"5m"},
    {"op":"add","path":"/spec/failover/clusterNotReadyFor","value":"60s"}
  ])"))
      << json::serialize(ops);
  // The user's own values are untouched (Duplicated gets no division, Never stays).
  EXPECT_EQ(patched.at("spec").at("failover").at("failback"), "Never");
  EXPECT_EQ(patched.at("spec").at("placement").at("replicaScheduling").at("type"), "Duplicated");
}

TEST(DefaultsPatch, NothingToDefaultIsAnEmptyPatch) {
  auto ops = roundTrip<api::PropagationPolicy>(
      R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
          "metadata":{"name":"p","namespace":"demo"},
          "spec":{"placement":{"replicaScheduling":{"type":"Divided","division":"Aggregated",
                                                    "avoidDisruption":false}},
                  "failover":{"clusterNotReadyFor":"2m","failback":"Never"}}})");
  EXPECT_TRUE(ops.empty()) << json::serialize(ops);
}

TEST(DefaultsPatch, FieldsTheCodecDoesNotModelAreLeftAlone) {
  json::value patched;
  roundTrip<api::FederatedCluster>(
      R"({"apiVersion":"flotilla.io/v1alpha1","kind":"FederatedCluster",
          "metadata":{"name":"m1","annotations":{"a/b":"c"},"managedFields":[{"manager":"kubectl"}]},
          "spec":{"apiEndpoint":"https://10.0.0.1:6443","secretRef":{"name":"m1"},
                  "futureField":{"x":1}}})",
      &patched);
  EXPECT_EQ(patched.at("spec").at("secretRef").at("namespace"), "flotilla-system");
  EXPECT_EQ(patched.at("spec").at("futureField").at("x"), 1);
  EXPECT_EQ(patched.at("metadata").at("annotations").at("a/b"), "c");
}

TEST(DefaultsPatch, ALevelTheCodecOmitsIsAddedIntoNotReplaced) {
  json::value patched;
  auto ops = roundTrip<api::PropagationPolicy>(
      R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
          "metadata":{"name":"p","namespace":"demo"},"spec":{"futureField":1}})",
      &patched);
  EXPECT_EQ(patched.at("spec").at("futureField"), 1) << json::serialize(ops);
  EXPECT_EQ(ops.size(), 2u) << json::serialize(ops);
}

// A list element the codec reads as an empty object (null) is replaced in place, not inserted
// in front of (RFC 6902 `add` on an array index inserts).
TEST(DefaultsPatch, ExistingArrayElementsAreReplacedNotInserted) {
  json::value patched;
  auto ops = roundTrip<api::PropagationPolicy>(
      R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
          "metadata":{"name":"p","namespace":"demo"},
          "spec":{"placement":{"spreadConstraints":[null]}}})",
      &patched);
  EXPECT_EQ(patched.at("spec").at("placement").at("spreadConstraints").as_array().size(), 1u)
      << json::serialize(ops);
}

TEST(DefaultsPatch, KeysAreEscapedAsJsonPointerTokens) {
  json::value original = json::parse(R"({"m":{}})");
  json::value before = json::parse(R"({"m":{}})");
  json::value after = json::parse(R"({"m":{"a/b~c":1}})");
  auto ops = defaultsPatch(original, before, after);
  EXPECT_EQ(json::value(ops), json::parse(R"([{"op":"add","path":"/m/a~1b~0c","value":1}])"));
  auto applied = api::applyJsonPatch(original, ops);
  ASSERT_TRUE(applied);
  EXPECT_EQ(*applied, after);
}

}  // namespace
}  // namespace flotilla::webhooks
