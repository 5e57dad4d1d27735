#include "webhooks/admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "api/json_codec.h"
#include "api/object_validation.h"
#include "api/patch.h"
#include "api/yaml.h"

namespace flotilla::webhooks {
namespace {
namespace json = boost::json;

class FakeCluster : public ClusterView {
 public:
  std::optional<bool> schedulingProfileExists(const std::string& name) const override {
    if (!synced) return std::nullopt;
    return profiles.count(name) > 0;
  }
  bool synced = true;
  std::set<std::string> profiles;
};

json::value sample(const std::string& file) {
  std::ifstream in(std::string(FLOTILLA_SOURCE_DIR) + "/config/samples/" + file);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = api::parseManifests(text.str());
  EXPECT_TRUE(docs && !docs->empty()) << file;
  return docs && !docs->empty() ? docs->front().value : json::value();
}

AdmissionRequest request(const json::value& object, const std::string& operation = "CREATE") {
  AdmissionRequest r;
  r.uid = "uid-1";
  r.operation = operation;
  r.kind = {"flotilla.io", "v1alpha1", std::string(object.at("kind").as_string())};
  r.object = object;
  return r;
}

std::string denial(const AdmissionResponse& r) { return r.allowed ? "" : r.status.message; }

json::value& at(json::value& v, std::initializer_list<std::string_view> path) {
  json::value* cur = &v;
  for (auto key : path) cur = &cur->as_object()[key];
  return *cur;
}

const std::map<std::string, std::string> kSamples = {
    {"FederatedCluster", "federatedcluster.yaml"},
    {"PropagationPolicy", "propagationpolicy.yaml"},
    {"ClusterPropagationPolicy", "clusterpropagationpolicy.yaml"},
    {"FederatedDeployment", "federateddeployment.yaml"},
    {"ResourceBinding", "resourcebinding.yaml"},
    {"SchedulingProfile", "schedulingprofile.yaml"},
    {"SchedulerExtender", "schedulerextender.yaml"},
    {"FederatedObject", "federatedobject.yaml"},
    {"ClusterFederatedObject", "clusterfederatedobject.yaml"},
    {"ClusterResourceBinding", "clusterresourcebinding.yaml"},
    {"OverridePolicy", "overridepolicy.yaml"},
    {"ClusterOverridePolicy", "clusteroverridepolicy.yaml"},
};

TEST(Routes, KubebuilderPathsForEveryKind) {
  EXPECT_EQ(admittedKinds().size(), kSamples.size());
  for (const auto& kind : admittedKinds()) {
    for (bool mutating : {false, true}) {
      const std::string path = pathFor({kind, mutating});
      auto route = routeFor(path);
      ASSERT_TRUE(route) << path;
      EXPECT_EQ(route->kind, kind);
      EXPECT_EQ(route->mutating, mutating);
    }
  }
  EXPECT_EQ(pathFor({"PropagationPolicy", false}),
            "/validate-flotilla-io-v1alpha1-propagationpolicy");
  EXPECT_EQ(pathFor({"SchedulingProfile", true}), "/mutate-flotilla-io-v1alpha1-schedulingprofile");
  EXPECT_FALSE(routeFor("/validate-flotilla-io-v1alpha1-pod"));
  EXPECT_FALSE(routeFor("/validate-flotilla-io-v1alpha1-"));
  EXPECT_FALSE(routeFor("/"));
}

// Every kind: its sample is admitted by validation, and its mutation yields exactly what
// setDefaults gives (applied to the input, the patch gives the defaulted object).
TEST(Admission, EveryKindValidatesAndMutatesItsSample) {
  FakeCluster cluster;
  cluster.profiles = {"default-plus-locality"};
  for (const auto& [kind, file] : kSamples) {
    SCOPED_TRACE(kind);
    json::value object = sample(file);
    auto validated = admit({kind, false}, request(object), cluster);
    EXPECT_TRUE(validated.allowed) << denial(validated);
    EXPECT_EQ(validated.uid, "uid-1");
    EXPECT_TRUE(validated.warnings.empty());

    auto mutated = admit({kind, true}, request(object), cluster);
    ASSERT_TRUE(mutated.allowed) << denial(mutated);
    json::value patched = object;
    if (mutated.patch) {
      auto applied = api::applyJsonPatch(object, *mutated.patch);
      ASSERT_TRUE(applied) << applied.error().message;
      patched = *applied;
    }
    // What the patch produced is what offline validation (decode, default) sees.
    EXPECT_TRUE(api::validateObject(patched).valid());
    auto again = admit({kind, true}, request(patched), cluster);
    EXPECT_FALSE(again.patch) << "defaulting must be idempotent: " << json::serialize(*again.patch);
  }
}

TEST(Admission, InvalidPolicyIsDeniedWithEveryFieldError) {
  json::value pp = sample("propagationpolicy.yaml");
  at(pp, {"spec", "placement", "spreadConstraints"}).as_array()[1].as_object()["maxGroups"] = 1;
  at(pp, {"spec", "placement", "replicaScheduling", "division"}) = "Evenly";
  auto r = admit({"PropagationPolicy", false}, request(pp), FakeCluster{});
  ASSERT_FALSE(r.allowed);
  EXPECT_EQ(r.status.code, 403);
  EXPECT_EQ(r.status.reason, "Forbidden");
  EXPECT_NE(r.status.message.find("PropagationPolicy.flotilla.io \"web-spread\" is invalid: ["),
            std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("spec.placement.spreadConstraints[1].maxGroups: must be >= "
                                  "minGroups"),
            std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("spec.placement.replicaScheduling.division"), std::string::npos);
  ASSERT_EQ(r.status.causes.size(), 2u);
}

TEST(Admission, TypeErrorsAreDeniedByBothWebhooks) {
  json::value pp = sample("propagationpolicy.yaml");
  at(pp, {"spec", "priority"}) = "high";
  for (bool mutating : {false, true}) {
    auto r = admit({"PropagationPolicy", mutating}, request(pp), FakeCluster{});
    ASSERT_FALSE(r.allowed);
    EXPECT_NE(r.status.message.find("spec.priority"), std::string::npos) << r.status.message;
  }
}

TEST(Admission, SchedulingProfileWithUnknownPluginIsDenied) {
  json::value sp = sample("schedulingprofile.yaml");
  at(sp, {"spec", "plugins", "score", "enabled"}).as_array()[0].as_object()["name"] = "Fastest";
  auto r = admit({"SchedulingProfile", false}, request(sp), FakeCluster{});
  ASSERT_FALSE(r.allowed);
  EXPECT_NE(r.status.message.find("spec.plugins.score.enabled[0].name"), std::string::npos)
      << r.status.message;
  EXPECT_NE(r.status.message.find("unknown plugin"), std::string::npos);
}

TEST(Admission, SchedulingProfileThatDoesNotBuildIsDenied) {
  // Statically fine (a known plugin, an args object), but the plugin rejects its args.
  json::value sp = sample("schedulingprofile.yaml");
  at(sp, {"spec", "pluginConfig"}).as_array()[0].as_object()["args"] =
      json::parse(R"({"resources":[{"name":"cpu","weight":-5}]})");
  auto r = admit({"SchedulingProfile", false}, request(sp), FakeCluster{});
  EXPECT_FALSE(r.allowed);
  EXPECT_NE(r.status.message.find("spec.pluginConfig"), std::string::npos) << r.status.message;
}

TEST(Admission, PolicyNamingAMissingProfileIsAdmittedWithAWarning) {
  json::value pp = sample("propagationpolicy.yaml");
  FakeCluster cluster;
  auto r = admit({"PropagationPolicy", false}, request(pp), cluster);
  ASSERT_TRUE(r.allowed);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0],
            "spec.schedulingProfile: SchedulingProfile \"default-plus-locality\" does not exist; "
            "bindings of this policy stay unscheduled until it is created");

