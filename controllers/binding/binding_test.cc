#include "controllers/binding/binding.h"

#include <gtest/gtest.h>

#include "api/conditions.h"
#include "api/json_codec.h"
#include "api/test_util.h"
#include "api/validation.h"
#include "interpreter/pod_requests.h"

namespace flotilla::controllers::binding {
namespace {

// The binding carries the policy's placement defaulted, as the mutating webhook stores it.
api::Placement defaulted(api::Placement placement) {
  api::setDefaults(placement);
  return placement;
}

using policy::MatchTier;
using policy::PolicyKey;
using policy::Resolution;

constexpr const char* kT0 = "2026-11-01T10:00:00Z";
constexpr const char* kT1 = "2026-11-01T10:05:00Z";
constexpr const char* kT2 = "2026-11-01T10:10:00Z";

api::Quantity q(const char* text) {
  auto parsed = api::Quantity::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed ? *parsed : api::Quantity{};
}

api::FederatedDeployment fd() {
  return api::testing::fromYaml<api::FederatedDeployment>(R"(
apiVersion: flotilla.io/v1alpha1
kind: FederatedDeployment
metadata:
  name: web
  namespace: demo
  uid: uid-fd
  generation: 1
  labels: {app: web}
spec:
  template:
    spec:
      replicas: 6
      selector:
        matchLabels: {app: web}
      template:
        metadata:
          labels: {app: web}
        spec:
          nodeSelector: {disktype: ssd}
          tolerations:
          - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
          initContainers:
          - name: migrate
            image: migrate:1
            resources:
              requests: {cpu: "1", memory: 32Mi}
          containers:
          - name: web
            image: nginx:1.27
            resources:
              requests: {cpu: 200m, memory: 128Mi}
          - name: sidecar
            image: envoy:1
            resources:
              requests: {cpu: 100m, memory: 64Mi}
          overhead: {cpu: 50m}
)");
}

api::PropagationPolicy spread() {
  return api::testing::fromYaml<api::PropagationPolicy>(R"(
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: spread
  namespace: demo
  generation: 4
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  priority: 10
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
    replicaScheduling:
      type: Divided
)");
}

Resolution won(const api::PropagationPolicy& p) {
  return {.policy = policy::ResolvedPolicy{
              .key = {"PropagationPolicy", p.metadata.namespace_, p.metadata.name},
              .tier = MatchTier::kName,
              .priority = p.spec.priority,
              .generation = p.metadata.generation,
              .spec = &p.spec}};
}

Resolution none() { return {.message = "no policy selects Deployment demo/web"}; }

// The binding as stored after `decision` created it, the scheduler placed it and the status was
// written: what the next reconcile sees.
api::ResourceBinding stored(const BindingDecision& decision) {
  api::ResourceBinding rb = decision.desired;
  rb.metadata.uid = "uid-rb";
  rb.metadata.resourceVersion = "200";
  rb.metadata.generation = 1;
  rb.metadata.annotations["flotilla.io/schedule-record"] = R"({"generation":1})";
  rb.metadata.finalizers = {"flotilla.io/sync"};
  rb.spec.clusters = {{"member1", 2}, {"member2", 4}};
  for (auto& c : rb.status.conditions) c.observedGeneration = 1;
  api::setCondition(rb.status.conditions, "Scheduled", "True", "Success", "", 1, kT0);
  rb.status.placementSummary = "member1=2 member2=4";
  return rb;
}

TEST(BindingTest, ReplicaRequirements) {
  const auto f = fd();
  const api::ReplicaRequirements r =
      interpreter::replicaRequirements(f.spec.template_.spec.template_);
  // cpu: max(init 1, 200m+100m) + 50m overhead; memory: max(32Mi, 192Mi).
  EXPECT_EQ(r.resourceRequest, (api::ResourceList{{"cpu", q("1050m")}, {"memory", q("192Mi")}}));
  EXPECT_EQ(r.nodeSelector, (std::map<std::string, std::string>{{"disktype", "ssd"}}));
  ASSERT_EQ(r.tolerations.size(), 1u);
  EXPECT_EQ(r.tolerations[0].key, "dedicated");
}

TEST(BindingTest, WorkloadOf) {
  const policy::Workload w = workloadOf(fd());
  EXPECT_EQ(w.apiVersion, "apps/v1");
  EXPECT_EQ(w.kind, "Deployment");
  EXPECT_EQ(w.ns, "demo");
  EXPECT_EQ(w.name, "web");
  EXPECT_EQ(w.labels, (std::map<std::string, std::string>{{"app", "web"}}));
}

TEST(BindingTest, Create) {
  const auto f = fd();
  const auto p = spread();
  const BindingDecision d = decideBinding(f, won(p), nullptr, kT0);
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_FALSE(d.statusChanged);  // nothing to say: no status write after the create
  EXPECT_EQ(d.eventReason, "");

  const api::ResourceBinding& rb = d.desired;
  EXPECT_EQ(rb.kind, "ResourceBinding");
  EXPECT_EQ(rb.metadata.name, "web");
  EXPECT_EQ(rb.metadata.namespace_, "demo");
  const api::OwnerReference owner{.apiVersion = "flotilla.io/v1alpha1",
                                  .kind = "FederatedDeployment",
                                  .name = "web",
                                  .uid = "uid-fd",
                                  .controller = true,
                                  .blockOwnerDeletion = true};
  EXPECT_EQ(rb.metadata.ownerReferences, std::vector<api::OwnerReference>{owner});
  EXPECT_EQ(rb.spec.resource.apiVersion, "flotilla.io/v1alpha1");
  EXPECT_EQ(rb.spec.resource.kind, "FederatedDeployment");
  EXPECT_EQ(rb.spec.resource.namespace_, "demo");
  EXPECT_EQ(rb.spec.resource.name, "web");
  EXPECT_EQ(rb.spec.resource.uid, "uid-fd");
  EXPECT_EQ(rb.spec.replicas, 6);
  EXPECT_EQ(rb.spec.replicaRequirements.resourceRequest.at("cpu"), q("1050m"));
  EXPECT_EQ(rb.spec.policy.kind, "PropagationPolicy");
  EXPECT_EQ(rb.spec.policy.name, "spread");
  EXPECT_EQ(rb.spec.policy.namespace_, "demo");
  EXPECT_EQ(rb.spec.policy.generation, 4);
  EXPECT_EQ(api::encode(rb.spec.placement), api::encode(defaulted(p.spec.placement)));
  EXPECT_EQ(rb.spec.priority, 10);
  EXPECT_TRUE(rb.spec.clusters.empty());

  // PolicyBound appears only once something went wrong (see binding.cc).
  EXPECT_TRUE(rb.status.conditions.empty());
}

TEST(BindingTest, ClusterPolicyReference) {
  api::ClusterPropagationPolicy global;
  global.metadata.name = "global";
  global.metadata.generation = 2;
  global.spec.priority = -1;
  const Resolution r{.policy =
                         policy::ResolvedPolicy{.key = {"ClusterPropagationPolicy", "", "global"},
                                                .tier = MatchTier::kKindOnly,
                                                .priority = -1,
                                                .generation = 2,
                                                .spec = &global.spec}};
  const BindingDecision d = decideBinding(fd(), r, nullptr, kT0);
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.desired.spec.policy.kind, "ClusterPropagationPolicy");
  EXPECT_EQ(d.desired.spec.policy.name, "global");
  EXPECT_EQ(d.desired.spec.policy.namespace_, "");
  EXPECT_EQ(d.desired.spec.policy.generation, 2);
  EXPECT_EQ(d.desired.spec.priority, -1);
}

TEST(BindingTest, ReplicasAbsentMeanOne) {
  auto f = fd();
  f.spec.template_.spec.replicas.reset();
  const auto p = spread();
  EXPECT_EQ(decideBinding(f, won(p), nullptr, kT0).desired.spec.replicas, 1);
  f.spec.template_.spec.replicas = 0;
  EXPECT_EQ(decideBinding(f, won(p), nullptr, kT0).desired.spec.replicas, 0);
}

TEST(BindingTest, IdenticalIsNoOp) {
  const auto f = fd();
  const auto p = spread();
  const auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  const BindingDecision d = decideBinding(f, won(p), &existing, kT1);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.eventReason, "");
  EXPECT_EQ(api::encode(d.desired), api::encode(existing));
}

