#include "controllers/federate/federate.h"

#include <gtest/gtest.h>

#include "api/json_codec.h"
#include "api/test_util.h"
#include "controllers/common/managed.h"

namespace flotilla::controllers::federate {
namespace {

using policy::MatchTier;
using policy::PolicyKey;
using policy::Resolution;

const PolicyKey kSpread{"PropagationPolicy", "demo", "spread"};

api::Deployment deployment() {
  return api::testing::fromYaml<api::Deployment>(R"(
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: demo
  uid: uid-web
  resourceVersion: "41"
  generation: 2
  labels:
    app: web
    flotilla.io/propagation-policy: spread
  annotations:
    team: storefront
    flotilla.io/note: host only
    kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"apps/v1"}'
    deployment.kubernetes.io/revision: "2"
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  strategy:
    type: RollingUpdate
    rollingUpdate: {maxSurge: 1, maxUnavailable: 0}
  minReadySeconds: 5
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources:
          requests: {cpu: 100m}
status:
  replicas: 3
)");
}

Resolution won(const PolicyKey& key = kSpread) {
  return {.policy = policy::ResolvedPolicy{.key = key, .tier = MatchTier::kExplicitLabel}};
}

Resolution none() { return {.message = "no policy selects Deployment demo/web"}; }

// The FederatedDeployment as the API server returns it after `decision` created it.
api::FederatedDeployment stored(const FederateDecision& decision) {
  api::FederatedDeployment fd = decision.desired;
  fd.metadata.uid = "uid-fd";
  fd.metadata.resourceVersion = "100";
  fd.metadata.generation = 1;
  fd.metadata.creationTimestamp = "2026-11-01T10:00:00Z";
  fd.metadata.annotations["example.com/other"] = "kept";
  fd.metadata.finalizers.insert(fd.metadata.finalizers.begin(), "example.com/finalizer");
  fd.status.replicas = 3;
  fd.status.ready = "3/3";
  return fd;
}

TEST(FederateTest, WorkloadOf) {
  auto d = deployment();
  d.apiVersion.clear();  // list items may come without apiVersion and kind
  d.kind.clear();
  const policy::Workload w = workloadOf(d);
  EXPECT_EQ(w.apiVersion, "apps/v1");
  EXPECT_EQ(w.kind, "Deployment");
  EXPECT_EQ(w.ns, "demo");
  EXPECT_EQ(w.name, "web");
  EXPECT_EQ(w.labels, d.metadata.labels);
}

TEST(FederateTest, CreatesFromLabelledDeployment) {
  const auto d = deployment();
  const FederateDecision decision = decideFederated(d, nullptr, won(), false);
  ASSERT_EQ(decision.action, Action::kCreate);
  const api::FederatedDeployment& fd = decision.desired;
  EXPECT_EQ(fd.apiVersion, "flotilla.io/v1alpha1");
  EXPECT_EQ(fd.kind, "FederatedDeployment");
  EXPECT_EQ(fd.metadata.name, "web");
  EXPECT_EQ(fd.metadata.namespace_, "demo");
  EXPECT_EQ(fd.metadata.uid, "");
  EXPECT_EQ(fd.metadata.resourceVersion, "");
  // Every label, so policies select the FederatedDeployment as they selected the Deployment.
  EXPECT_EQ(fd.metadata.labels, d.metadata.labels);
  EXPECT_EQ(fd.metadata.annotations,
            (std::map<std::string, std::string>{
                {kPolicyAnnotation, "PropagationPolicy/demo/spread"},
                {kSourceGenerationAnnotation, std::to_string(d.metadata.generation)}}));
  // Created with the sync controller's cleanup finalizer (no second write to add it).
  EXPECT_EQ(fd.metadata.finalizers, std::vector<std::string>{kCleanupFinalizer});
  const api::OwnerReference owner{.apiVersion = "apps/v1",
                                  .kind = "Deployment",
                                  .name = "web",
                                  .uid = "uid-web",
                                  .controller = true,
                                  .blockOwnerDeletion = true};
  EXPECT_EQ(fd.metadata.ownerReferences, std::vector<api::OwnerReference>{owner});

  const api::DeploymentTemplate& t = fd.spec.template_;
  EXPECT_EQ(t.metadata.labels, (std::map<std::string, std::string>{{"app", "web"}}));
  EXPECT_EQ(t.metadata.annotations,
            (std::map<std::string, std::string>{{"team", "storefront"},
                                                {"deployment.kubernetes.io/revision", "2"}}));
  EXPECT_EQ(t.metadata.name, "");
  EXPECT_EQ(t.metadata.uid, "");
  EXPECT_TRUE(fd.spec.overrides.empty());
  EXPECT_EQ(fd.status.replicas, 0);

  // The spec verbatim, fields Flotilla does not model included.
  const auto json = api::encode(fd);
  const auto& spec = json.at("spec").at("template").at("spec");
  EXPECT_EQ(spec, api::encode(d).at("spec"));
  EXPECT_EQ(spec.at("strategy").at("rollingUpdate").at("maxSurge"), 1);
  EXPECT_EQ(spec.at("minReadySeconds"), 5);
  EXPECT_EQ(spec.at("replicas"), 3);
  EXPECT_EQ(spec.at("template").at("spec").at("containers").at(0).at("image"), "nginx:1.27");
}

TEST(FederateTest, UpdatesOnlyWhenSomethingChanged) {
  auto d = deployment();
  const auto existing = stored(decideFederated(d, nullptr, won(), false));

  // Same input again (and changes the template does not carry): nothing to write.
  FederateDecision decision = decideFederated(d, &existing, won(), true);
  EXPECT_EQ(decision.action, Action::kNone);
  d.metadata.resourceVersion = "42";
  d.status.readyReplicas = 3;
  d.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] = "{}";
  decision = decideFederated(d, &existing, won(), true);
  EXPECT_EQ(decision.action, Action::kNone);

