#include "sim/member/daemonset_controller.h"

#include <set>

#include "sim/member/workload_test_fixture.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::WorkloadFixture;
using DaemonSetTest = WorkloadFixture;

json::object daemonSet(const std::string& image, json::object nodeSelector = {}) {
  json::object podTemplate = WorkloadFixture::podTemplate("agent", image);
  if (!nodeSelector.empty()) podTemplate["spec"].as_object()["nodeSelector"] = nodeSelector;
  return json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "DaemonSet"},
      {"metadata", json::object{{"name", "agent"}}},
      {"spec",
       json::object{{"selector", json::object{{"matchLabels", json::object{{"app", "agent"}}}}},
                    {"template", podTemplate}}}};
}

TEST_F(DaemonSetTest, OnePodPerMatchingReadyNodeFollowingNodes) {
  put("apps", "daemonsets", daemonSet("agent:1"));
  settle();
  auto all = pods();
  ASSERT_EQ(all.size(), 2u);
  std::set<std::string> nodes;
  for (const auto& p : all) {
    nodes.insert(std::string(p.at("spec").at("nodeName").as_string()));
    EXPECT_EQ(phase(p), "Running");
    EXPECT_EQ(podName(p).size(), std::string("agent-").size() + 5);
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"node-1", "node-2"}));
  auto status = get("apps/daemonsets", "agent").at("status").as_object();
  EXPECT_EQ(status.at("desiredNumberScheduled"), 2);
  EXPECT_EQ(status.at("currentNumberScheduled"), 2);
  EXPECT_EQ(status.at("numberReady"), 2);
  EXPECT_EQ(status.at("numberAvailable"), 2);
  EXPECT_EQ(status.at("updatedNumberScheduled"), 2);
  EXPECT_EQ(status.at("numberMisscheduled"), 0);
  EXPECT_EQ(controller_->reconcile(), 0);
  // A new node gets a pod; a removed one loses it.
  node("node-3", {});
  settle();
  EXPECT_EQ(pods().size(), 3u);
  ASSERT_TRUE(store_->remove({"/nodes", "", "node-1"}, std::nullopt));
  settle();
  EXPECT_EQ(pods().size(), 2u);
  EXPECT_EQ(get("apps/daemonsets", "agent").at("status").at("desiredNumberScheduled"), 2);
}

TEST_F(DaemonSetTest, NodeSelectorAndRollingUpdate) {
  node("node-1", {{"disk", "ssd"}});
  put("apps", "daemonsets", daemonSet("agent:1", {{"disk", "ssd"}}));
  settle();
  ASSERT_EQ(pods().size(), 1u);
  EXPECT_EQ(pods()[0].at("spec").at("nodeName"), "node-1");
  node("node-2", {{"disk", "ssd"}});
  put("apps", "daemonsets", daemonSet("agent:2", {{"disk", "ssd"}}));
  settle();
  ASSERT_EQ(pods().size(), 2u);
  for (const auto& p : pods())
    EXPECT_EQ(p.at("spec").at("containers").at(0).at("image"), "agent:2");
  auto status = get("apps/daemonsets", "agent").at("status").as_object();
  EXPECT_EQ(status.at("updatedNumberScheduled"), 2);
  EXPECT_EQ(status.at("observedGeneration"), 2);
}

}  // namespace
}  // namespace flotilla::sim