TEST(BindingTest, SchedulerGenerationBumpsCauseNoStatusWrite) {
  const auto f = fd();
  const auto p = spread();
  auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  existing.metadata.generation = 3;  // the scheduler wrote spec.clusters
  const BindingDecision d = decideBinding(f, won(p), &existing, kT1);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_FALSE(d.statusChanged);
}

TEST(BindingTest, ObservedGenerationFollowsTheBindingWhilePolicyIsMissing) {
  const auto f = fd();
  const auto p = spread();
  auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  existing = stored(decideBinding(f, policy::Resolution{}, &existing, kT0));
  existing.metadata.generation = 3;
  const BindingDecision d = decideBinding(f, policy::Resolution{}, &existing, kT1);
  EXPECT_TRUE(d.statusChanged);
  const api::Condition* c = api::findCondition(d.desired.status.conditions, "PolicyBound");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->observedGeneration, 3);
  EXPECT_EQ(c->lastTransitionTime, kT0);  // status unchanged: no transition
}

TEST(BindingTest, ChangesUpdateAndKeepWhatOthersOwn) {
  const auto f = fd();
  const auto p = spread();
  const auto existing = stored(decideBinding(f, won(p), nullptr, kT0));

  auto edited = spread();
  edited.metadata.generation = 5;
  edited.spec.placement.clusterAffinity->clusterNames.push_back("member3");
  auto reprioritized = spread();
  reprioritized.spec.priority = 20;
  auto scaled = fd();
  scaled.spec.template_.spec.replicas = 9;
  auto bigger = fd();
  bigger.spec.template_.spec.template_.spec.containers[0].resources.requests["cpu"] = q("2");
  auto newGeneration = spread();
  newGeneration.metadata.generation = 6;

  struct Case {
    const char* what;
    const api::FederatedDeployment& fd;
    const api::PropagationPolicy& policy;
  };
  const std::vector<Case> cases = {
      {"placement and generation", f, edited},
      {"generation only", f, newGeneration},
      {"priority", f, reprioritized},
      {"replicas", scaled, p},
      {"requests", bigger, p},
  };
  for (const auto& c : cases) {
    const BindingDecision d = decideBinding(c.fd, won(c.policy), &existing, kT1);
    ASSERT_EQ(d.action, Action::kUpdate) << c.what;
    const auto& rb = d.desired;
    EXPECT_EQ(rb.spec.policy.generation, c.policy.metadata.generation) << c.what;
    EXPECT_EQ(api::encode(rb.spec.placement), api::encode(defaulted(c.policy.spec.placement)))
        << c.what;
    EXPECT_EQ(rb.spec.priority, c.policy.spec.priority) << c.what;
    EXPECT_EQ(rb.spec.replicas, *c.fd.spec.template_.spec.replicas) << c.what;
    // The scheduler's result and everyone's metadata stay.
    EXPECT_EQ(rb.spec.clusters, existing.spec.clusters) << c.what;
    EXPECT_EQ(rb.metadata.annotations, existing.metadata.annotations) << c.what;
    EXPECT_EQ(rb.metadata.resourceVersion, "200") << c.what;
    EXPECT_EQ(rb.metadata.uid, "uid-rb") << c.what;
    EXPECT_EQ(rb.metadata.finalizers, existing.metadata.finalizers) << c.what;
    EXPECT_EQ(api::encode(rb).at("status"), api::encode(existing).at("status")) << c.what;
    EXPECT_FALSE(d.statusChanged) << c.what;
    EXPECT_EQ(d.eventReason, "") << c.what;
  }
}

