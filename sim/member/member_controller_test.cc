#include "sim/member/member_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <thread>

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

TEST(ChoosePlacement, MostFreeCpuWinsAndMessagesCountReasons) {
  std::vector<NodeRoom> nodes = {{"a", true, 500, 1 << 30, 10}, {"b", true, 1500, 1 << 30, 10}};
  EXPECT_EQ(choosePlacement({400, 1 << 20}, nodes).node, "b");
  auto none = choosePlacement({2000, int64_t{2} << 30}, nodes);
  EXPECT_EQ(none.node, "");
  EXPECT_EQ(none.message, "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.");
  nodes.push_back({"c", false, 9000, int64_t{9} << 30, 10});
  nodes.push_back({"d", true, 9000, int64_t{9} << 30, 0});
  EXPECT_EQ(choosePlacement({2000, 1}, nodes).message,
            "0/4 nodes are available: 1 Too many pods, 1 node(s) had untolerated taint "
            "{node.kubernetes.io/not-ready: }, 2 Insufficient cpu.");
}

TEST(PodTemplateHash, StableAndSensitive) {
  auto a = json::parse(R"({"spec":{"containers":[{"name":"app","image":"x:1"}]}})").as_object();
  auto b = json::parse(R"({"spec":{"containers":[{"name":"app","image":"x:2"}]}})").as_object();
  EXPECT_EQ(podTemplateHash(a), podTemplateHash(a));
  EXPECT_NE(podTemplateHash(a), podTemplateHash(b));
}

class MemberFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = Store::open({}).value();
    controller_ =
        std::make_unique<MemberController>(*store_, MemberOptions{1000ms}, [this] { return now_; });
    now_ = *api::parseRfc3339("2026-11-22T10:00:00Z");
    for (const char* name : {"node-1", "node-2"}) node(name, "1");
  }
  void node(const std::string& name, const std::string& cpu) {
    json::object n{
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", json::object{{"name", name}, {"uid", name}}},
        {"status",
         json::object{
             {"allocatable", json::object{{"cpu", cpu}, {"memory", "4Gi"}, {"pods", "110"}}},
             {"conditions", json::array{json::object{{"type", "Ready"}, {"status", "True"}}}}}}};
    if (auto existing = store_->get({"/nodes", "", name})) {
      ASSERT_TRUE(store_->update({"/nodes", "", name}, n, std::nullopt));
    } else {
      ASSERT_TRUE(store_->create({"/nodes", "", name}, n));
    }
  }
  // `container` and `podSpec` add fields to the one container and to the pod spec.
  void deployment(int replicas, const std::string& image = "app:1", json::object container = {},
                  json::object podSpec = {}) {
    container["name"] = "app";
    container["image"] = image;
    container["resources"] = json::object{{"requests", json::object{{"cpu", "600m"}}}};
    podSpec["containers"] = json::array{container};
    json::object podTemplate{{"metadata", json::object{{"labels", json::object{{"app", "web"}}}}},
                             {"spec", podSpec}};
    json::object spec{{"replicas", replicas},
                      {"selector", json::object{{"matchLabels", json::object{{"app", "web"}}}}},
                      {"template", podTemplate}};
    json::object d{
        {"apiVersion", "apps/v1"},
        {"kind", "Deployment"},
        {"metadata",
         json::object{
             {"name", "web"}, {"namespace", "default"}, {"uid", "dep-uid"}, {"generation", 1}}},
        {"spec", spec}};
    if (auto existing = store_->get({"apps/deployments", "default", "web"})) {
      if (const auto* status = existing->if_contains("status")) d["status"] = *status;
      ASSERT_TRUE(store_->update({"apps/deployments", "default", "web"}, d, std::nullopt));
    } else {
      ASSERT_TRUE(store_->create({"apps/deployments", "default", "web"}, d));
    }
  }
  void settle() {
    for (int i = 0; i < 20 && controller_->reconcile() > 0; ++i) {
    }
  }
  std::vector<json::object> pods() { return store_->list("/pods", "default").items; }
  int count(const std::function<bool(const json::object&)>& f) {
    int n = 0;
    for (const auto& p : pods()) n += f(p) ? 1 : 0;
    return n;
  }
  static std::string phase(const json::object& p) {
    return std::string(p.at("status").at("phase").as_string());
  }
  static bool bound(const json::object& p) { return p.at("spec").as_object().contains("nodeName"); }
  json::object deploymentStatus() {
    return store_->get({"apps/deployments", "default", "web"})->at("status").as_object();
  }

  std::unique_ptr<Store> store_;
  std::unique_ptr<MemberController> controller_;
  api::Clock::time_point now_;
};

