// The sync and status reconcilers' read → decide → write loops against a host and a member API
// server (controllers/testing/reconciler_env.h): a bound FederatedObject and a bound
// FederatedDeployment reach the member, a second pass writes nothing on either server, an
// unmanaged member object is reported and left alone, a cluster no longer targeted loses its
// copy, and member writes that meet a 409 or are lost mid-way converge on the next pass.
#include "controllers/sync/sync_controller.h"

#include <gtest/gtest.h>

#include "api/unstructured.h"
#include "controllers/common/managed.h"
#include "controllers/common/member_registry.h"
#include "controllers/common/typed.h"
#include "controllers/status/status_controller.h"
#include "controllers/sync/object_plan.h"
#include "controllers/testing/member_fixture.h"
#include "kube/net/test_server.h"
#include "scheduler/schedule_type.h"

namespace flotilla::controllers::sync {
namespace {

namespace json = boost::json;
namespace res = resources;
using net::testing::eventually;
using namespace std::chrono_literals;

const kube::ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};
using testing::kMember;

class SyncReconcilerTest : public testing::MemberReconcilerTest {
 protected:
  std::unique_ptr<SyncController> controller(kube::RestClient& host, MemberRegistry& registry) {
    return std::make_unique<SyncController>(
        host, io.io().get_executor(), Informers{*fds, *rbs, *clusters, fos, cfos, crbs}, registry,
        events, SyncControllerOptions{.hostId = "test-host"});
  }
  json::object federatedConfigMap() {
    auto fo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "FederatedObject", "metadata": {"name": "settings-configmap",
                                              "finalizers": ["flotilla.io/cleanup"]},
      "spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings"}, "data": {"LOG_LEVEL": "info"}}}})");
    fo["spec"].as_object()["template"].as_object()["metadata"].as_object()["namespace"] = ns;
    fo = create(*client, res::kFederatedObjects, fo);
    caughtUp(*fos, "settings-configmap");
    bind(fo, 0, {kMember});
    return fo;
  }
  // The FederatedDeployment's status.readyReplicas (0 when it has none).
  int64_t readyReplicas(const std::string& name) {
    const auto fd = get(res::kFederatedDeployments, name);
    const auto* s = fd.if_contains("status");
    const auto* ready = s && s->is_object() ? s->as_object().if_contains("readyReplicas") : nullptr;
    return ready && ready->is_int64() ? ready->as_int64() : 0;
  }
  // Bound to kMember with 2 replicas as the scheduler leaves a first placement: its schedule
  // record, and no status of its own (the next status write carries it).
  void placedWithoutStatus(const json::object& fd) {
    bind(fd, 2, {kMember});
    auto rb = get(res::kResourceBindings, "web");
    auto record = flotilla::scheduler::recordFor(fromObject<api::ResourceBinding>(rb).value());
    record.type = "FirstSchedule";
    rb["metadata"].as_object()["annotations"] =
        json::object{{flotilla::scheduler::kScheduleRecordAnnotation,
                      flotilla::scheduler::encodeRecord(record)}};
    rb = io.run(client->update(res::kResourceBindings, rb)).value();
    rb["status"] = json::object{};
    ASSERT_TRUE(io.run(client->updateStatus(res::kResourceBindings, rb)));
    caughtUp(*rbs, "web");
    caughtUp(*fds, "web");
  }
  // "web", 2 replicas of nginx, not bound yet.
  json::object federatedDeployment() {
    auto fd = create(res::kFederatedDeployments, R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "FederatedDeployment", "metadata": {"name": "web",
                                                "finalizers": ["flotilla.io/cleanup"]},
    "spec": {"template": {"metadata": {"labels": {"app": "web"}},
      "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}},
          "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}}})");
    caughtUp(*fds, "web");
    return fd;
  }
};

TEST_F(SyncReconcilerTest, AFederatedObjectReachesItsClusterAndASecondPassWritesNothing) {
  federatedConfigMap();
  auto result = controller(*client, *members)->reconcile(key("settings-configmap"));
  ASSERT_TRUE(result) << result.error();
  auto copy = memberObject(kConfigMaps, "settings");
  ASSERT_FALSE(copy.empty()) << "the ConfigMap did not reach " << kMember;
  EXPECT_EQ(copy.at("data").at("LOG_LEVEL"), "info");
  EXPECT_EQ(copy.at("metadata").at("labels").at(kManagedByLabel), kManagedByValue);
  auto fo = get(res::kFederatedObjects, "settings-configmap");
  ASSERT_TRUE(fo.contains("status")) << "no per-cluster status on the FederatedObject";
  EXPECT_EQ(fo.at("status").at("clusters").at(0).at("name"), kMember);
  EXPECT_EQ(fo.at("status").at("clusters").at(0).at("propagation"), "OK");
  auto rb = get(res::kResourceBindings, "settings-configmap");
  EXPECT_EQ(rb.at("status").at("aggregatedStatus").at(0).at("applied"), true);
  // The scheduler's fields, written before, are kept by the sync controller's status write.
  bool scheduled = false;
  for (const auto& c : rb.at("status").at("conditions").as_array())
    scheduled = scheduled || (c.at("type") == "Scheduled" && c.at("status") == "True");
  EXPECT_TRUE(scheduled) << "the scheduler's condition was undone";
  EXPECT_EQ(rb.at("status").at("schedulerObservedGeneration"), rb.at("metadata").at("generation"));

  caughtUp(*fos, "settings-configmap");
  caughtUp(*rbs, "settings-configmap");
  const auto host = hostWrites(), member = writes(memberClient());
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("settings-configmap")));
  EXPECT_EQ(hostWrites(), host) << "a converged object wrote to the host again";
  EXPECT_EQ(writes(memberClient()), member) << "a converged object wrote to the member again";
}