TEST(BindingTest, OwnerReferenceIsRestored) {
  const auto f = fd();
  const auto p = spread();
  auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  existing.metadata.ownerReferences[0].blockOwnerDeletion.reset();
  const BindingDecision d = decideBinding(f, won(p), &existing, kT1);
  EXPECT_EQ(d.action, Action::kUpdate);
  EXPECT_EQ(d.desired.metadata.ownerReferences[0].blockOwnerDeletion, true);
}

TEST(BindingTest, NoPolicyAndNoBinding) {
  const Resolution r{.requested = PolicyKey{"PropagationPolicy", "demo", "x"},
                     .message =
                         "PropagationPolicy demo/x named by label "
                         "flotilla.io/propagation-policy does not exist"};
  const BindingDecision d = decideBinding(fd(), r, nullptr, kT0);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.eventType, "Warning");
  EXPECT_EQ(d.eventReason, "PolicyNotFound");
  EXPECT_EQ(d.eventMessage, r.message);
}

TEST(BindingTest, DeletedPolicyKeepsThePlacement) {
  auto f = fd();
  const auto p = spread();
  const auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  const std::string message =
      "PropagationPolicy demo/spread no longer exists; keeping the current placement (member1=2 "
      "member2=4)";

  BindingDecision d = decideBinding(f, none(), &existing, kT1);
  EXPECT_EQ(d.action, Action::kNone);  // spec unchanged: policy, placement, priority, clusters
  EXPECT_EQ(api::encode(d.desired).at("spec"), api::encode(existing).at("spec"));
  EXPECT_TRUE(d.statusChanged);
  const api::Condition* c = api::findCondition(d.desired.status.conditions, "PolicyBound");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "PolicyNotFound");
  EXPECT_EQ(c->message, message);
  EXPECT_EQ(c->lastTransitionTime, kT1);
  EXPECT_NE(api::findCondition(d.desired.status.conditions, "Scheduled"), nullptr);
  EXPECT_EQ(d.eventType, "Warning");
  EXPECT_EQ(d.eventReason, "PolicyNotFound");
  EXPECT_EQ(d.eventMessage, message);

  // The next reconcile (status written): no new event, nothing to write.
  auto after = existing;
  after.status = d.desired.status;
  d = decideBinding(f, none(), &after, kT2);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.eventReason, "");

  // The template still flows; the placement stays.
  f.spec.template_.spec.replicas = 8;
  d = decideBinding(f, none(), &after, kT2);
  ASSERT_EQ(d.action, Action::kUpdate);
  EXPECT_EQ(d.desired.spec.replicas, 8);
  EXPECT_EQ(d.desired.spec.policy.name, "spread");
  EXPECT_EQ(d.desired.spec.policy.generation, 4);
  EXPECT_EQ(d.desired.spec.priority, 10);
  EXPECT_EQ(api::encode(d.desired.spec.placement), api::encode(defaulted(p.spec.placement)));
  EXPECT_EQ(d.desired.spec.clusters, existing.spec.clusters);
  EXPECT_EQ(d.eventReason, "");

  // The policy comes back: bound again.
  d = decideBinding(fd(), won(p), &after, kT2);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_TRUE(d.statusChanged);
  c = api::findCondition(d.desired.status.conditions, "PolicyBound");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->lastTransitionTime, kT2);
}