TEST_F(MemberFixture, DeploymentBecomesPodsThatBindRunAndReportStatus) {
  deployment(3);  // 3 x 600m on two 1-CPU nodes: one pod cannot fit
  settle();
  auto sets = store_->list("apps/replicasets", "default").items;
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].at("metadata").at("ownerReferences").at(0).at("uid"), "dep-uid");
  // What the controllers create is defaulted as the API server would default it.
  EXPECT_EQ(sets[0].at("spec").at("template").at("spec").at("restartPolicy"), "Always");
  EXPECT_EQ(pods().size(), 3u);
  for (const auto& p : pods()) {
    const auto& spec = p.at("spec").as_object();
    EXPECT_EQ(spec.at("containers").at(0).at("imagePullPolicy"), "IfNotPresent");
    EXPECT_EQ(spec.at("tolerations").as_array().size(), 2u);
    EXPECT_EQ(spec.at("enableServiceLinks"), true);
    EXPECT_EQ(p.at("status").at("qosClass"), "Burstable");
    EXPECT_EQ(std::string(p.at("metadata").at("generateName").as_string()),
              std::string(sets[0].at("metadata").at("name").as_string()) + "-");
  }
  EXPECT_EQ(count(bound), 2);
  const auto pending = [](const json::object& p) { return !bound(p); };
  ASSERT_EQ(count(pending), 1);
  for (const auto& p : pods()) {
    if (bound(p)) continue;
    const auto& c = p.at("status").at("conditions").at(0);
    EXPECT_EQ(c.at("type"), "PodScheduled");
    EXPECT_EQ(c.at("status"), "False");
    EXPECT_EQ(c.at("reason"), "Unschedulable");
    EXPECT_EQ(c.at("message"), "0/2 nodes are available: 2 Insufficient cpu.");
    EXPECT_EQ(c.at("lastTransitionTime"), "2026-11-22T10:00:00Z");
  }
  EXPECT_EQ(count([](const json::object& p) { return phase(p) == "Running"; }), 0);

  now_ += 1500ms;  // past the ready delay
  settle();
  EXPECT_EQ(count([](const json::object& p) { return phase(p) == "Running"; }), 2);
  for (const auto& p : pods()) {
    if (phase(p) == "Running") {
      EXPECT_EQ(p.at("status").at("podIPs").at(0).at("ip"), p.at("status").at("podIP"));
    }
  }
  auto status = deploymentStatus();
  EXPECT_EQ(status.at("replicas"), 3);
  EXPECT_EQ(status.at("readyReplicas"), 2);
  EXPECT_EQ(status.at("availableReplicas"), 2);
  EXPECT_EQ(status.at("updatedReplicas"), 3);
  EXPECT_EQ(status.at("observedGeneration"), 1);
  EXPECT_EQ(status.at("conditions").at(0).at("status"), "False");  // 2 < 3 - 0

  // A bigger node lets the pending pod in.
  node("node-2", "2");
  settle();
  EXPECT_EQ(count(bound), 3);
  now_ += 1500ms;
  settle();
  status = deploymentStatus();
  EXPECT_EQ(status.at("availableReplicas"), 3);
  EXPECT_EQ(status.at("conditions").at(0).at("status"), "True");
  EXPECT_EQ(status.at("conditions").at(1).at("reason"), "NewReplicaSetAvailable");
}