  cluster.profiles = {"default-plus-locality"};
  EXPECT_TRUE(admit({"PropagationPolicy", false}, request(pp), cluster).warnings.empty());
  cluster.synced = false;  // not known yet: no warning rather than a wrong one
  cluster.profiles.clear();
  EXPECT_TRUE(admit({"PropagationPolicy", false}, request(pp), cluster).warnings.empty());

  json::value cpp = sample("clusterpropagationpolicy.yaml");
  at(cpp, {"spec", "schedulingProfile"}) = "nope";
  cluster.synced = true;
  auto c = admit({"ClusterPropagationPolicy", false}, request(cpp), cluster);
  ASSERT_TRUE(c.allowed);
  EXPECT_EQ(c.warnings.size(), 1u);
}

// Karmada #4650: a selector of a kind the host does not serve is a silent no-op there; here the
// policy is admitted (its CRD may come later) and each distinct kind its selectors name is asked
// of the host's discovery afterwards (the webhook server: completeServed).
TEST(Admission, AnOverridePolicyAsksTheHostWhetherItServesItsSelectorsKinds) {
  json::value op = json::parse(R"({"apiVersion": "flotilla.io/v1alpha1", "kind": "OverridePolicy",
    "metadata": {"name": "tag", "namespace": "shop"},
    "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"},
                                   {"apiVersion": "apps/v1beta9", "kind": "Deployment"},
                                   {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}],
             "rules": [{"overriders": {"labels": [{"operator": "overwrite",
                                                   "value": {"a": "b"}}]}}]}})");
  auto r = admit({"OverridePolicy", false}, request(op), FakeCluster{});
  ASSERT_TRUE(r.allowed) << r.status.message;
  EXPECT_TRUE(r.warnings.empty());
  EXPECT_EQ(r.servedQuestions, (std::vector<ServedQuestion>{
                                   {"spec.resourceSelectors[0]", "apps/v1", "Deployment"},
                                   {"spec.resourceSelectors[1]", "apps/v1beta9", "Deployment"}}));
  EXPECT_EQ(servedWarning(r.servedQuestions[1]),
            "spec.resourceSelectors[1]: the host does not serve kind Deployment in apps/v1beta9; "
            "this selector selects nothing until it does");
  json::value cop = op;
  at(cop, {"kind"}) = "ClusterOverridePolicy";
  cop.as_object()["metadata"].as_object().erase("namespace");
  EXPECT_EQ(
      admit({"ClusterOverridePolicy", false}, request(cop), FakeCluster{}).servedQuestions.size(),
      2u);
}