TEST(BindingTest, LabelNamingAnotherMissingPolicy) {
  const auto f = fd();
  const auto p = spread();
  auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  existing.spec.clusters.clear();
  const Resolution r{.requested = PolicyKey{"PropagationPolicy", "demo", "x"},
                     .message =
                         "PropagationPolicy demo/x named by label "
                         "flotilla.io/propagation-policy does not exist"};
  const BindingDecision d = decideBinding(f, r, &existing, kT1);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_EQ(d.desired.spec.policy.name, "spread");
  EXPECT_EQ(d.eventMessage, r.message + "; keeping the current placement (none)");
}

TEST(BindingTest, ConflictWithBindingOfAnotherOwner) {
  const auto f = fd();
  const auto p = spread();
  auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  existing.metadata.ownerReferences[0].uid = "uid-old-fd";
  const BindingDecision d = decideBinding(f, won(p), &existing, kT1);
  EXPECT_EQ(d.action, Action::kConflict);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.eventType, "Warning");
  EXPECT_EQ(d.eventReason, "BindingConflict");
  EXPECT_EQ(d.eventMessage,
            "ResourceBinding demo/web exists and is not controlled by FederatedDeployment "
            "demo/web; leaving it alone");
  EXPECT_EQ(d.desired.metadata.name, "");

  existing.metadata.ownerReferences.clear();
  EXPECT_EQ(decideBinding(f, won(p), &existing, kT1).action, Action::kConflict);
}

