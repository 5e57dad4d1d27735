#include "controllers/cluster/resources.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <memory>
#include <string>

#include "api/json_codec.h"

namespace flotilla::controllers::cluster {
namespace {

api::Quantity q(const char* s) { return api::Quantity::parse(s).value(); }

// Quantities compare by value but print as bytes in gtest; compare canonical strings instead.
std::map<std::string, std::string> strs(const api::ResourceList& list) {
  std::map<std::string, std::string> out;
  for (const auto& [name, quantity] : list) out[name] = quantity.str();
  return out;
}

api::Node node(const std::string& name, const std::string& ready, api::ResourceList allocatable,
               bool unschedulable = false) {
  api::Node n;
  n.metadata.name = name;
  n.spec.unschedulable = unschedulable;
  n.status.allocatable = std::move(allocatable);
  // Capacity is deliberately larger: only allocatable counts.
  n.status.capacity = {{"cpu", q("64")}};
  if (!ready.empty()) n.status.conditions.push_back({"Ready", ready, "", "", "", ""});
  n.status.conditions.push_back({"MemoryPressure", "False", "", "", "", ""});
  return n;
}

api::Container container(api::ResourceList requests) {
  api::Container c;
  c.name = "c";
  c.resources.requests = std::move(requests);
  return c;
}

api::Pod pod(const std::string& nodeName, const std::string& phase,
             std::vector<api::ResourceList> containers,
             std::vector<api::ResourceList> initContainers = {}) {
  api::Pod p;
  p.spec.nodeName = nodeName;
  p.status.phase = phase;
  for (auto& r : containers) p.spec.containers.push_back(container(std::move(r)));
  for (auto& r : initContainers) p.spec.initContainers.push_back(container(std::move(r)));
  return p;
}

TEST(SummarizeResourcesTest, MixedFleet) {
  const api::ResourceList small = {{"cpu", q("2")}, {"memory", q("4Gi")}, {"pods", q("110")}};
  const api::ResourceList large = {{"cpu", q("4")}, {"memory", q("8Gi")}, {"pods", q("110")}};
  const std::vector<api::Node> nodes = {
      node("ready-1", "True", large),    node("ready-2", "True", small),
      node("not-ready", "False", large), node("unknown", "Unknown", large),
      node("no-condition", "", large),   node("cordoned", "True", large, /*unschedulable=*/true),
  };
  const std::vector<api::Pod> pods = {
      // Bound and running: 1 CPU, 1Gi.
      pod("ready-1", "Running",
          {{{"cpu", q("500m")}, {"memory", q("512Mi")}},
           {{"cpu", q("500m")}, {"memory", q("512Mi")}}}),
      // Bound to a node that does not count as allocatable: still allocated.
      pod("not-ready", "Running", {{{"cpu", q("250m")}}}),
      // Bound, no requests at all: only its pods slot.
      pod("ready-2", "Running", {{}}),
      // Unbound: the 2-CPU init container outweighs the 250m app container.
      pod("", "Pending", {{{"cpu", q("250m")}, {"memory", q("512Mi")}}},
          {{{"cpu", q("2")}, {"memory", q("256Mi")}}}),
      // Unbound, asking for something no node offers.
      pod("", "", {{{"nvidia.com/gpu", q("1")}}}),
      // Finished pods hold nothing, bound or not.
      pod("ready-1", "Succeeded", {{{"cpu", q("3")}}}),
      pod("ready-2", "Failed", {{{"cpu", q("3")}}}),
      pod("", "Failed", {{{"cpu", q("3")}}}),
  };

  const ResourceSummary s = summarizeResources(nodes, pods);

  EXPECT_EQ(s.nodes.total, 6);
  EXPECT_EQ(s.nodes.ready, 3);  // ready-1, ready-2, cordoned
  EXPECT_EQ(strs(s.resources.allocatable),
            strs({{"cpu", q("6")}, {"memory", q("12Gi")}, {"pods", q("220")}}));
  EXPECT_EQ(strs(s.resources.allocated),
            strs({{"cpu", q("1250m")}, {"memory", q("1Gi")}, {"pods", q("3")}}));
  EXPECT_EQ(
      strs(s.resources.allocating),
      strs(
          {{"cpu", q("2")}, {"memory", q("512Mi")}, {"nvidia.com/gpu", q("1")}, {"pods", q("2")}}));
  // GPUs are not allocatable anywhere, so they have no available entry either.
  EXPECT_EQ(strs(s.resources.available),
            strs({{"cpu", q("2750m")}, {"memory", q("10752Mi")}, {"pods", q("215")}}));
}

TEST(SummarizeResourcesTest, AvailableIsClampedAtZero) {
  const std::vector<api::Node> nodes = {
      node("n", "True", {{"cpu", q("1")}, {"memory", q("1Gi")}, {"pods", q("2")}})};
  const std::vector<api::Pod> pods = {
      pod("n", "Running", {{{"cpu", q("1500m")}}}),
      pod("", "Pending", {{{"cpu", q("500m")}, {"memory", q("256Mi")}}}),
      pod("", "Pending", {{}}),
  };
  const ResourceSummary s = summarizeResources(nodes, pods);
  // cpu: 1 - 1.5 - 0.5 < 0; pods: 2 - 1 - 2 < 0. Exhausted resources stay listed, at zero.
  EXPECT_EQ(strs(s.resources.available),
            strs({{"cpu", q("0")}, {"memory", q("768Mi")}, {"pods", q("0")}}));
  EXPECT_TRUE(s.resources.available.at("cpu").isZero());
  EXPECT_EQ(s.resources.available.at("cpu").sign(), 0);
}

TEST(SummarizeResourcesTest, ZeroAllocatableIsKept) {
  const std::vector<api::Node> nodes = {node("n", "True", {{"cpu", q("0")}, {"pods", q("10")}})};
  const ResourceSummary s = summarizeResources(nodes, {});
  EXPECT_EQ(strs(s.resources.allocatable), strs({{"cpu", q("0")}, {"pods", q("10")}}));
  EXPECT_EQ(strs(s.resources.available), strs({{"cpu", q("0")}, {"pods", q("10")}}));
  EXPECT_TRUE(s.resources.allocated.empty());
  EXPECT_TRUE(s.resources.allocating.empty());
}

TEST(SummarizeResourcesTest, NothingObserved) {
  const ResourceSummary s = summarizeResources({}, {});
  EXPECT_EQ(s.nodes.total, 0);
  EXPECT_EQ(s.nodes.ready, 0);
  EXPECT_TRUE(s.resources.allocatable.empty());
  EXPECT_TRUE(s.resources.allocated.empty());
  EXPECT_TRUE(s.resources.allocating.empty());
  EXPECT_TRUE(s.resources.available.empty());
}

TEST(SummarizeResourcesTest, PodsWithoutNodesStillCount) {
  // A cluster whose nodes are all gone still reports what its pods ask for.
  const std::vector<api::Pod> pods = {pod("gone", "Running", {{{"cpu", q("1")}}}),
                                      pod("", "Pending", {{{"cpu", q("1")}}})};
  const ResourceSummary s = summarizeResources({}, pods);
  EXPECT_EQ(strs(s.resources.allocated), strs({{"cpu", q("1")}, {"pods", q("1")}}));
  EXPECT_EQ(strs(s.resources.allocating), strs({{"cpu", q("1")}, {"pods", q("1")}}));
  EXPECT_TRUE(s.resources.available.empty());
}

// The cache decodes a pod only when its cached object changed, and always sums exactly the pods
// it is given: a changed pod counts as it is now, a removed one not at all.
TEST(PodUsageCacheTest, SumsTheCurrentPodsAndFollowsEveryChange) {
  auto object = [](const api::Pod& p) {
    return std::make_shared<const boost::json::object>(api::encode(p).as_object());
  };
  auto bound = object(pod("n1", "Running", {{{"cpu", q("1")}, {"memory", q("1Gi")}}}));
  auto pending = object(pod("", "Pending", {{{"cpu", q("500m")}}}));
  auto done = object(pod("n1", "Succeeded", {{{"cpu", q("8")}}}));
  PodUsageCache cache;
  PodUsage usage = cache.update({bound, pending, done});
  EXPECT_EQ(strs(usage.allocated),
            (std::map<std::string, std::string>{{"cpu", "1"}, {"memory", "1Gi"}, {"pods", "1"}}));
  EXPECT_EQ(strs(usage.allocating),
            (std::map<std::string, std::string>{{"cpu", "500m"}, {"pods", "1"}}));
  // Unchanged objects: the same sums again.
  EXPECT_EQ(strs(cache.update({bound, pending, done}).allocated), strs(usage.allocated));
  // The pending pod was bound (a new object, as an informer stores every change) and the
  // finished one was garbage-collected.
  auto nowBound = object(pod("n2", "Running", {{{"cpu", q("500m")}}}));
  usage = cache.update({bound, nowBound});
  EXPECT_EQ(strs(usage.allocated), (std::map<std::string, std::string>{
                                       {"cpu", "1500m"}, {"memory", "1Gi"}, {"pods", "2"}}));
  EXPECT_TRUE(usage.allocating.empty());
  // The same totals as summarizing decoded pods.
  const auto whole =
      summarizeResources({}, {pod("n1", "Running", {{{"cpu", q("1")}, {"memory", q("1Gi")}}}),
                              pod("n2", "Running", {{{"cpu", q("500m")}}})});
  EXPECT_EQ(strs(whole.resources.allocated), strs(usage.allocated));
  EXPECT_TRUE(cache.update({}).allocated.empty());
}

}  // namespace
}  // namespace flotilla::controllers::cluster
