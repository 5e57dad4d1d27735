#include "controllers/common/cache_transforms.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "controllers/cluster/resources.h"

namespace flotilla::controllers {
namespace {
namespace json = boost::json;
using cluster::PodUsageCache;

json::object parse(const char* text) { return json::parse(text).as_object(); }

// A pod as a member's API server returns it: the trimmed copy keeps every field a controller
// reads (so the resources summed and the conditions seen are the same) and little else.
TEST(CacheTransformsTest, PodKeepsWhatTheControllersRead) {
  const json::object full = parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "w-abc", "namespace": "load", "uid": "u1", "resourceVersion": "7",
      "labels": {"app": "w", "flotilla.io/binding-hash": "h1"},
      "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{...}"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "w-1",
                           "uid": "rs1", "controller": true}],
      "managedFields": [{"manager": "kubelet"}]},
    "spec": {"nodeName": "n1", "serviceAccountName": "default", "volumes": [{"name": "v"}],
      "containers": [{"name": "c", "image": "nginx:1.25", "env": [{"name": "A", "value": "B"}],
                      "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}],
      "initContainers": [{"name": "i", "image": "busybox",
                          "resources": {"requests": {"cpu": "1"}}}],
      "overhead": {"cpu": "10m"}, "tolerations": [{"key": "k"}]},
    "status": {"phase": "Pending", "podIP": "10.0.0.1",
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "lastTransitionTime": "2026-11-24T00:00:00Z"}],
      "containerStatuses": [{"name": "c", "image": "nginx:1.25", "ready": false}]}})");
  json::object trimmed = full;
  trimPod(trimmed);
  EXPECT_EQ(trimmed, parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "w-abc", "namespace": "load", "uid": "u1", "resourceVersion": "7",
      "labels": {"app": "w", "flotilla.io/binding-hash": "h1"},
      "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "w-1",
                           "uid": "rs1", "controller": true}]},
    "spec": {"nodeName": "n1",
      "containers": [{"name": "c", "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}],
      "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "1"}}}],
      "overhead": {"cpu": "10m"}},
    "status": {"phase": "Pending",
      "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                      "lastTransitionTime": "2026-11-24T00:00:00Z"}]}})"));
  // The same usage from the full and the trimmed object.
  PodUsageCache a, b;
  const auto fromFull = a.update({std::make_shared<const json::object>(full)});
  const auto fromTrimmed = b.update({std::make_shared<const json::object>(trimmed)});
  EXPECT_EQ(fromFull.allocated, fromTrimmed.allocated);
  EXPECT_EQ(fromFull.allocated.at("cpu").str(), "1010m");  // the init container's 1 + overhead
}

TEST(CacheTransformsTest, ReplicaSetKeepsItsMetadata) {
  json::object rs = parse(R"({"metadata": {"name": "w-1", "uid": "rs1",
      "annotations": {"deployment.kubernetes.io/revision": "2"},
      "ownerReferences": [{"uid": "d1", "controller": true}], "managedFields": []},
    "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "c"}]}}},
    "status": {"replicas": 2}})");
  trimReplicaSet(rs);
  EXPECT_EQ(rs, parse(R"({"metadata": {"name": "w-1", "uid": "rs1",
      "annotations": {"deployment.kubernetes.io/revision": "2"},
      "ownerReferences": [{"uid": "d1", "controller": true}]}})"));
}

TEST(CacheTransformsTest, MalformedShapesAreLeftAlone) {
  json::object odd = parse(R"({"metadata": 3, "spec": [1], "status": "x"})");
  json::object copy = odd;
  trimPod(copy);
  EXPECT_EQ(copy, odd);
  copy = parse(R"({"spec": {"containers": [1, {"name": "c", "image": "i"}]}})");
  trimPod(copy);
  EXPECT_EQ(copy, parse(R"({"spec": {"containers": [1, {"name": "c"}]}})"));
}

}  // namespace
}  // namespace flotilla::controllers