TEST(BindingTest, DeletingFederatedDeployment) {
  auto f = fd();
  const auto p = spread();
  const auto existing = stored(decideBinding(f, won(p), nullptr, kT0));
  f.metadata.deletionTimestamp = kT1;
  BindingDecision d = decideBinding(f, won(p), nullptr, kT1);
  EXPECT_EQ(d.action, Action::kNone);
  d = decideBinding(f, none(), &existing, kT1);
  EXPECT_EQ(d.action, Action::kNone);
  EXPECT_FALSE(d.statusChanged);
  EXPECT_EQ(d.eventReason, "");
}

TEST(DecideBinding, AFederatedObjectIsBoundToTheObjectItCarries) {
  // A ConfigMap: the binding names v1 ConfigMap demo/settings (what `kubectl get rb` shows and
  // the scheduler checks members serve), is owned by the FederatedObject, and asks for no replicas.
  auto fo = api::testing::fromYaml<api::FederatedObject>(R"(
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: settings-configmap, namespace: demo, uid: uid-fo, generation: 1, labels: {app: web}}
spec:
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings, namespace: demo, labels: {app: web}}
    data: {mode: fast}
)");
  const auto subject = subjectOf(fo);
  EXPECT_EQ(subject.workload.kind, "ConfigMap");
  EXPECT_EQ(subject.workload.labels.at("app"), "web");
  const auto p = spread();
  const auto d = decideBinding(subject, won(p), nullptr, kT0);
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_EQ(d.desired.metadata.name, "settings-configmap");
  EXPECT_EQ(d.desired.spec.resource.apiVersion, "v1");
  EXPECT_EQ(d.desired.spec.resource.kind, "ConfigMap");
  EXPECT_EQ(d.desired.spec.resource.name, "settings");
  EXPECT_EQ(d.desired.spec.replicas, 0);
  ASSERT_EQ(d.desired.metadata.ownerReferences.size(), 1u);
  EXPECT_EQ(d.desired.metadata.ownerReferences[0].kind, "FederatedObject");
  EXPECT_EQ(d.desired.metadata.ownerReferences[0].uid, "uid-fo");
  // A FederatedDeployment's binding of the same name is not this object's: a conflict.
  auto theirs = decideBinding(fd(), won(p), nullptr, kT0).desired;
  theirs.metadata.name = "settings-configmap";
  EXPECT_EQ(decideBinding(subject, won(p), &theirs, kT1).action, Action::kConflict);
}

TEST(DecideBinding, AStatefulSetIsDuplicatedUnlessItsPolicySaysDivided) {
  auto fo = api::testing::fromYaml<api::FederatedObject>(R"(
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: web-statefulset, namespace: demo, uid: uid-fo, generation: 1}
spec:
  template:
    apiVersion: apps/v1
    kind: StatefulSet
    metadata: {name: web, namespace: demo}
    spec: {replicas: 5, serviceName: web, template: {spec: {containers: [{name: c, image: i}]}}}
)");
  const auto subject = subjectOf(fo);
  EXPECT_EQ(subject.replicas, 5);
  // A policy that leaves the type out (defaulted as admission stores it): the kind's default.
  auto p = spread();
  p.spec.placement.replicaScheduling.reset();
  api::setDefaults(p);
  const auto duplicated = decideBinding(subject, won(p), nullptr, kT0);
  ASSERT_EQ(duplicated.action, Action::kCreate);
  EXPECT_EQ(duplicated.desired.spec.placement.replicaScheduling->type, "Duplicated");
  // The same policy makes a Deployment's binding Divided.
  EXPECT_EQ(decideBinding(fd(), won(p), nullptr, kT0).desired.spec.placement.replicaScheduling->type,
            "Divided");
  // Said in the policy: divided.
  const auto divided = decideBinding(subject, won(spread()), nullptr, kT0);
  EXPECT_EQ(divided.desired.spec.placement.replicaScheduling->type, "Divided");
}

