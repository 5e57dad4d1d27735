#include "interpreter/pod_requests.h"

#include <gtest/gtest.h>

namespace flotilla::interpreter {
namespace {

api::Quantity q(const char* text) {
  auto parsed = api::Quantity::parse(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed ? *parsed : api::Quantity{};
}

api::Container container(api::ResourceList requests) {
  api::Container c;
  c.name = "c";
  c.resources.requests = std::move(requests);
  return c;
}

TEST(PodRequestsTest, SumsAppContainers) {
  api::PodSpec spec;
  spec.containers = {container({{"cpu", q("100m")}, {"memory", q("64Mi")}}),
                     container({{"cpu", q("200m")}}),
                     container({{"memory", q("64Mi")}, {"nvidia.com/gpu", q("1")}})};
  const api::ResourceList want = {
      {"cpu", q("300m")}, {"memory", q("128Mi")}, {"nvidia.com/gpu", q("1")}};
  EXPECT_EQ(podRequests(spec), want);
}

TEST(PodRequestsTest, LargestInitContainerWinsPerResource) {
  api::PodSpec spec;
  spec.containers = {container({{"cpu", q("100m")}, {"memory", q("64Mi")}}),
                     container({{"cpu", q("200m")}, {"memory", q("64Mi")}})};
  // Init containers run one at a time: their maximum, not their sum, competes with the app sum.
  spec.initContainers = {container({{"cpu", q("250m")}, {"memory", q("32Mi")}}),
                         container({{"cpu", q("500m")}, {"ephemeral-storage", q("1Gi")}})};
  const api::ResourceList want = {
      {"cpu", q("500m")}, {"memory", q("128Mi")}, {"ephemeral-storage", q("1Gi")}};
  EXPECT_EQ(podRequests(spec), want);
}

TEST(PodRequestsTest, OverheadIsAddedAfterTheMaximum) {
  api::PodSpec spec;
  spec.containers = {container({{"cpu", q("100m")}})};
  spec.initContainers = {container({{"cpu", q("1")}})};
  spec.unknownFields["overhead"] = boost::json::object{{"cpu", "50m"}, {"memory", "10Mi"}};
  const api::ResourceList want = {{"cpu", q("1050m")}, {"memory", q("10Mi")}};
  EXPECT_EQ(podRequests(spec), want);
}

TEST(PodRequestsTest, MalformedOverheadIsIgnored) {
  api::PodSpec spec;
  spec.containers = {container({{"cpu", q("100m")}})};
  spec.unknownFields["overhead"] = boost::json::object{{"cpu", "lots"}};
  EXPECT_EQ(podRequests(spec), (api::ResourceList{{"cpu", q("100m")}}));
}

TEST(PodRequestsTest, ZeroRequestsAreDropped) {
  api::PodSpec spec;
  spec.containers = {container({{"cpu", q("0")}, {"memory", q("64Mi")}}),
                     container({{"cpu", q("0m")}, {"nvidia.com/gpu", q("0")}})};
  EXPECT_EQ(podRequests(spec), (api::ResourceList{{"memory", q("64Mi")}}));
}

TEST(PodRequestsTest, NoContainers) {
  EXPECT_TRUE(podRequests(api::PodSpec{}).empty());
  api::PodSpec noRequests;
  noRequests.containers = {container({}), container({})};
  EXPECT_TRUE(podRequests(noRequests).empty());
}

TEST(PodRequestsTest, AddResources) {
  api::ResourceList a = {{"cpu", q("1")}};
  addResources(a, {{"cpu", q("500m")}, {"memory", q("1Gi")}});
  EXPECT_EQ(a, (api::ResourceList{{"cpu", q("1500m")}, {"memory", q("1Gi")}}));
}

}  // namespace
}  // namespace flotilla::interpreter
