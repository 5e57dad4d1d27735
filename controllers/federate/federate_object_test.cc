#include "controllers/federate/federate_object.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "api/json_codec.h"
#include "api/test_util.h"
#include "controllers/common/managed.h"
#include "controllers/federate/source_kinds.h"

namespace flotilla::controllers::federate {
namespace {
namespace json = boost::json;

using policy::MatchTier;
using policy::PolicyKey;
using policy::Resolution;

const PolicyKey kApp{"PropagationPolicy", "shop", "app"};

json::object parse(std::string_view text) { return json::parse(text).as_object(); }
Resolution won(const PolicyKey& key = kApp) {
  return {.policy = policy::ResolvedPolicy{.key = key, .tier = MatchTier::kName}};
}
interpreter::Interpreter interp(const json::object& source) {
  return interpreter::Registry::builtIn().of(source.at("apiVersion").as_string(),
                                             source.at("kind").as_string());
}
ObjectDecision decide(const json::object& source, const api::FederatedObject* existing,
                      const Resolution& resolution, bool claimedPolicyExists = true) {
  return decideFederatedObject(source, existing, resolution, claimedPolicyExists, interp(source));
}

const char* kConfigMap = R"({"apiVersion":"v1","kind":"ConfigMap",
  "metadata":{"name":"web","namespace":"shop","uid":"uid-cm","resourceVersion":"7",
    "labels":{"app":"web","flotilla.io/propagation-policy":"app"},
    "annotations":{"team":"a","flotilla.io/note":"host only",
      "flotilla.io/followers":"[{\"kind\":\"Secret\",\"name\":\"tls\"}]"}},
  "data":{"k":"v"}})";

TEST(FederateObject, ANamespacedSourceGetsAFederatedObjectNamedAfterItsKind) {
  const json::object cm = parse(kConfigMap);
  const ObjectDecision d = decide(cm, nullptr, won());
  ASSERT_EQ(d.action, Action::kCreate);
  const api::FederatedObject& fo = d.desired;
  EXPECT_EQ(fo.kind, "FederatedObject");
  EXPECT_EQ(fo.metadata.name, "web-configmap");
  EXPECT_EQ(fo.metadata.namespace_, "shop");
  EXPECT_EQ(fo.metadata.labels.at("flotilla.io/propagation-policy"), "app");  // selectable
  EXPECT_EQ(fo.metadata.annotations.at(kPolicyAnnotation), "PropagationPolicy/shop/app");
  ASSERT_EQ(fo.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(fo.metadata.ownerReferences[0].uid, "uid-cm");
  EXPECT_EQ(fo.metadata.ownerReferences[0].kind, "ConfigMap");
  EXPECT_EQ(fo.metadata.finalizers, std::vector<std::string>{kCleanupFinalizer});
  // The template: what members receive, without Flotilla's own keys or server-set metadata, but
  // the followers it names (read from the template like any other reference).
  EXPECT_EQ(fo.spec.template_, parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"web","namespace":"shop","labels":{"app":"web"},"annotations":{"team":"a",
        "flotilla.io/followers":"[{\"kind\":\"Secret\",\"name\":\"tls\"}]"}},
      "data":{"k":"v"}})"))
      << json::serialize(fo.spec.template_);
  EXPECT_EQ(federatedName("web", "Secret"), "web-secret");
}

TEST(FederateObject, FederatedNamesAreValidAndDistinctAcrossKindsGroupsAndOddNames) {
  EXPECT_EQ(federatedName("web", "Service"), "web-service");
  EXPECT_EQ(federatedName("reader", "ClusterRole", "rbac.authorization.k8s.io"),
            "reader-clusterrole");
  const std::string knative = federatedName("web", "Service", "serving.knative.dev");
  EXPECT_NE(knative, "web-service");
  EXPECT_EQ(knative.rfind("web-service-", 0), 0u) << knative;
  // RBAC names may hold ':' and capitals: cleaned, and still distinct.
  const std::string a =
      federatedName("system:Controller:Foo", "ClusterRole", "rbac.authorization.k8s.io");
  const std::string b =
      federatedName("system:controller:foo", "ClusterRole", "rbac.authorization.k8s.io");
  EXPECT_EQ(a.rfind("system-controller-foo-clusterrole-", 0), 0u) << a;
  EXPECT_NE(a, b);
  // Too long once suffixed: shortened to 253 with the hash.
  const std::string longName(250, 'a');
  const std::string shortened = federatedName(longName, "ConfigMap");
  EXPECT_LE(shortened.size(), 253u);
  EXPECT_NE(shortened, federatedName(std::string(251, 'a'), "ConfigMap"));
  for (const std::string& n : {a, b, knative, shortened})
    for (char c : n)
      EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) ||
                  std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.')
          << n;
}

