#include "controllers/sync/object_plan.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/conditions.h"
#include "api/patch.h"
#include "api/test_util.h"
#include "controllers/common/managed.h"

namespace flotilla::controllers::sync {
namespace {

namespace json = boost::json;

api::FederatedObject configMap() {
  return api::testing::fromYaml<api::FederatedObject>(R"(
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata:
  name: settings-configmap
  namespace: demo
  annotations: {flotilla.io/source-generation: "0"}
spec:
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: demo, labels: {app: web}}
    data: {mode: fast}
  overrides:
  - clusterName: member2
    patches:
    - {op: replace, path: /data/mode, value: slow}
    - {op: replace, path: /metadata/name, value: renamed}
)");
}

const interpreter::Interpreter kConfigMap = interpreter::Registry::builtIn().of("v1", "ConfigMap");
constexpr const char* kKey = "demo/settings-configmap";

json::object desired(const std::string& cluster, bool adopted = false) {
  auto d =
      desiredMemberObject(configMap(), kConfigMap, kKey, cluster, nullptr, "host-1", adopted);
  EXPECT_TRUE(d) << d.error();
  return d ? *d : json::object{};
}

TEST(DesiredMemberObject, TheTemplateWithTheClustersOverridesAndFlotillasMarks) {
  const auto one = desired("member1");
  EXPECT_EQ(one.at("data").at("mode"), "fast");
  EXPECT_EQ(one.at("metadata").at("labels").at("app"), "web");
  EXPECT_EQ(one.at("metadata").at("labels").at(kManagedByLabel), kManagedByValue);
  EXPECT_EQ(one.at("metadata").at("annotations").at(kBindingAnnotation), kKey);
  EXPECT_TRUE(managedFor(one, kKey, "host-1"));
  EXPECT_FALSE(
      one.at("metadata").as_object().at("annotations").as_object().contains(kAdoptedAnnotation));
  // member2's override changes the data; an override cannot rename the object.
  const auto two = desired("member2");
  EXPECT_EQ(two.at("data").at("mode"), "slow");
  EXPECT_EQ(two.at("metadata").at("name"), "settings");
  EXPECT_EQ(desired("member1", true).at("metadata").at("annotations").at(kAdoptedAnnotation),
            "true");
  // A patch that cannot apply names the cluster and the patch.
  auto fo = configMap();
  fo.spec.overrides[0].patches[0].path = "/spec/nothing/here";
  auto broken = desiredMemberObject(fo, kConfigMap, kKey, "member2", nullptr, "", false);
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message.find("override patch 0"), std::string::npos);
  EXPECT_NE(broken.error().message.find("member2"), std::string::npos);
}

TEST(KeepScaledReplicas, TheMembersCountStands) {
  json::object desired = json::parse(R"({"spec":{"replicas":2,"template":{}}})").as_object();
  keepScaledReplicas(desired, json::parse(R"({"spec":{"replicas":6}})").as_object());
  EXPECT_EQ(desired.at("spec").at("replicas"), 6);
  json::object kept = desired;
  keepScaledReplicas(desired, json::parse(R"({"spec":{}})").as_object());
  EXPECT_EQ(desired, kept);
}