// Copies are watched on their member (MemberConnection::objects): an edit made there is reported
// at once, and the reconcile it brings puts the copy back.
// A divided StatefulSet (docs/operator.md "Kinds and their replicas"): member1 comes after
// "aaa" by name, so its 2 replicas of 5 are numbered from 3; on a member below Kubernetes 1.27
// (its FederatedCluster's version) they cannot be, which its binding entry and an Event say.
class DividedStatefulSetTest : public SyncReconcilerTest {
 protected:
  json::object federatedStatefulSet(const std::string& name) {
    auto fo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "FederatedObject", "metadata": {"finalizers": ["flotilla.io/cleanup"]},
      "spec": {"template": {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {},
        "spec": {"replicas": 5, "serviceName": "web", "selector": {"matchLabels": {"app": "web"}},
          "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}}})");
    fo["metadata"].as_object()["name"] = name + "-statefulset";
    auto& meta = fo["spec"].as_object()["template"].as_object()["metadata"].as_object();
    meta["name"] = name;
    meta["namespace"] = ns;
    fo = create(*client, res::kFederatedObjects, fo);
    caughtUp(*fos, name + "-statefulset");
    bind(fo, 5, {},
         json::object{{"clusters", json::array{json::object{{"name", "aaa"}, {"replicas", 3}},
                                               json::object{{"name", kMember}, {"replicas", 2}}}}});
    return fo;
  }
  void memberVersion(const std::string& version) {
    auto fc = get(res::kFederatedClusters, kMember);
    fc["status"].as_object()["kubernetesVersion"] = version;
    ASSERT_TRUE(io.run(client->updateStatus(res::kFederatedClusters, fc)));
    ASSERT_TRUE(eventually([&] {
      const auto cached = clusters->store().get(kMember);
      return cached &&
             api::unstructured::stringAt(*cached, {"status", "kubernetesVersion"}) == version;
    }));
  }
  const kube::ResourceId kStatefulSets{"apps", "v1", "statefulsets", true, "StatefulSet"};
};

TEST_F(DividedStatefulSetTest, EachClusterNumbersItsPodsAfterTheClustersBeforeIt) {
  federatedStatefulSet("web");
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("web-statefulset")));
  const auto copy = memberObject(kStatefulSets, "web");
  ASSERT_FALSE(copy.empty()) << "the StatefulSet did not reach " << kMember;
  EXPECT_EQ(copy.at("spec").at("replicas"), 2);
  EXPECT_EQ(copy.at("spec").at("ordinals").at("start"), 3);  // web-3, web-4
  EXPECT_EQ(events.count("DivisionLimited"), 0);
}