TEST(DecideBinding, AFollowerIsBoundWithoutAPolicyToItsLeadersClusters) {
  auto fo = api::testing::fromYaml<api::FederatedObject>(R"(
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: env-configmap, namespace: shop, uid: uid-fo, generation: 1}
spec:
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: env, namespace: shop}
    data: {MODE: fast}
)");
  const auto subject = subjectOf(fo);
  const std::vector<api::BindingRequirement> required{{"shop", "web", {"c1", "c2"}}};
  // No policy and no leader: nothing to bind.
  EXPECT_EQ(decideBinding(subject, Resolution{}, nullptr, kT0).action, Action::kNone);
  // A leader placed nowhere yet: bound once it is.
  EXPECT_EQ(decideBinding(subject, Resolution{}, nullptr, kT0, {{"shop", "web", {}}}).action,
            Action::kNone);
  // A leader needs it: a binding without a policy, its requirements recorded, nothing reported.
  auto d = decideBinding(subject, Resolution{}, nullptr, kT0, required);
  ASSERT_EQ(d.action, Action::kCreate);
  EXPECT_TRUE(d.desired.spec.policy.name.empty());
  EXPECT_EQ(d.desired.spec.requiredBy, required);
  EXPECT_TRUE(d.eventReason.empty());
  EXPECT_TRUE(d.desired.status.conditions.empty()) << "no PolicyBound=False for a follower";
  // The leader moves: the requirements follow; once identical, nothing to write.
  auto existing = stored(d);
  const std::vector<api::BindingRequirement> moved{{"shop", "web", {"c1", "c3"}}};
  auto m = decideBinding(subject, Resolution{}, &existing, kT1, moved);
  EXPECT_EQ(m.action, Action::kUpdate);
  EXPECT_EQ(m.desired.spec.requiredBy, moved);
  existing = stored(m);
  EXPECT_EQ(decideBinding(subject, Resolution{}, &existing, kT1, moved).action, Action::kNone);
  // A policy that selects it too: its placement and dependencies setting, and the requirements.
  auto p = spread();
  p.spec.dependencies = "Ignore";
  auto both = decideBinding(subject, won(p), &existing, kT2, moved);
  EXPECT_EQ(both.action, Action::kUpdate);
  EXPECT_EQ(both.desired.spec.policy.name, p.metadata.name);
  EXPECT_EQ(both.desired.spec.dependencies, "Ignore");
  EXPECT_EQ(both.desired.spec.requiredBy, moved);
  // No leader needs it any more: the requirements go (the federate controller removes it).
  existing = stored(m);
  EXPECT_TRUE(decideBinding(subject, Resolution{}, &existing, kT2).desired.spec.requiredBy.empty());
  // Deleted on the host while a leader still needs it: only the requirements are kept current
  // (the sync controller keeps the copies where they are needed).
  auto deleting = subject;
  deleting.owner.deletionTimestamp = kT2;
  auto held = decideBinding(deleting, Resolution{}, &existing, kT2, required);
  EXPECT_EQ(held.action, Action::kUpdate);
  EXPECT_EQ(held.desired.spec.requiredBy, required);
  EXPECT_EQ(held.desired.spec.policy.name, existing.spec.policy.name);
  EXPECT_EQ(decideBinding(deleting, Resolution{}, &existing, kT2, moved).action, Action::kNone);
}

}  // namespace
}  // namespace flotilla::controllers::binding