TEST(PlanMember, Table) {
  const auto want = desired("member1");
  json::object stale = want;
  stale["data"].as_object()["mode"] = "old";
  json::object foreign{{"apiVersion", "v1"},
                       {"kind", "ConfigMap"},
                       {"metadata", json::object{{"name", "settings"}, {"namespace", "demo"}}},
                       {"data", json::object{{"mode", "theirs"}}}};
  json::object otherHost = want;
  otherHost["metadata"].as_object()["labels"].as_object()[kHostLabel] = "host-2";
  json::object adoptedLive = desired("member1", true);
  json::object controlled = foreign;
  controlled["metadata"].as_object()["ownerReferences"] =
      json::parse(R"([{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","controller":true}])");
  struct Case {
    const char* name;
    bool targeted;
    const json::object* live;
    bool adoptAllowed;
    MemberStep step;
    bool adopt;
    const char* notAdopted = nullptr;
  };
  const Case cases[] = {
      {"missing: create", true, nullptr, false, MemberStep::kApply, false},
      {"in sync: nothing", true, &want, false, MemberStep::kNone, false},
      {"stale: update", true, &stale, false, MemberStep::kApply, false},
      {"foreign: conflict", true, &foreign, false, MemberStep::kConflict, false},
      {"foreign with Adopt: take over", true, &foreign, true, MemberStep::kApply, true},
      {"another host's: conflict even with Adopt", true, &otherHost, true, MemberStep::kConflict,
       false},
      {"not targeted, ours: delete", false, &want, false, MemberStep::kDelete, false},
      {"not targeted, adopted: stays", false, &adoptedLive, false, MemberStep::kNone, false},
      {"not targeted, foreign: untouched", false, &foreign, true, MemberStep::kNone, false},
      {"not targeted, nothing there", false, nullptr, false, MemberStep::kNone, false},
      {"a controlled object is never adopted", true, &controlled, true, MemberStep::kConflict,
       false},
      {"a kind that is not adopted: conflict even with Adopt", true, &foreign, true,
       MemberStep::kConflict, false, "Deployments are not adopted"},
  };
  for (const auto& c : cases) {
    const auto plan = planMember({.targeted = c.targeted,
                                  .desired = &want,
                                  .live = c.live,
                                  .bindingKey = kKey,
                                  .hostId = "host-1",
                                  .adoptAllowed = c.adoptAllowed,
                                  .notAdopted = c.notAdopted});
    EXPECT_EQ(plan.step, c.step) << c.name;
    EXPECT_EQ(plan.adopt, c.adopt) << c.name;
    if (plan.step == MemberStep::kConflict) {
      EXPECT_FALSE(plan.message.empty()) << c.name;
      if (c.notAdopted) {
        EXPECT_NE(plan.message.find(c.notAdopted), std::string::npos) << c.name;
      }
    }
  }
}

// A copy of a kind kept on members (a CRD) that its binding no longer places on a cluster is
// released, never deleted: Flotilla's marks go, the release is recorded, and the same binding of
// the same host (only it) takes it back while it is as it was left.
TEST(PlanMember, AKeptCopyIsReleasedAndTakenBackByItsOwnBinding) {
  auto want = desired("member1");
  want["metadata"].as_object()["generation"] = 3;
  const char* why = "deleting it would delete more";
  auto untargeted = [&](const json::object& live, const char* kept) {
    return planMember({.targeted = false,
                       .live = &live,
                       .bindingKey = kKey,
                       .hostId = "host-1",
                       .keptWhenUnfollowed = kept});
  };
  const auto released = untargeted(want, why);
  EXPECT_EQ(released.step, MemberStep::kRelease);
  EXPECT_EQ(released.message, why);
  EXPECT_EQ(untargeted(want, nullptr).step, MemberStep::kDelete) << "any other kind is deleted";
  EXPECT_EQ(untargeted(desired("member1", true), why).step, MemberStep::kNone)
      << "an adopted copy is never touched";

  auto patched =
      api::applyMergePatch(json::value(want), json::parse(releasePatch(want, kKey, "host-1")));
  ASSERT_TRUE(patched) << patched.error();
  const json::object left = patched->as_object();
  EXPECT_TRUE(managingBinding(left).empty()) << json::serialize(left);
  EXPECT_FALSE(left.at("metadata").at("labels").as_object().contains(kManagedByLabel));
  EXPECT_FALSE(left.at("metadata").at("labels").as_object().contains(kHostLabel));
  EXPECT_EQ(left.at("metadata").at("annotations").at(kReleasedByAnnotation), kKey);
  EXPECT_EQ(left.at("metadata").at("annotations").at(kReleasedHostAnnotation), "host-1");
  EXPECT_EQ(left.at("metadata").at("annotations").at(kReleasedGenerationAnnotation), "3");
  EXPECT_EQ(left.at("metadata").at("labels").at("app"), "web") << "the object's own labels stay";
  EXPECT_EQ(untargeted(left, why).step, MemberStep::kNone) << "released: no longer Flotilla's";

  auto targeted = [&](const json::object& live, const std::string& key, const std::string& host,
                      const char* kept) {
    return planMember({.targeted = true,
                       .desired = &want,
                       .live = &live,
                       .bindingKey = key,
                       .hostId = host,
                       .keptWhenUnfollowed = kept})
        .step;
  };
  EXPECT_EQ(targeted(left, kKey, "host-1", why), MemberStep::kApply) << "its binding takes it back";
  EXPECT_EQ(targeted(left, "demo/another-configmap", "host-1", why), MemberStep::kConflict);
  EXPECT_EQ(targeted(left, kKey, "host-2", why), MemberStep::kConflict) << "another host's";
  EXPECT_EQ(targeted(left, kKey, "host-1", nullptr), MemberStep::kConflict)
      << "only kinds that are released are taken back";
  json::object changed = left;
  changed["metadata"].as_object()["generation"] = 4;
  EXPECT_EQ(targeted(changed, kKey, "host-1", why), MemberStep::kConflict)
      << "changed on the member since: its owner's now";
  json::object controlled = left;
  controlled["metadata"].as_object()["ownerReferences"] =
      json::parse(R"([{"apiVersion":"v1","kind":"Pod","name":"p","uid":"u","controller":true}])");
  EXPECT_EQ(targeted(controlled, kKey, "host-1", why), MemberStep::kConflict);
  json::object claimed = left;
  claimed["metadata"].as_object()["labels"].as_object()[kManagedByLabel] = kManagedByValue;
  EXPECT_EQ(targeted(claimed, kKey, "host-1", why), MemberStep::kConflict)
      << "another Flotilla marked it since";
}