TEST_F(DividedStatefulSetTest, AMemberBelow127IsToldNotSilent) {
  memberVersion("v1.26.3");
  federatedStatefulSet("db");
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("db-statefulset")));
  const auto copy = memberObject(kStatefulSets, "db");
  ASSERT_FALSE(copy.empty());
  EXPECT_EQ(copy.at("spec").at("replicas"), 2);
  EXPECT_FALSE(copy.at("spec").as_object().contains("ordinals"));
  const auto rb = get(res::kResourceBindings, "db-statefulset");
  std::string message;
  for (const auto& item : rb.at("status").at("aggregatedStatus").as_array())
    if (item.at("clusterName") == kMember) message = std::string(item.at("message").as_string());
  EXPECT_NE(message.find("member1 runs Kubernetes v1.26.3"), std::string::npos) << message;
  EXPECT_NE(message.find("(db-0..db-1), not db-3..db-4"), std::string::npos) << message;
  EXPECT_EQ(events.count("DivisionLimited"), 1);
  // Said once, when the copy was written: a second pass writes nothing and says nothing.
  caughtUp(*fos, "db-statefulset");
  caughtUp(*rbs, "db-statefulset");
  const auto member = writes(memberClient());
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("db-statefulset")));
  EXPECT_EQ(writes(memberClient()), member);
  EXPECT_EQ(events.count("DivisionLimited"), 1);
}

TEST_F(SyncReconcilerTest, AnEditOfACopyOnItsMemberIsReportedAndUndone) {
  federatedConfigMap();
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("settings-configmap")));
  auto copy = memberObject(kConfigMaps, "settings");
  ASSERT_FALSE(copy.empty());
  const auto before = changes(key("settings-configmap"));
  copy["data"].as_object()["LOG_LEVEL"] = "edited-on-the-member";
  ASSERT_TRUE(io.run(memberClient().update(kConfigMaps, copy)));
  ASSERT_TRUE(eventually([&] { return changes(key("settings-configmap")) > before; }))
      << "the member edit was not reported";
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("settings-configmap")));
  EXPECT_EQ(memberObject(kConfigMaps, "settings").at("data").at("LOG_LEVEL"), "info");
}

