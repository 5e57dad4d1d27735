#include "sim/member/hpa_controller.h"

#include "sim/member/workload_test_fixture.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::WorkloadFixture;
using HpaTest = WorkloadFixture;

json::object deployment(int replicas) {
  return json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", json::object{{"name", "web"}}},
      {"spec",
       json::object{{"replicas", replicas},
                    {"selector", json::object{{"matchLabels", json::object{{"app", "web"}}}}},
                    {"template", WorkloadFixture::podTemplate("web", "nginx")}}}};
}

json::object hpa(int minReplicas, int maxReplicas, const std::string& desired = "") {
  json::object metadata{{"name", "web"}};
  if (!desired.empty())
    metadata["annotations"] = json::object{{kDesiredReplicasAnnotation, desired}};
  return json::object{
      {"apiVersion", "autoscaling/v2"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", metadata},
      {"spec", json::object{{"minReplicas", minReplicas},
                            {"maxReplicas", maxReplicas},
                            {"scaleTargetRef", json::object{{"apiVersion", "apps/v1"},
                                                            {"kind", "Deployment"},
                                                            {"name", "web"}}}}}};
}

const json::object* condition(const json::object& status, const char* type) {
  for (const auto& c : status.at("conditions").as_array())
    if (c.at("type") == type) return &c.as_object();
  return nullptr;
}

TEST_F(HpaTest, ScalesTheTargetToTheAnnotationWithinTheRange) {
  put("apps", "deployments", deployment(1));
  put("autoscaling", "horizontalpodautoscalers", hpa(2, 5));
  settle();
  // Below the minimum: raised to it, as the real controller does without metrics.
  auto d = get("apps/deployments", "web");
  EXPECT_EQ(d.at("spec").at("replicas"), 2);
  bool found = false;
  for (const auto& entry : d.at("metadata").at("managedFields").as_array())
    if (entry.at("manager") == "kube-controller-manager") {
      found = true;
      EXPECT_EQ(entry.at("operation"), "Update");
      EXPECT_EQ(entry.at("subresource"), "scale");
    }
  EXPECT_TRUE(found);
  auto status = get("autoscaling/horizontalpodautoscalers", "web").at("status").as_object();
  EXPECT_EQ(status.at("desiredReplicas"), 2);
  EXPECT_TRUE(status.contains("lastScaleTime"));
  EXPECT_EQ(condition(status, "ScalingActive")->at("status"), "False");
  EXPECT_EQ(condition(status, "ScalingActive")->at("reason"), "FailedGetResourceMetric");
  EXPECT_EQ(controller_->reconcile(), 0);

  put("autoscaling", "horizontalpodautoscalers", hpa(2, 5, "9"));
  settle();
  EXPECT_EQ(get("apps/deployments", "web").at("spec").at("replicas"), 5);
  status = get("autoscaling/horizontalpodautoscalers", "web").at("status").as_object();
  EXPECT_EQ(status.at("desiredReplicas"), 5);
  EXPECT_EQ(status.at("currentReplicas"), 5);
  EXPECT_EQ(condition(status, "ScalingLimited")->at("reason"), "TooManyReplicas");
  EXPECT_EQ(condition(status, "ScalingActive")->at("status"), "True");
  EXPECT_EQ(controller_->reconcile(), 0);

  put("autoscaling", "horizontalpodautoscalers", hpa(2, 5, "3"));
  settle();
  EXPECT_EQ(get("apps/deployments", "web").at("spec").at("replicas"), 3);
  EXPECT_EQ(condition(get("autoscaling/horizontalpodautoscalers", "web").at("status").as_object(),
                      "ScalingLimited")
                ->at("status"),
            "False");
}

TEST_F(HpaTest, AMissingTargetCannotBeScaled) {
  put("autoscaling", "horizontalpodautoscalers", hpa(1, 3));
  settle();
  const auto status = get("autoscaling/horizontalpodautoscalers", "web").at("status").as_object();
  EXPECT_EQ(condition(status, "AbleToScale")->at("reason"), "FailedGetScale");
}

}  // namespace
}  // namespace flotilla::sim