// Running on its thread, a member makes a bound pod Ready when its ready delay is up, with nothing
// else changing: the pass that binds it asks for the pass that makes it Ready (no polling).
TEST_F(MemberFixture, ItsThreadMakesAPodReadyWhenTheDelayIsUp) {
  // PodScheduled's time has whole seconds, as the API server's: a delay past a second means no
  // pass that binds the pod may also start it, so only a timed pass can.
  controller_ = std::make_unique<MemberController>(*store_, MemberOptions{1500ms});
  controller_->start();
  const auto started = std::chrono::steady_clock::now();
  deployment(1);
  bool running = false;
  auto seen = started;
  for (auto deadline = started + 10s; !running && std::chrono::steady_clock::now() < deadline;) {
    running = count([](const json::object& p) {
                return p.contains("status") && phase(p) == "Running";
              }) == 1;
    seen = std::chrono::steady_clock::now();
    if (!running) std::this_thread::sleep_for(10ms);  // polling, with a deadline
  }
  controller_->stop();
  ASSERT_TRUE(running);
  EXPECT_GE(seen - started, 500ms);  // not before its delay
}

// On its thread, a pass reads what changed and what that touches, not every object: a member
// holding thirty converged Deployments, one of which is scaled, reads that one's objects (the
// benchmark's hundred members each held hundreds while a few changed at a time).
TEST_F(MemberFixture, ItsThreadReadsWhatChangedNotEverything) {
  controller_ = std::make_unique<MemberController>(
      *store_, MemberOptions{.readyDelay = 0ms, .minPassInterval = 10ms});
  node("node-1", "64");
  auto apply = [&](const std::string& name, int replicas) {
    auto d = json::parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"namespace": "default", "generation": 1},
      "spec": {"selector": {"matchLabels": {}}, "template": {"metadata": {"labels": {}},
        "spec": {"containers": [{"name": "app", "image": "app:1"}]}}}})")
                 .as_object();
    d["metadata"].as_object()["name"] = name;
    d["metadata"].as_object()["uid"] = "uid-" + name;
    auto& spec = d["spec"].as_object();
    spec["replicas"] = replicas;
    spec["selector"].as_object()["matchLabels"] = json::object{{"app", name}};
    spec["template"].as_object()["metadata"].as_object()["labels"] = json::object{{"app", name}};
    if (auto existing = store_->get({"apps/deployments", "default", name})) {
      if (const auto* status = existing->if_contains("status")) d["status"] = *status;
      ASSERT_TRUE(store_->update({"apps/deployments", "default", name}, d, std::nullopt));
    } else {
      ASSERT_TRUE(store_->create({"apps/deployments", "default", name}, d));
    }
  };
  auto available = [&](const std::string& name) -> int64_t {
    auto d = store_->get({"apps/deployments", "default", name});
    if (!d) return -1;
    const auto* status = d->if_contains("status");
    const auto* n = status ? status->as_object().if_contains("availableReplicas") : nullptr;
    return n && n->is_int64() ? n->as_int64() : 0;
  };
  // Polls (with a deadline) until `done` and the controller has taken in every change.
  auto until = [&](const std::function<bool()>& done) {
    for (auto deadline = std::chrono::steady_clock::now() + 30s;
         std::chrono::steady_clock::now() < deadline;) {
      if (done() && controller_->settled()) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  };
  controller_->start();
  for (int i = 0; i < 30; ++i) apply("w" + std::to_string(i), 2);
  ASSERT_TRUE(until([&] {
    for (int i = 0; i < 30; ++i)
      if (available("w" + std::to_string(i)) != 2) return false;
    return true;
  }));
  const uint64_t before = controller_->examined();
  apply("w7", 3);
  ASSERT_TRUE(until([&] { return available("w7") == 3; }));
  const uint64_t read = controller_->examined() - before;
  controller_->stop();
  // A full pass reads 60 (30 Deployments, 30 ReplicaSets), and the scale takes several passes
  // (the new pod's creation, binding, start, the ReplicaSet's and the Deployment's statuses).
  EXPECT_GT(read, 0u);
  EXPECT_LT(read, 30u) << "passes read objects that did not change";
  EXPECT_EQ(available("w6"), 2);
}