TEST_F(SyncReconcilerTest, AnUnmanagedMemberObjectIsReportedAndLeftUntouched) {
  // The namespace and a ConfigMap of the same name that Flotilla did not make.
  ASSERT_TRUE(io.run(memberClient().create(
      {"", "v1", "namespaces", false, "Namespace"}, "",
      json::object{
          {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", ns}}}})));
  auto theirs = create(memberClient(), kConfigMaps, testing::parseObject(R"({"apiVersion": "v1",
    "kind": "ConfigMap", "metadata": {"name": "settings"}, "data": {"LOG_LEVEL": "theirs"}})"));
  federatedConfigMap();
  auto result = controller(*client, *members)->reconcile(key("settings-configmap"));
  ASSERT_TRUE(result) << result.error();
  // Not Flotilla's, so no member event will say when it goes: looked at again later.
  EXPECT_GT(result->requeueAfter.count(), 0);
  auto after = memberObject(kConfigMaps, "settings");
  EXPECT_EQ(after.at("metadata").at("resourceVersion"), theirs.at("metadata").at("resourceVersion"))
      << "an object Flotilla did not make was written";
  EXPECT_EQ(get(res::kFederatedObjects, "settings-configmap")
                .at("status")
                .at("clusters")
                .at(0)
                .at("propagation"),
            "Conflict");
}

TEST_F(SyncReconcilerTest, AClusterNoLongerTargetedLosesItsCopy) {
  auto fo = federatedConfigMap();
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("settings-configmap")));
  ASSERT_FALSE(memberObject(kConfigMaps, "settings").empty());
  caughtUp(*fos, "settings-configmap");
  bind(fo, 0, {"elsewhere"});
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("settings-configmap")));
  EXPECT_TRUE(memberObject(kConfigMaps, "settings").empty());
}

// A CRD copy (a kind kept on members) records its health on its binding, which is what its
// custom resources wait for, and a placement that drops its cluster releases it there instead of
// deleting it (docs/design.md §5.11).
TEST_F(SyncReconcilerTest, ACrdCopyRecordsItsHealthAndIsReleasedNotDeleted) {
  const kube::ResourceId crds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false,
                              "CustomResourceDefinition"};
  // (The member outlives a test: a group of this test's own.)
  const std::string group = ns + ".example.com";
  const std::string crdName = "gizmos." + group;
  const std::string name = crdName + "-customresourcedefinition";
  auto cfo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
    "kind": "ClusterFederatedObject", "metadata": {"finalizers": ["flotilla.io/cleanup"]},
    "spec": {"template": {"apiVersion": "apiextensions.k8s.io/v1",
      "kind": "CustomResourceDefinition", "metadata": {},
      "spec": {"scope": "Namespaced", "names": {"kind": "Gizmo", "plural": "gizmos"},
        "versions": [{"name": "v1", "served": true, "storage": true,
          "schema": {"openAPIV3Schema": {"type": "object"}}}]}}}})");
  cfo["metadata"].as_object()["name"] = name;
  auto& t = cfo["spec"].as_object()["template"].as_object();
  t["metadata"].as_object()["name"] = crdName;
  t["spec"].as_object()["group"] = group;
  cfo = create(*client, res::kClusterFederatedObjects, cfo);
  caughtUp(*cfos, name);
  // Its binding, as the binding controller writes a follower's: no policy, the clusters its
  // custom resources need it on.
  auto placeOn = [&](const char* cluster) {
    json::object rb{
        {"apiVersion", "flotilla.io/v1alpha1"},
        {"kind", "ClusterResourceBinding"},
        {"metadata", json::object{{"name", name},
                                  {"ownerReferences",
                                   json::array{json::object{{"apiVersion", "flotilla.io/v1alpha1"},
                                                            {"kind", "ClusterFederatedObject"},
                                                            {"name", name},
                                                            {"uid", cfo.at("metadata").at("uid")},
                                                            {"controller", true}}}}}},
        {"spec", json::object{{"resource", json::object{{"apiVersion", "apiextensions.k8s.io/v1"},
                                                        {"kind", "CustomResourceDefinition"},
                                                        {"name", crdName}}},
                              {"requiredBy",
                               json::array{json::object{{"namespace", ns},
                                                        {"name", "a-gizmo"},
                                                        {"clusters", json::array{cluster}}}}}}}};
    auto existing = get(res::kClusterResourceBindings, name);
    if (existing.empty()) {
      create(*client, res::kClusterResourceBindings, rb);
    } else {
      existing["spec"] = rb["spec"];
      ASSERT_TRUE(io.run(client->update(res::kClusterResourceBindings, existing)));
    }
    caughtUp(*crbs, name);
  };
  placeOn(kMember);
  auto health = [&] {
    const auto rb = get(res::kClusterResourceBindings, name);
    const auto* items = api::unstructured::findArray(rb, {"status", "aggregatedStatus"});
    return items && !items->empty()
               ? api::unstructured::stringAt(items->at(0).as_object(), {"health"})
               : std::string();
  };
  ASSERT_TRUE(eventually([&] {
    caughtUp(*cfos, name);
    caughtUp(*crbs, name);
    EXPECT_TRUE(controller(*client, *members)->reconcile(name));
    return health() == "Healthy";
  })) << json::serialize(get(res::kClusterResourceBindings, name));
  auto copy = get(memberClient(), crds, "", crdName);
  ASSERT_FALSE(copy.empty());
  EXPECT_EQ(api::unstructured::stringAt(copy, {"metadata", "labels", "flotilla.io/managed-by"}),
            "flotilla");

  // No custom resource needs it on member1 any more: released, not deleted.
  placeOn("elsewhere");
  ASSERT_TRUE(eventually([&] {
    caughtUp(*crbs, name);
    EXPECT_TRUE(controller(*client, *members)->reconcile(name));
    const auto left = get(memberClient(), crds, "", crdName);
    return !left.empty() &&
           api::unstructured::stringAt(left, {"metadata", "labels", "flotilla.io/managed-by"})
               .empty();
  }));
  const auto left = get(memberClient(), crds, "", crdName);
  EXPECT_EQ(api::unstructured::stringAt(left, {"metadata", "annotations", kReleasedByAnnotation}),
            name);
  EXPECT_EQ(api::unstructured::stringAt(left, {"metadata", "annotations", kReleasedHostAnnotation}),
            "test-host");
}