TEST(FederateObject, AClusterScopedSourceGetsAClusterFederatedObject) {
  const json::object role =
      parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
      "metadata":{"name":"reader","uid":"uid-r"},"rules":[]})");
  const ObjectDecision d = decide(role, nullptr, won({"ClusterPropagationPolicy", "", "rbac"}));
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.desired.kind, "ClusterFederatedObject");
  EXPECT_EQ(d.desired.metadata.name, "reader-clusterrole");
  EXPECT_EQ(d.desired.metadata.namespace_, "");
  EXPECT_EQ(api::encode(d.desired).at("kind"), "ClusterFederatedObject");
}

TEST(FederateObject, TheKindsPruningShapesTheTemplate) {
  const json::object svc = parse(R"({"apiVersion":"v1","kind":"Service",
      "metadata":{"name":"web","namespace":"shop","uid":"u"},
      "spec":{"clusterIP":"10.0.0.9","clusterIPs":["10.0.0.9"],"type":"NodePort",
        "ports":[{"port":80,"protocol":"TCP","nodePort":31000}]}})");
  const ObjectDecision d = decide(svc, nullptr, won());
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.desired.spec.template_.at("spec"),
            parse(R"({"type":"NodePort","ports":[{"port":80,"protocol":"TCP"}]})"));
}

TEST(FederateObject, UnchangedIsNoWriteAndAChangeIsAnUpdateKeepingWhatItDoesNotOwn) {
  const json::object cm = parse(kConfigMap);
  ObjectDecision created = decide(cm, nullptr, won());
  api::FederatedObject existing = created.desired;
  existing.metadata.resourceVersion = "12";
  existing.spec.overrides.push_back({"member1", {}});
  existing.status.healthy = "1/1";
  EXPECT_EQ(decide(cm, &existing, won()).action, Action::kNone);
  json::object changed = cm;
  changed["data"].as_object()["k"] = "v2";
  const ObjectDecision d = decide(changed, &existing, won());
  ASSERT_EQ(d.action, Action::kUpdate);
  EXPECT_EQ(d.desired.spec.template_.at("data").at("k"), "v2");
  EXPECT_EQ(d.desired.metadata.resourceVersion, "12");
  EXPECT_EQ(d.desired.spec.overrides.size(), 1u);
  EXPECT_EQ(d.desired.status.healthy, "1/1");
}

TEST(FederateObject, NotOwnedIsAConflictAndUnwantedIsADelete) {
  const json::object cm = parse(kConfigMap);
  api::FederatedObject foreign = decide(cm, nullptr, won()).desired;
  foreign.metadata.ownerReferences.clear();
  const ObjectDecision conflict = decide(cm, &foreign, won());
  EXPECT_EQ(conflict.action, Action::kConflict);
  EXPECT_EQ(conflict.message,
            "FederatedObject web-configmap exists and is not controlled by ConfigMap shop/web; "
            "leaving it alone");
  EXPECT_EQ(decide(cm, &foreign, Resolution{.message = "no policy"}).action, Action::kNone);

  api::FederatedObject owned = decide(cm, nullptr, won()).desired;
  const ObjectDecision gone = decide(cm, &owned, Resolution{.message = "no policy selects it"});
  EXPECT_EQ(gone.action, Action::kDelete);
  EXPECT_EQ(gone.message, "no policy selects it");
  // A deleted policy keeps what it federated (the claim stays).
  EXPECT_EQ(decide(cm, &owned, Resolution{.message = "no policy"}, false).action, Action::kNone);
}

TEST(FederateObject, ATokenSecretIsNeverFederatedWhateverThePolicySays) {
  const json::object token = parse(R"({"apiVersion":"v1","kind":"Secret",
      "type":"kubernetes.io/service-account-token",
      "metadata":{"name":"sa-token","namespace":"shop","uid":"u-t"}})");
  const ObjectDecision d = decide(token, nullptr, won());
  EXPECT_EQ(d.action, Action::kNone);
  api::FederatedObject owned;
  owned.metadata.name = "sa-token-secret";
  owned.metadata.ownerReferences = {
      {.apiVersion = "v1", .kind = "Secret", .name = "sa-token", .uid = "u-t", .controller = true}};
  const ObjectDecision gone = decide(token, &owned, won());
  EXPECT_EQ(gone.action, Action::kDelete);
  EXPECT_NE(gone.message.find("is never propagated: ServiceAccount token Secrets"),
            std::string::npos)
      << gone.message;
}

TEST(FederateObject, ASourceBeingDeletedIsLeftToTheGarbageCollector) {
  json::object cm = parse(kConfigMap);
  cm["metadata"].as_object()["deletionTimestamp"] = "2026-11-27T00:00:00Z";
  EXPECT_EQ(decide(cm, nullptr, won()).action, Action::kNone);
}