TEST(Admission, WrongKindForTheEndpointIsABadRequest) {
  json::value pp = sample("propagationpolicy.yaml");
  auto r = admit({"SchedulingProfile", false}, request(pp), FakeCluster{});
  ASSERT_FALSE(r.allowed);
  EXPECT_EQ(r.status.code, 400);
  EXPECT_NE(r.status.message.find("this endpoint admits SchedulingProfile.flotilla.io"),
            std::string::npos);
  auto req = request(pp);
  req.kind.group = "apps";
  EXPECT_FALSE(admit({"PropagationPolicy", false}, req, FakeCluster{}).allowed);
}

TEST(Admission, DeleteAndMissingObjects) {
  json::value pp = sample("propagationpolicy.yaml");
  auto del = request(pp, "DELETE");
  del.object = nullptr;
  EXPECT_TRUE(admit({"PropagationPolicy", false}, del, FakeCluster{}).allowed);
  auto create = request(pp);
  create.object = nullptr;
  auto r = admit({"PropagationPolicy", false}, create, FakeCluster{});
  EXPECT_FALSE(r.allowed);
  EXPECT_NE(r.status.message.find("request.object is missing"), std::string::npos);
}

// Ratcheting: an update is denied only for errors it introduces; an object being deleted can
// always be updated (its finalizers removed).
TEST(Admission, UpdatesOfObjectsThatWereAlreadyInvalidAreRatcheted) {
  json::value old = sample("propagationpolicy.yaml");
  at(old, {"spec", "placement", "spreadConstraints"}).as_array()[1].as_object()["maxGroups"] = 1;
  json::value next = old;
  at(next, {"spec", "priority"}) = 20;  // an unrelated change
  auto update = request(next, "UPDATE");
  update.oldObject = old;
  EXPECT_TRUE(admit({"PropagationPolicy", false}, update, FakeCluster{}).allowed);

  at(next, {"spec", "placement", "replicaScheduling", "division"}) = "Evenly";  // a new error
  update.object = next;
  auto r = admit({"PropagationPolicy", false}, update, FakeCluster{});
  ASSERT_FALSE(r.allowed);
  ASSERT_EQ(r.status.causes.size(), 1u) << r.status.message;
  EXPECT_EQ(r.status.causes[0].field, "spec.placement.replicaScheduling.division");

  at(next, {"metadata"}).as_object()["deletionTimestamp"] = "2026-11-23T09:00:00Z";
  update.object = next;
  EXPECT_TRUE(admit({"PropagationPolicy", false}, update, FakeCluster{}).allowed);
  // A CREATE of the same object is still denied.
  EXPECT_FALSE(admit({"PropagationPolicy", false}, request(old), FakeCluster{}).allowed);
}

TEST(Admission, UpdateIsValidatedLikeCreate) {
  json::value pp = sample("propagationpolicy.yaml");
  auto update = request(pp, "UPDATE");
  update.oldObject = pp;
  at(update.object, {"spec", "priority"}) = -1;
  auto r = admit({"PropagationPolicy", false}, update, FakeCluster{});
  // Whatever the rule for negative priorities is, UPDATE gets the same answer as CREATE.
  auto create = request(update.object);
  EXPECT_EQ(r.allowed, admit({"PropagationPolicy", false}, create, FakeCluster{}).allowed);
}

}  // namespace
}  // namespace flotilla::webhooks