TEST_F(SyncReconcilerTest, MemberWritesThatMeetAConflictOrAreLostConverge) {
  federatedConfigMap();
  // Every member write answered 409: nothing there, the cluster reported, the key retried.
  auto conflicted = controller(*client, *connect("flotilla-test-conflict/1"))
                        ->reconcile(key("settings-configmap"));
  ASSERT_TRUE(conflicted) << conflicted.error();
  EXPECT_TRUE(conflicted->requeue || conflicted->requeueAfter.count() > 0);
  EXPECT_TRUE(memberObject(kConfigMaps, "settings").empty());
  auto fo = get(res::kFederatedObjects, "settings-configmap");
  EXPECT_NE(fo.at("status").at("clusters").at(0).at("propagation"), "OK");

  // Committed, the answer lost: the next pass finds the copy right and writes nothing to it.
  // (The member namespace is the first write lost, the ConfigMap the next one.)
  auto* dropping = connect("flotilla-test-drop/1");
  for (int pass = 0; pass < 3 && memberObject(kConfigMaps, "settings").empty(); ++pass) {
    caughtUp(*fos, "settings-configmap");
    caughtUp(*rbs, "settings-configmap");
    (void)controller(*client, *dropping)->reconcile(key("settings-configmap"));
  }
  ASSERT_FALSE(memberObject(kConfigMaps, "settings").empty());
  caughtUp(*fos, "settings-configmap");
  caughtUp(*rbs, "settings-configmap");
  const auto member = writes(memberClient());
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("settings-configmap")));
  EXPECT_EQ(writes(memberClient()), member);
  EXPECT_EQ(get(res::kFederatedObjects, "settings-configmap")
                .at("status")
                .at("clusters")
                .at(0)
                .at("propagation"),
            "OK");
}

TEST_F(SyncReconcilerTest, AFederatedDeploymentRunsOnItsClusterAndItsStatusComesBack) {
  auto fd = federatedDeployment();
  bind(fd, 2, {kMember});
  auto result = controller(*client, *members)->reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();
  // Converged: a second pass writes nothing and asks for no retry.
  caughtUp(*rbs, "web");
  ASSERT_TRUE(eventually(
      [&] { return members->get(kMember)->deployments().store().get(ns + "/web") != nullptr; }));
  {
    const auto host = hostWrites(), member = writes(memberClient());
    auto again = controller(*client, *members)->reconcile(key("web"));
    ASSERT_TRUE(again) << again.error();
    EXPECT_FALSE(again->requeue);
    EXPECT_EQ(again->requeueAfter.count(), 0);
    EXPECT_EQ(hostWrites(), host);
    EXPECT_EQ(writes(memberClient()), member);
  }
  auto copy = memberObject(res::kDeployments, "web");
  ASSERT_FALSE(copy.empty()) << "the Deployment did not reach " << kMember;
  EXPECT_EQ(copy.at("spec").at("replicas"), 2);

  // The status controller: the member's Deployment (run by flotilla-sim's member behaviour)
  // becomes the FederatedDeployment's status.
  status::StatusController status(*client, io.io().get_executor(),
                                  {*fds, *rbs, *hostDeployments, *clusters}, *members);
  EXPECT_TRUE(eventually(
      [&] {
        caughtUp(*fds, "web");
        caughtUp(*rbs, "web");
        EXPECT_TRUE(status.reconcile(key("web")));
        return readyReplicas("web") == 2;
      },
      30s))
      << json::serialize(get(res::kFederatedDeployments, "web"));
  caughtUp(*fds, "web");
  caughtUp(*rbs, "web");
  const auto host = hostWrites();
  ASSERT_TRUE(status.reconcile(key("web")));
  EXPECT_EQ(hostWrites(), host) << "an unchanged status was written again";
}