  // A template change is propagated; what others own on the object is kept.
  d.spec.replicas = 5;
  d.spec.template_.spec.containers[0].image = "nginx:1.28";
  decision = decideFederated(d, &existing, won(), true);
  ASSERT_EQ(decision.action, Action::kUpdate);
  const auto& fd = decision.desired;
  EXPECT_EQ(fd.spec.template_.spec.replicas, 5);
  EXPECT_EQ(fd.spec.template_.spec.template_.spec.containers[0].image, "nginx:1.28");
  EXPECT_EQ(fd.metadata.uid, "uid-fd");
  EXPECT_EQ(fd.metadata.resourceVersion, "100");
  EXPECT_EQ(fd.metadata.creationTimestamp, "2026-11-01T10:00:00Z");
  EXPECT_EQ(fd.metadata.annotations.at("example.com/other"), "kept");
  EXPECT_EQ(fd.metadata.annotations.at(kPolicyAnnotation), "PropagationPolicy/demo/spread");
  EXPECT_EQ(fd.metadata.finalizers, existing.metadata.finalizers);
  EXPECT_EQ(fd.status.ready, "3/3");

  // Labels are followed too, on the object and (without flotilla.io/ ones) on the template.
  d = deployment();
  d.metadata.labels["version"] = "v2";
  decision = decideFederated(d, &existing, won(), true);
  ASSERT_EQ(decision.action, Action::kUpdate);
  EXPECT_EQ(decision.desired.metadata.labels, d.metadata.labels);
  EXPECT_EQ(decision.desired.spec.template_.metadata.labels.at("version"), "v2");
}

TEST(FederateTest, AnotherWinningPolicyRewritesTheAnnotation) {
  const auto d = deployment();
  const auto existing = stored(decideFederated(d, nullptr, won(), false));
  const PolicyKey global{"ClusterPropagationPolicy", "", "global"};
  const FederateDecision decision = decideFederated(d, &existing, won(global), true);
  ASSERT_EQ(decision.action, Action::kUpdate);
  EXPECT_EQ(decision.desired.metadata.annotations.at(kPolicyAnnotation),
            "ClusterPropagationPolicy/global");
}