TEST_F(MemberFixture, DeletedPodsAreReplacedAndScalingRemovesUnscheduledFirst) {
  deployment(3);
  settle();
  const auto first = pods();
  for (const auto& p : first) {
    if (bound(p)) {
      ASSERT_TRUE(
          store_->remove({"/pods", "default", std::string(p.at("metadata").at("name").as_string())},
                         std::nullopt));
      break;
    }
  }
  settle();
  EXPECT_EQ(pods().size(), 3u);
  EXPECT_EQ(count(bound), 2);  // the replacement took the freed room
  deployment(2);
  settle();
  EXPECT_EQ(pods().size(), 2u);
  EXPECT_EQ(count(bound), 2);  // the unscheduled pod went first
}

TEST_F(MemberFixture, TemplateChangeRollsToANewReplicaSet) {
  node("node-1", "4");
  deployment(2, "app:1");
  settle();
  now_ += 1500ms;
  settle();
  deployment(2, "app:2");
  settle();
  auto sets = store_->list("apps/replicasets", "default").items;
  ASSERT_EQ(sets.size(), 2u);
  now_ += 1500ms;
  settle();
  int oldReplicas = -1;
  for (const auto& rs : store_->list("apps/replicasets", "default").items) {
    if (rs.at("spec").at("template").at("spec").at("containers").at(0).at("image") == "app:1")
      oldReplicas = static_cast<int>(rs.at("spec").at("replicas").as_int64());
  }
  EXPECT_EQ(oldReplicas, 0);  // replaced once the new pods were available
  EXPECT_EQ(count([](const json::object& p) {
              return p.at("spec").at("containers").at(0).at("image") == "app:2" &&
                     phase(p) == "Running";
            }),
            2);
  EXPECT_EQ(pods().size(), 2u);
}

}  // namespace
TEST_F(MemberFixture, LoadBalancerServicesGetAnIngressOnce) {
  json::object lb{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", json::object{{"name", "web"}, {"namespace", "default"}, {"uid", "svc-1"}}},
      {"spec", json::object{{"type", "LoadBalancer"}}}};
  json::object plain = lb;
  plain["metadata"].as_object()["name"] = "internal";
  plain["spec"].as_object()["type"] = "ClusterIP";
  ASSERT_TRUE(store_->create({"/services", "default", "web"}, lb));
  ASSERT_TRUE(store_->create({"/services", "default", "internal"}, plain));
  EXPECT_EQ(controller_->reconcile(), 1);
  const auto svc = *store_->get({"/services", "default", "web"});
  const auto& ingress = svc.at("status").at("loadBalancer").at("ingress").as_array();
  ASSERT_EQ(ingress.size(), 1u);
  EXPECT_TRUE(ingress[0].at("ip").as_string().starts_with("198.51.100."));
  EXPECT_FALSE(store_->get({"/services", "default", "internal"})->contains("status"));
  EXPECT_EQ(controller_->reconcile(), 0);  // assigned once
}