// The scheduler leaves a first placement's status to the binding's next status pass: the sync
// controller's one write carries Scheduled (with the placement summary) and FullyApplied.
TEST_F(SyncReconcilerTest, TheFirstPlacementsStatusRidesWithTheSyncsWrite) {
  auto fd = federatedDeployment();
  placedWithoutStatus(fd);

  const auto before = hostWrites();
  auto result = controller(*client, *members)->reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(hostWrites(), before + 1) << "one status write for the scheduler's and sync's fields";
  const auto status = get(res::kResourceBindings, "web").at("status").as_object();
  EXPECT_EQ(status.at("placementSummary").as_string(), std::string(kMember) + "=2")
      << json::serialize(status);
  EXPECT_EQ(status.at("lastScheduleType"), "FirstSchedule");
  std::map<std::string, std::string> conditions;
  for (const auto& c : status.at("conditions").as_array())
    conditions[std::string(c.at("type").as_string())] = std::string(c.at("status").as_string());
  EXPECT_EQ(conditions["Scheduled"], "True");
  EXPECT_EQ(conditions["FullyApplied"], "True");
}

// The status controller's write carries a first placement's status too, when it comes first.
TEST_F(SyncReconcilerTest, TheStatusControllerCarriesTheFirstPlacementToo) {
  auto fd = federatedDeployment();
  placedWithoutStatus(fd);
  status::StatusController status(*client, io.io().get_executor(),
                                  {*fds, *rbs, *hostDeployments, *clusters}, *members);
  auto result = status.reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();
  const auto rb = get(res::kResourceBindings, "web");
  ASSERT_TRUE(rb.contains("status")) << json::serialize(rb);
  EXPECT_EQ(rb.at("status").at("placementSummary").as_string(), std::string(kMember) + "=2");
  EXPECT_EQ(rb.at("status").at("conditions").at(0).at("type"), "Scheduled")
      << json::serialize(rb.at("status"));
}

// A connection whose caches finish syncing while a status pass runs (an operator that just
// started): the first look says "not synced", every later one "synced".
class SyncsDuringThePass final : public MemberConnection {
 public:
  explicit SyncsDuringThePass(std::shared_ptr<MemberConnection> real) : real_(std::move(real)) {}
  const std::string& name() const override { return real_->name(); }
  const std::string& fingerprint() const override { return real_->fingerprint(); }
  kube::RestClient& client() override { return real_->client(); }
  const kube::SharedInformer& nodes() const override { return real_->nodes(); }
  const kube::SharedInformer& pods() const override { return real_->pods(); }
  const kube::SharedInformer& deployments() const override { return real_->deployments(); }
  const kube::SharedInformer& replicaSets() const override { return real_->replicaSets(); }
  std::shared_ptr<const kube::SharedInformer> objects(const kube::ResourceId& r) override {
    return real_->objects(r);
  }
  std::shared_ptr<const kube::SharedInformer> watchedObjects(
      const kube::ResourceId& r) const override {
    return real_->watchedObjects(r);
  }
  bool synced() const override { return looks_++ > 0 && real_->synced(); }
  boost::asio::any_io_executor executor() override { return real_->executor(); }

 private:
  std::shared_ptr<MemberConnection> real_;
  mutable int looks_ = 0;
};
class SyncingRegistry final : public MemberRegistry {
 public:
  explicit SyncingRegistry(MemberRegistry& real) : real_(real) {}
  api::Result<std::shared_ptr<MemberConnection>> ensure(const std::string& name,
                                                        const kube::RestConfig& config,
                                                        const std::string& fp) override {
    return real_.ensure(name, config, fp);
  }
  std::shared_ptr<MemberConnection> get(const std::string& name) const override {
    auto real = real_.get(name);
    if (!real) return nullptr;
    auto& wrapped = wrapped_[name];
    if (!wrapped) wrapped = std::make_shared<SyncsDuringThePass>(real);
    return wrapped;
  }
  void remove(const std::string& name) override { real_.remove(name); }
  std::vector<std::string> names() const override { return real_.names(); }