TEST(FederateTest, OwnerReferencesAreReset) {
  const auto d = deployment();
  auto existing = stored(decideFederated(d, nullptr, won(), false));
  existing.metadata.ownerReferences.push_back(
      {.apiVersion = "v1", .kind = "ConfigMap", .name = "x", .uid = "uid-x"});
  const FederateDecision decision = decideFederated(d, &existing, won(), true);
  ASSERT_EQ(decision.action, Action::kUpdate);
  ASSERT_EQ(decision.desired.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(decision.desired.metadata.ownerReferences[0].uid, "uid-web");
}

TEST(FederateTest, OverridesAreKept) {
  auto d = deployment();
  auto existing = stored(decideFederated(d, nullptr, won(), false));
  existing.spec.overrides = {
      {.clusterName = "member1",
       .patches = {{.op = "replace", .path = "/spec/replicas", .value = 1}}}};
  d.spec.template_.spec.containers[0].image = "nginx:1.28";
  const FederateDecision decision = decideFederated(d, &existing, won(), true);
  ASSERT_EQ(decision.action, Action::kUpdate);
  ASSERT_EQ(decision.desired.spec.overrides.size(), 1u);
  EXPECT_EQ(api::encode(decision.desired).at("spec").at("overrides"),
            api::encode(existing).at("spec").at("overrides"));
}

TEST(FederateTest, LabelRemovedDeletes) {
  auto d = deployment();
  const auto existing = stored(decideFederated(d, nullptr, won(), false));
  d.metadata.labels.erase(policy::kPolicyLabel);
  // The label's policy still exists; nothing selects the Deployment any more.
  const FederateDecision decision = decideFederated(d, &existing, none(), true);
  EXPECT_EQ(decision.action, Action::kDelete);
  EXPECT_EQ(decision.desired.metadata.uid, "uid-fd");
  EXPECT_EQ(decision.message, "no policy selects Deployment demo/web");
}

TEST(FederateTest, DeletedClaimedPolicyKeepsTheWorkload) {
  // Selected by a policy (no label); that policy is then deleted.
  auto d = deployment();
  d.metadata.labels.erase(policy::kPolicyLabel);
  const auto existing = stored(decideFederated(d, nullptr, won(), false));

  FederateDecision decision = decideFederated(d, &existing, none(), false);
  EXPECT_EQ(decision.action, Action::kNone);

  // Template changes still flow, under the old claim.
  d.spec.replicas = 7;
  decision = decideFederated(d, &existing, none(), false);
  ASSERT_EQ(decision.action, Action::kUpdate);
  EXPECT_EQ(decision.desired.metadata.annotations.at(kPolicyAnnotation),
            "PropagationPolicy/demo/spread");
  EXPECT_EQ(decision.desired.spec.template_.spec.replicas, 7);

  // The policy exists but was edited to select something else: un-federate.
  decision = decideFederated(d, &existing, none(), true);
  EXPECT_EQ(decision.action, Action::kDelete);

  // Without a claim annotation there is nothing that keeps it.
  auto unclaimed = existing;
  unclaimed.metadata.annotations.erase(kPolicyAnnotation);
  decision = decideFederated(d, &unclaimed, none(), false);
  EXPECT_EQ(decision.action, Action::kDelete);
}

TEST(FederateTest, LabelNamingMissingPolicyStillFederates) {
  // The user asked for the policy; the binding controller reports that it does not exist.
  const auto d = deployment();
  const Resolution requested{.requested = kSpread,
                             .message =
                                 "PropagationPolicy demo/spread named by label "
                                 "flotilla.io/propagation-policy does not exist"};
  const FederateDecision decision = decideFederated(d, nullptr, requested, false);
  ASSERT_EQ(decision.action, Action::kCreate);
  EXPECT_EQ(decision.desired.metadata.annotations.at(kPolicyAnnotation),
            "PropagationPolicy/demo/spread");
  EXPECT_EQ(decision.message, requested.message);
}

// docs/security.md H2: a labelled policy that refuses the workload federates nothing, and what
// was federated through the label before goes.
TEST(FederateTest, RefusedLabelUnfederates) {
  const auto d = deployment();
  Resolution refused{.requested = kSpread, .refused = true};
  refused.message =
      "PropagationPolicy demo/spread named by label flotilla.io/propagation-policy does not "
      "accept ...";
  auto decision = decideFederated(d, nullptr, refused, false);
  EXPECT_EQ(decision.action, Action::kNone);
  EXPECT_EQ(decision.refusal, refused.message);
  const auto existing = stored(decideFederated(d, nullptr, won(), false));
  decision = decideFederated(d, &existing, refused, true);
  EXPECT_EQ(decision.action, Action::kDelete);
  EXPECT_EQ(decision.refusal, refused.message);
}

TEST(FederateTest, NotWantedAndAbsentIsNothing) {
  EXPECT_EQ(decideFederated(deployment(), nullptr, none(), false).action, Action::kNone);
}

TEST(FederateTest, ConflictWithUnownedFederatedDeployment) {
  const auto d = deployment();
  auto foreign = stored(decideFederated(d, nullptr, won(), false));

  struct Case {
    const char* what;
    std::vector<api::OwnerReference> owners;
  };
  const std::vector<Case> cases = {
      {"no owner", {}},
      {"another Deployment (same name, recreated)",
       {{.apiVersion = "apps/v1",
         .kind = "Deployment",
         .name = "web",
         .uid = "uid-old",
         .controller = true}}},
      {"our uid but not as controller",
       {{.apiVersion = "apps/v1", .kind = "Deployment", .name = "web", .uid = "uid-web"}}},
      {"our uid, controller false",
       {{.apiVersion = "apps/v1",
         .kind = "Deployment",
         .name = "web",
         .uid = "uid-web",
         .controller = false}}},
  };
  for (const auto& c : cases) {
    foreign.metadata.ownerReferences = c.owners;
    FederateDecision decision = decideFederated(d, &foreign, won(), false);
    EXPECT_EQ(decision.action, Action::kConflict) << c.what;
    EXPECT_EQ(decision.message,
              "FederatedDeployment demo/web exists and is not controlled by Deployment demo/web; "
              "leaving it alone")
        << c.what;
    // Not wanted: still never deleted.
    decision = decideFederated(d, &foreign, none(), false);
    EXPECT_EQ(decision.action, Action::kNone) << c.what;
  }
}

TEST(FederateTest, DeletingDeploymentIsLeftToGarbageCollection) {
  auto d = deployment();
  const auto existing = stored(decideFederated(d, nullptr, won(), false));
  d.metadata.deletionTimestamp = "2026-11-01T11:00:00Z";
  EXPECT_EQ(decideFederated(d, nullptr, won(), false).action, Action::kNone);
  EXPECT_EQ(decideFederated(d, &existing, won(), true).action, Action::kNone);
  EXPECT_EQ(decideFederated(d, &existing, none(), true).action, Action::kNone);
}

}  // namespace
}  // namespace flotilla::controllers::federate