TEST(FederateObject, AFollowerIsFederatedWithoutAPolicyWhileAWorkloadNeedsIt) {
  const json::object cm = parse(R"({"apiVersion":"v1","kind":"ConfigMap",
    "metadata":{"name":"env","namespace":"shop","uid":"uid-env",
      "annotations":{"flotilla.io/follow":"true"}},"data":{"MODE":"fast"}})");
  const auto& i = interp(cm);
  // Needed by a workload, no policy of its own: federated, no policy recorded.
  auto d = decideFederatedObject(cm, nullptr, Resolution{}, false, i, true);
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.desired.metadata.annotations.count(kPolicyAnnotation), 0u);
  // Still needed: nothing to write.
  const api::FederatedObject existing = d.desired;
  EXPECT_EQ(decideFederatedObject(cm, &existing, Resolution{}, false, i, true).action,
            Action::kNone);
  // No workload needs it any more and no policy governs it: unfederated (its binding's
  // requirements kept it on the clusters until its leaders' copies were gone).
  EXPECT_EQ(decideFederatedObject(cm, &existing, Resolution{}, false, i, false).action,
            Action::kDelete);
  // A policy selects it as well: its own policy is recorded.
  auto withPolicy = decideFederatedObject(cm, &existing, won(), true, i, true);
  EXPECT_EQ(withPolicy.action, Action::kUpdate);
  EXPECT_EQ(withPolicy.desired.metadata.annotations.at(kPolicyAnnotation), kApp.str());
  // The opt-out stays on the federated object for the binding controller.
  json::object optedOut = cm;
  optedOut["metadata"].as_object()["annotations"].as_object()["flotilla.io/follow"] = "false";
  auto o = decideFederatedObject(optedOut, nullptr, won(), true, i, false);
  EXPECT_EQ(o.desired.metadata.annotations.at("flotilla.io/follow"), "false");
  // A token Secret never follows.
  const json::object token = parse(R"({"apiVersion":"v1","kind":"Secret","type":
    "kubernetes.io/service-account-token","metadata":{"name":"t","namespace":"shop","uid":"u"}})");
  EXPECT_EQ(decideFederatedObject(token, nullptr, Resolution{}, false, interp(token), true).action,
            Action::kNone);
}

TEST(KindsNamed, OnlyWhatPoliciesNameAndMayBePropagated) {
  auto pp = api::testing::fromYaml<api::PropagationPolicy>(R"(
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: app, namespace: demo}
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, name: settings}
  - {apiVersion: v1, kind: Secret}
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  - {apiVersion: v1, kind: Event}
  - {apiVersion: flotilla.io/v1alpha1, kind: FederatedObject}
)");
  auto cpp = api::testing::fromYaml<api::ClusterPropagationPolicy>(R"(
apiVersion: flotilla.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: platform}
spec:
  resourceSelectors:
  - {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole}
  - {apiVersion: v1, kind: ConfigMap}
)");
  SourceScope everywhere{.allNamespaces = true};
  SourceScope demo{.namespaces = {"demo"}};
  EXPECT_EQ(
      kindsNamed({pp}, {cpp}),
      (std::map<KindKey, SourceScope>{{{"rbac.authorization.k8s.io/v1", "ClusterRole"}, everywhere},
                                      {{"v1", "ConfigMap"}, everywhere},
                                      {{"v1", "Secret"}, demo}}));
  EXPECT_TRUE(kindsNamed({}, {}).empty());
  // Without the ClusterPropagationPolicy, ConfigMaps are watched in the policy's namespace only;
  // a ClusterPropagationPolicy selector that names a namespace adds that one.
  auto scoped = cpp;
  scoped.spec.resourceSelectors = {{"v1", "ConfigMap", "team-b", "", {}}};
  EXPECT_EQ(kindsNamed({pp}, {scoped}).at({"v1", "ConfigMap"}),
            (SourceScope{.namespaces = {"demo", "team-b"}}));
  // Two versions of one kind: watched once, in the preferred version.
  auto hpa = cpp;
  hpa.spec.resourceSelectors = {{"autoscaling/v2beta2", "HorizontalPodAutoscaler", "", "", {}},
                                {"autoscaling/v2", "HorizontalPodAutoscaler", "", "", {}},
                                {"autoscaling/v1", "HorizontalPodAutoscaler", "", "", {}}};
  EXPECT_EQ(kindsNamed({}, {hpa}),
            (std::map<KindKey, SourceScope>{
                {{"autoscaling/v2", "HorizontalPodAutoscaler"}, everywhere}}));
}

}  // namespace
}  // namespace flotilla::controllers::federate