TEST(ObjectStatus, CountsTargetsAndNamesTheFirstProblem) {
  using interpreter::Health;
  auto fo = configMap();
  fo.metadata.generation = 3;
  const auto ok = objectStatus(fo,
                               {{"member2", "OK", "", {Health::kHealthy, ""}, true},
                                {"member1", "OK", "", {Health::kHealthy, ""}, true}},
                               "2026-11-27T10:00:00Z");
  EXPECT_EQ(ok.healthy, "2/2");
  EXPECT_EQ(ok.clusterNames, "member1,member2");
  ASSERT_EQ(ok.clusters.size(), 2u);
  EXPECT_EQ(ok.clusters[0].name, "member1");
  EXPECT_EQ(ok.observedGeneration, 3);
  const auto* propagated = api::findCondition(ok.conditions, "Propagated");
  ASSERT_NE(propagated, nullptr);
  EXPECT_EQ(propagated->status, "True");

  // A conflict on member2 and a removal that failed on member3.
  fo.status = ok;
  const auto bad = objectStatus(
      fo,
      {{"member1", "OK", "", {Health::kHealthy, ""}, true},
       {"member2", "Conflict", "an object of that name exists", {Health::kUnknown, ""}, true},
       {"member3", "DeletionFailed", "forbidden", {Health::kUnknown, ""}, false}},
      "2026-11-27T10:05:00Z");
  EXPECT_EQ(bad.healthy, "1/2");
  EXPECT_EQ(bad.clusterNames, "member1,member2");
  EXPECT_EQ(bad.clusters.size(), 3u);
  const auto* now = api::findCondition(bad.conditions, "Propagated");
  ASSERT_NE(now, nullptr);
  EXPECT_EQ(now->status, "False");
  EXPECT_NE(now->message.find("member2: Conflict"), std::string::npos);
  EXPECT_EQ(now->lastTransitionTime, "2026-11-27T10:05:00Z");
  const auto* health = api::findCondition(bad.conditions, "Healthy");
  ASSERT_NE(health, nullptr);
  EXPECT_NE(health->message.find("member2: Unknown"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::controllers::sync
