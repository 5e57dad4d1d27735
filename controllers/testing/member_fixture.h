// A reconciler test with member1 (ReconcilerEnv::member()) registered as a Ready
// FederatedCluster and connected through a member registry, as the cluster controller leaves it,
// and the host informers the member-side controllers read (sync, status, automigration).
#pragma once

#include <algorithm>
#include <boost/json.hpp>
#include <mutex>

#include "controllers/common/member_registry.h"
#include "controllers/common/typed.h"
#include "controllers/testing/reconciler_env.h"
#include "kube/net/test_server.h"

namespace flotilla::controllers::testing {

namespace json = boost::json;

inline constexpr const char* kMember = "member1";

class MemberReconcilerTest : public ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    registerMember();
    fds = &informer(resources::kFederatedDeployments);
    rbs = &informer(resources::kResourceBindings);
    clusters = &informer(resources::kFederatedClusters);
    fos = &informer(resources::kFederatedObjects);
    cfos = &informer(resources::kClusterFederatedObjects);
    crbs = &informer(resources::kClusterResourceBindings);
    hostDeployments = &informer(resources::kDeployments);
    caughtUp(*clusters, kMember);
    members = connect("");
  }
  void TearDown() override {
    for (auto& r : registries) r->stopAll();
    ReconcilerTest::TearDown();
  }

  // member1 as a Ready FederatedCluster (what the cluster controller would have written).
  void registerMember() {
    if (get(resources::kFederatedClusters, kMember).empty()) {
      auto fc = parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
        "kind": "FederatedCluster", "metadata": {"name": "member1"},
        "spec": {"apiEndpoint": "https://127.0.0.1:1",
                 "secretRef": {"namespace": "flotilla-system", "name": "member1-credentials"}}})");
      auto created = io.run(client->create(resources::kFederatedClusters, "", fc));
      ASSERT_TRUE(created || created.error().code == 409) << created.error();
    }
    auto fc = get(resources::kFederatedClusters, kMember);
    fc["status"] = parseObject(R"({"conditions": [{"type": "Ready", "status": "True",
      "reason": "ClusterReady", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"}]})");
    ASSERT_TRUE(io.run(client->updateStatus(resources::kFederatedClusters, fc)));
  }
  // A registry connected to the member; `agent` chooses the member's injected faults.
  MemberRegistry* connect(const std::string& agent) {
    MemberRegistryOptions options;
    if (!agent.empty()) options.userAgent = agent;
    registries.push_back(std::make_unique<AsioMemberRegistry>(io.io().get_executor(), options));
    auto& registry = *registries.back();
    MemberEvents recorded;
    recorded.objectChanged = [this](const std::string&, const std::string& binding) {
      std::lock_guard lock(changedMutex);
      changedObjects.push_back(binding);
    };
    registry.setEvents(std::move(recorded));
    auto connection = registry.ensure(kMember, ReconcilerEnv::get().member(), "fp");
    EXPECT_TRUE(connection) << connection.error();
    EXPECT_TRUE(net::testing::eventually([&] { return (*connection)->synced(); },
                                         std::chrono::seconds(30)));
    return &registry;
  }
  // A binding as the binding controller and the scheduler leave it: owned by `owner` (a
  // FederatedDeployment or a FederatedObject, as the server returned it), naming what members
  // receive, placed on `targets`, Scheduled for its generation; `spec` adds fields (a policy).
  void bind(const json::object& owner, int32_t replicas, const std::vector<std::string>& targets,
            json::object spec = {}) {
    const std::string ownerKind(owner.at("kind").as_string());
    json::object resource{{"apiVersion", owner.at("apiVersion")},
                          {"kind", ownerKind},
                          {"namespace", ns},
                          {"name", owner.at("metadata").at("name")},
                          {"uid", owner.at("metadata").at("uid")}};
    if (ownerKind != "FederatedDeployment") {
      const auto& t = owner.at("spec").at("template").as_object();
      resource["apiVersion"] = t.at("apiVersion");
      resource["kind"] = t.at("kind");
      resource["name"] = t.at("metadata").at("name");
    }
    const std::string name(owner.at("metadata").at("name").as_string());
    json::array placed;
    for (const auto& c : targets)
      placed.push_back(json::object{{"name", c}, {"replicas", replicas}});
    json::object rb{
        {"apiVersion", "flotilla.io/v1alpha1"},
        {"kind", "ResourceBinding"},
        {"metadata", json::object{{"name", name},
                                  {"ownerReferences",
                                   json::array{json::object{{"apiVersion", "flotilla.io/v1alpha1"},
                                                            {"kind", ownerKind},
                                                            {"name", name},
                                                            {"uid", owner.at("metadata").at("uid")},
                                                            {"controller", true}}}}}},
        {"spec", json::object{{"resource", std::move(resource)},
                              {"replicas", replicas},
                              {"clusters", std::move(placed)}}}};
    for (auto& [field, value] : spec) rb["spec"].as_object()[field] = value;
    auto existing = get(resources::kResourceBindings, name);
    if (existing.empty()) {
      existing = create(*client, resources::kResourceBindings, rb);
    } else {
      existing["spec"] = rb["spec"];
      existing = io.run(client->update(resources::kResourceBindings, existing)).value();
    }
    existing["status"] = json::object{
        {"schedulerObservedGeneration", existing.at("metadata").at("generation")},
        {"conditions", json::array{json::object{{"type", "Scheduled"},
                                                {"status", "True"},
                                                {"reason", "Success"},
                                                {"message", ""},
                                                {"lastTransitionTime", "2026-01-01T00:00:00Z"}}}}};
    ASSERT_TRUE(io.run(client->updateStatus(resources::kResourceBindings, existing)));
    caughtUp(*rbs, name);
  }
  json::object memberObject(const kube::ResourceId& resource, const std::string& name) {
    return get(memberClient(), resource, ns, name);
  }
  std::string key(const std::string& name) { return ns + "/" + name; }

  const kube::SharedInformer *fds, *rbs, *clusters, *fos, *cfos, *crbs, *hostDeployments;
  // The bindings whose member copies changed (MemberEvents::objectChanged), in order.
  int changes(const std::string& binding) {
    std::lock_guard lock(changedMutex);
    return static_cast<int>(std::count(changedObjects.begin(), changedObjects.end(), binding));
  }
  std::mutex changedMutex;
  std::vector<std::string> changedObjects;
  std::vector<std::unique_ptr<AsioMemberRegistry>> registries;
  MemberRegistry* members = nullptr;
};

}  // namespace flotilla::controllers::testing