 private:
  MemberRegistry& real_;
  mutable std::map<std::string, std::shared_ptr<MemberConnection>> wrapped_;
};

// A pass that meets a member's caches mid-sync waits for them: it neither counts the cluster as
// holding nothing nor writes a status that says the workload stopped being available.
TEST_F(SyncReconcilerTest, ACacheThatSyncsDuringAStatusPassIsNotTakenForAnEmptyCluster) {
  auto fd = federatedDeployment();
  bind(fd, 2, {kMember});
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("web")));
  status::StatusController converged(*client, io.io().get_executor(),
                                     {*fds, *rbs, *hostDeployments, *clusters}, *members);
  ASSERT_TRUE(eventually(
      [&] {
        caughtUp(*fds, "web");
        caughtUp(*rbs, "web");
        EXPECT_TRUE(converged.reconcile(key("web")));
        return readyReplicas("web") == 2;
      },
      30s));
  caughtUp(*fds, "web");
  caughtUp(*rbs, "web");

  SyncingRegistry syncing(*members);
  status::StatusController restarted(*client, io.io().get_executor(),
                                     {*fds, *rbs, *hostDeployments, *clusters}, syncing);
  const auto before = hostWrites();
  auto result = restarted.reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(hostWrites(), before) << json::serialize(get(res::kFederatedDeployments, "web"));
  EXPECT_EQ(readyReplicas("web"), 2);
  EXPECT_EQ(result->requeueAfter, std::chrono::seconds(1)) << "not looked at again";
  // The next pass (the caches synced) finds the workload as it was: nothing to write.
  ASSERT_TRUE(restarted.reconcile(key("web")));
  EXPECT_EQ(hostWrites(), before);
}

// A new workload before the scheduler's first decision: its status would say only what an empty
// one shows (nothing selected, 0 ready), so the status controller writes nothing; the first
// status comes with the decision (docs/performance.md, round 2).
TEST_F(SyncReconcilerTest, TheFirstStatusWaitsForTheSchedulersDecision) {
  // Made from a host Deployment, as the federate controller makes it (a binding follows).
  auto source = create(res::kDeployments, R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web"}, "spec": {"replicas": 2,
      "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels":
        {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})");
  auto fd = federatedDeployment();
  fd["metadata"].as_object()["ownerReferences"] =
      json::array{json::object{{"apiVersion", "apps/v1"},
                               {"kind", "Deployment"},
                               {"name", "web"},
                               {"uid", source.at("metadata").at("uid")},
                               {"controller", true}}};
  fd = io.run(client->update(res::kFederatedDeployments, fd)).value();
  caughtUp(*fds, "web");
  caughtUp(*hostDeployments, "web");
  status::StatusController status(*client, io.io().get_executor(),
                                  {*fds, *rbs, *hostDeployments, *clusters}, *members);
  const auto before = hostWrites();
  ASSERT_TRUE(status.reconcile(key("web")));
  EXPECT_EQ(hostWrites(), before) << "a status that says 'not scheduled yet' was written";
  EXPECT_FALSE(get(res::kFederatedDeployments, "web").contains("status"));
  const auto hostStatus = get(res::kDeployments, "web");
  EXPECT_TRUE(!hostStatus.contains("status") || hostStatus.at("status").as_object().empty())
      << json::serialize(hostStatus);

  bind(fd, 2, {kMember});  // (Scheduled, as the scheduler leaves it)
  caughtUp(*rbs, "web");
  const auto bound = hostWrites();
  ASSERT_TRUE(status.reconcile(key("web")));
  EXPECT_GT(hostWrites(), bound);
  const auto written = get(res::kFederatedDeployments, "web");
  ASSERT_TRUE(written.contains("status")) << json::serialize(written);
  EXPECT_EQ(written.at("status").at("clusterNames"), kMember);
}