namespace {

// As a kubelet: a pod whose ConfigMap (read into its environment) or Secret (mounted) is missing
// does not start, and says why; once the object exists, it runs.
TEST_F(MemberFixture, APodWaitsForWhatItReadsAsAKubeletDoes) {
  deployment(
      1, "app:1",
      json::object{
          {"envFrom", json::array{json::object{{"configMapRef", json::object{{"name", "env"}}}}}}});
  settle();
  now_ += 1500ms;
  settle();
  ASSERT_EQ(pods().size(), 1u);
  auto pod = pods()[0];
  EXPECT_EQ(phase(pod), "Pending");
  const auto& waiting = pod.at("status").at("containerStatuses").at(0).at("state").at("waiting");
  EXPECT_EQ(waiting.at("reason"), "CreateContainerConfigError");
  EXPECT_EQ(waiting.at("message"), "configmap \"env\" not found");
  EXPECT_EQ(controller_->reconcile(), 0) << "the same wait was written again";

  ASSERT_TRUE(store_->create(
      {"/configmaps", "default", "env"},
      json::object{{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", json::object{{"name", "env"}, {"namespace", "default"}}}}));
  settle();
  EXPECT_EQ(phase(pods()[0]), "Running");
}

TEST_F(MemberFixture, AMissingMountedSecretKeepsThePodContainerCreating) {
  json::object volumes{
      {"volumes",
       json::array{
           json::object{{"name", "tls"}, {"secret", json::object{{"secretName", "tls"}}}},
           json::object{{"name", "extra"},
                        {"configMap", json::object{{"name", "maybe"}, {"optional", true}}}}}}};
  deployment(1, "app:1", {}, volumes);
  settle();
  now_ += 1500ms;
  settle();
  ASSERT_EQ(pods().size(), 1u);
  EXPECT_EQ(phase(pods()[0]), "Pending");
  EXPECT_EQ(
      pods()[0].at("status").at("containerStatuses").at(0).at("state").at("waiting").at("reason"),
      "ContainerCreating");
  ASSERT_TRUE(store_->create(
      {"/secrets", "default", "tls"},
      json::object{{"apiVersion", "v1"},
                   {"kind", "Secret"},
                   {"metadata", json::object{{"name", "tls"}, {"namespace", "default"}}}}));
  settle();
  EXPECT_EQ(phase(pods()[0]), "Running") << "an optional ConfigMap held the pod back";
}

// An init container that reads a missing Secret holds the pod in initialization (as a kubelet
// reports it: Initialized=False, the error on that init container, the containers
// PodInitializing); one of two containers that reads a missing ConfigMap fails alone.
TEST_F(MemberFixture, InitContainersAndContainersWaitEachForWhatItReads) {
  json::object podSpec{
      {"initContainers",
       json::array{json::object{
           {"name", "migrate"},
           {"image", "tool:1"},
           {"envFrom", json::array{json::object{{"secretRef", json::object{{"name", "db"}}}}}}}}}};
  deployment(
      1, "app:1",
      json::object{{"env", json::array{json::object{
                               {"name", "K"},
                               {"valueFrom",
                                json::object{{"configMapKeyRef",
                                              json::object{{"name", "keys"}, {"key", "k"}}}}}}}}},
      podSpec);
  settle();
  now_ += 1500ms;
  settle();
  ASSERT_EQ(pods().size(), 1u);
  auto status = pods()[0].at("status").as_object();
  EXPECT_EQ(status.at("phase"), "Pending");
  const auto& init = status.at("initContainerStatuses").at(0).at("state").at("waiting");
  EXPECT_EQ(init.at("reason"), "CreateContainerConfigError");
  EXPECT_EQ(init.at("message"), "secret \"db\" not found");
  EXPECT_EQ(status.at("containerStatuses").at(0).at("state").at("waiting").at("reason"),
            "PodInitializing");
  EXPECT_EQ(status.at("conditions").at(0).at("type"), "Initialized");
  EXPECT_EQ(status.at("conditions").at(0).at("status"), "False");
  EXPECT_EQ(controller_->reconcile(), 0) << "the same wait was written again";

  // The Secret comes: the init container completes, the container waits for its ConfigMap.
  auto create = [&](const char* resource, const char* kind, const char* name) {
    ASSERT_TRUE(store_->create(
        {resource, "default", name},
        json::object{{"apiVersion", "v1"},
                     {"kind", kind},
                     {"metadata", json::object{{"name", name}, {"namespace", "default"}}}}));
  };
  create("/secrets", "Secret", "db");
  settle();
  status = pods()[0].at("status").as_object();
  EXPECT_EQ(status.at("phase"), "Pending");
  EXPECT_TRUE(
      status.at("initContainerStatuses").at(0).at("state").as_object().contains("terminated"));
  const auto& waiting = status.at("containerStatuses").at(0).at("state").at("waiting");
  EXPECT_EQ(waiting.at("reason"), "CreateContainerConfigError");
  EXPECT_EQ(waiting.at("message"), "configmap \"keys\" not found");
  EXPECT_EQ(status.at("conditions").at(0).at("status"), "True");
  create("/configmaps", "ConfigMap", "keys");
  settle();
  EXPECT_EQ(phase(pods()[0]), "Running");
}

}  // namespace
}  // namespace flotilla::sim