// A workload failed over away from a cluster that is not Ready: that cluster's cache is frozen
// at what it last said, and its replicas there are no longer the workload's (kube-controller-
// manager stops counting a node's pods when the node stops reporting). The host's status counts
// only what it can see of its placement.
TEST_F(SyncReconcilerTest, AClusterFailedOverAndNotReadyStopsCounting) {
  auto fd = federatedDeployment();
  bind(fd, 2, {kMember});
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("web")));
  status::StatusController status(*client, io.io().get_executor(),
                                  {*fds, *rbs, *hostDeployments, *clusters}, *members);
  auto statusUntil = [&](int64_t want) {
    return eventually(
        [&] {
          caughtUp(*fds, "web");
          caughtUp(*rbs, "web");
          caughtUp(*clusters, kMember);
          EXPECT_TRUE(status.reconcile(key("web")));
          return readyReplicas("web") == want;
        },
        30s);
  };
  ASSERT_TRUE(statusUntil(2)) << json::serialize(get(res::kFederatedDeployments, "web"));

  // member1 stops answering (not Ready), and the scheduler moves web to member2.
  auto fc = get(res::kFederatedClusters, kMember);
  fc["status"] = testing::parseObject(R"({"conditions": [{"type": "Ready", "status": "False",
    "reason": "ClusterNotReachable", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]})");
  ASSERT_TRUE(io.run(client->updateStatus(res::kFederatedClusters, fc)));
  bind(fd, 2, {"member2"});
  EXPECT_TRUE(statusUntil(0)) << "member1's frozen replicas still count: "
                              << json::serialize(get(res::kFederatedDeployments, "web"));
}

// The rule of every kind for a Deployment: one of the same name that Flotilla did not make is a
// Conflict, left byte-for-byte alone even when the policy says Adopt, and looked at again (no
// member event will say when it goes); once it is gone, Flotilla's copy is created.
TEST_F(SyncReconcilerTest, AnUnmanagedMemberDeploymentIsAConflictAndNeverAdopted) {
  // (The namespace's owner lets Flotilla use it: docs/security.md, H3.)
  ASSERT_TRUE(io.run(memberClient().create(
      {"", "v1", "namespaces", false, "Namespace"}, "",
      json::object{{"apiVersion", "v1"},
                   {"kind", "Namespace"},
                   {"metadata",
                    json::object{{"name", ns},
                                 {"labels", json::object{{kManagedByLabel, kManagedByValue}}}}}})));
  const char* deployment = R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web"},
    "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "theirs:1"}]}}}})";
  auto theirs = create(memberClient(), res::kDeployments, testing::parseObject(deployment));
  auto fd = federatedDeployment();
  bind(fd, 2, {kMember}, json::object{{"conflictResolution", "Adopt"}});
  auto result = controller(*client, *members)->reconcile(key("web"));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->requeueAfter, std::chrono::nanoseconds(10s))
      << "a Conflict is looked at again every healthPoll";
  // (Its status moves as the member runs it: compared by what a writer would change.)
  const auto after = memberObject(res::kDeployments, "web");
  EXPECT_EQ(after.at("metadata").at("generation"), theirs.at("metadata").at("generation"))
      << "a Deployment Flotilla did not make was written";
  auto labels = [](const json::object& o) {
    const auto* v = o.at("metadata").as_object().if_contains("labels");
    return v ? json::serialize(*v) : std::string();
  };
  EXPECT_EQ(labels(after), labels(theirs)) << "it was marked as Flotilla's";
  EXPECT_FALSE(managedFor(after, key("web"), "test-host"));
  const auto rb = get(res::kResourceBindings, "web");
  const auto& status = rb.at("status").at("aggregatedStatus").at(0).as_object();
  EXPECT_EQ(status.at("propagation"), "Conflict");
  EXPECT_NE(std::string(status.at("message").as_string()).find("not adopted"), std::string::npos)
      << json::serialize(status);

  ASSERT_TRUE(io.run(memberClient().remove(res::kDeployments, ns, "web", {})));
  ASSERT_TRUE(controller(*client, *members)->reconcile(key("web")));
  const auto copy = memberObject(res::kDeployments, "web");
  ASSERT_FALSE(copy.empty());
  EXPECT_EQ(copy.at("spec").at("replicas"), 2);
  EXPECT_TRUE(managedFor(copy, key("web"), "test-host"));
}

}  // namespace
}  // namespace flotilla::controllers::sync
