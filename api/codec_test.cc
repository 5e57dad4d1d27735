#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <boost/pfr/core.hpp>

#include "api/describe.h"
#include "api/flotilla_types.h"
#include "api/json_codec.h"
#include "api/system_types.h"

namespace flotilla::api {
namespace {

namespace json = boost::json;

// Every member of every struct must be in describe.h, or the codec would silently drop it:
// Boost.PFR counts the aggregate's fields and the describe list must account for all of them.
template <class T>
constexpr bool fullyDescribed() {
  constexpr size_t described = boost::mp11::mp_size<
      boost::describe::describe_members<T, boost::describe::mod_public>>::value;
  constexpr size_t extra = requires(T t) { t.unknownFields; }
  ? 1 : 0;
  return described + extra == boost::pfr::tuple_size_v<T>;
}
#define EXPECT_DESCRIBED(...) static_assert(fullyDescribed<__VA_ARGS__>(), #__VA_ARGS__)
EXPECT_DESCRIBED(ObjectMeta);
EXPECT_DESCRIBED(OwnerReference);
EXPECT_DESCRIBED(Condition);
EXPECT_DESCRIBED(Status);
EXPECT_DESCRIBED(Toleration);
EXPECT_DESCRIBED(Taint);
EXPECT_DESCRIBED(PodSpec);
EXPECT_DESCRIBED(PodStatus);
EXPECT_DESCRIBED(Container);
EXPECT_DESCRIBED(NodeStatus);
EXPECT_DESCRIBED(Event);
EXPECT_DESCRIBED(DeploymentSpec);
EXPECT_DESCRIBED(DeploymentStatus);
EXPECT_DESCRIBED(ReplicaSetStatus);
EXPECT_DESCRIBED(LeaseSpec);
EXPECT_DESCRIBED(AdmissionRequest);
EXPECT_DESCRIBED(AdmissionResponse);
EXPECT_DESCRIBED(CustomResourceDefinitionVersion);
EXPECT_DESCRIBED(FederatedClusterSpec);
EXPECT_DESCRIBED(FederatedClusterStatus);
EXPECT_DESCRIBED(ClusterResources);
EXPECT_DESCRIBED(PropagationPolicySpec);
EXPECT_DESCRIBED(Placement);
EXPECT_DESCRIBED(ClusterAffinity);
EXPECT_DESCRIBED(SpreadConstraint);
EXPECT_DESCRIBED(TopologySpreadConstraint);
EXPECT_DESCRIBED(ReplicaScheduling);
EXPECT_DESCRIBED(ClusterPreference);
EXPECT_DESCRIBED(AutoMigration);
EXPECT_DESCRIBED(Failover);
EXPECT_DESCRIBED(FederatedDeploymentSpec);
EXPECT_DESCRIBED(FederatedDeploymentStatus);
EXPECT_DESCRIBED(ClusterDeploymentStatus);
EXPECT_DESCRIBED(ResourceBindingSpec);
EXPECT_DESCRIBED(ResourceBindingStatus);
EXPECT_DESCRIBED(ReplicaRequirements);
EXPECT_DESCRIBED(AutoMigrationStatus);
EXPECT_DESCRIBED(SchedulingProfileSpec);
EXPECT_DESCRIBED(SchedulerExtenderSpec);
EXPECT_DESCRIBED(ExtenderTLSConfig);

json::value parse(std::string_view text) { return parseJson(text).value(); }

// A Deployment as `kubectl get deploy -o json` prints it, with fields Flotilla does not model at
// every level (strategy, managedFields, ports, env, volumes, probes, status.collisionCount).
constexpr std::string_view kDeployment = R"({
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {
    "name": "web", "namespace": "shop", "uid": "1b6c", "resourceVersion": "4711", "generation": 3,
    "creationTimestamp": "2026-11-01T10:00:00Z",
    "labels": {"app": "web", "flotilla.io/propagation-policy": "spread"},
    "annotations": {"deployment.kubernetes.io/revision": "2"},
    "finalizers": ["flotilla.io/cleanup"],
    "ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "u",
                         "controller": false}],
    "managedFields": [{"manager": "kubectl", "operation": "Apply", "fieldsType": "FieldsV1",
                       "fieldsV1": {"f:spec": {"f:replicas": {}}}}]
  },
  "spec": {
    "replicas": 0,
    "selector": {"matchLabels": {"app": "web"}},
    "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}},
    "revisionHistoryLimit": 10,
    "template": {
      "metadata": {"labels": {"app": "web"}},
      "spec": {
        "containers": [{
          "name": "nginx", "image": "nginx:1.27",
          "ports": [{"containerPort": 80, "protocol": "TCP"}],
          "env": [{"name": "MODE", "value": "prod"}],
          "readinessProbe": {"httpGet": {"path": "/", "port": 80}},
          "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}, "limits": {"cpu": "1"},
                        "claims": [{"name": "gpu"}]}
        }],
        "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
        "volumes": [{"name": "cache", "emptyDir": {}}],
        "terminationGracePeriodSeconds": 30
      }
    }
  },
  "status": {
    "observedGeneration": 3, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 1,
    "availableReplicas": 1, "unavailableReplicas": 1, "collisionCount": 1,
    "conditions": [{"type": "Available", "status": "False", "reason": "MinimumReplicasUnavailable",
                    "message": "Deployment does not have minimum availability.",
                    "lastUpdateTime": "2026-11-01T10:00:05Z",
                    "lastTransitionTime": "2026-11-01T10:00:05Z"}]
  }
})";

TEST(CodecTest, DeploymentRoundTripKeepsUnknownFields) {
  const json::value original = parse(kDeployment);
  auto deployment = decode<Deployment>(original);
  ASSERT_TRUE(deployment.has_value()) << deployment.error().str();
  EXPECT_EQ(deployment->metadata.namespace_, "shop");
  ASSERT_TRUE(deployment->spec.replicas.has_value());
  EXPECT_EQ(*deployment->spec.replicas, 0);  // explicit zero is not "absent" (which means 1)
  EXPECT_EQ(deployment->spec.template_.spec.containers[0].resources.requests.at("cpu").milliValue(),
            250);
  EXPECT_EQ(deployment->status.readyReplicas, 1);
  EXPECT_EQ(encode(*deployment), original) << json::serialize(encode(*deployment));
}

// Objects read from member clusters round-trip too, whatever their kubelet or scheduler added.
// An explicitly empty field whose default is not empty survives a round trip (libFuzzer found
// {"apiVersion": ""} coming back as "v1").
TEST(CodecTest, ExplicitlyEmptyFieldWithADefaultRoundTrips) {
  auto json = parseJson(R"({"apiVersion": "", "kind": "Secret"})");
  ASSERT_TRUE(json);
  auto status = decode<Status>(*json);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->apiVersion, "");
  const auto encoded = encode(*status);
  EXPECT_EQ(boost::json::serialize(encoded), R"({"apiVersion":"","kind":"Secret"})");
  auto again = decode<Status>(encoded);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->apiVersion, "");
  // Fields whose default is empty are still left out.
  EXPECT_FALSE(encode(Status{}).as_object().contains("message"));
}

TEST(CodecTest, MemberPodAndNodeRoundTrip) {
  const json::value pod = parse(R"({
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "web-7d9f-abcde", "namespace": "demo", "generateName": "web-7d9f-",
                 "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d9f",
                                      "uid": "r1", "controller": true, "blockOwnerDeletion": true}],
                 "labels": {"app": "web", "pod-template-hash": "7d9f"}},
    "spec": {"containers": [{"name": "web", "image": "nginx", "resources": {"requests": {"cpu": "500m"}},
                             "terminationMessagePath": "/dev/termination-log"}],
             "schedulerName": "default-scheduler", "priority": 0, "dnsPolicy": "ClusterFirst",
             "securityContext": {}},
    "status": {"phase": "Pending", "qosClass": "Burstable",
               "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                               "message": "0/3 nodes are available: 3 Insufficient cpu.",
                               "lastTransitionTime": "2026-11-01T10:00:00Z", "lastProbeTime": null}]}
  })");
  auto decodedPod = decode<Pod>(pod);
  ASSERT_TRUE(decodedPod.has_value()) << decodedPod.error().str();
  EXPECT_EQ(decodedPod->status.conditions[0].reason, "Unschedulable");
  EXPECT_EQ(decodedPod->spec.priority, 0);
  // `lastProbeTime: null` is the only difference: null and absent mean the same in Kubernetes.
  json::value expected = pod;
  expected.at("status").at("conditions").at(0).as_object().erase("lastProbeTime");
  EXPECT_EQ(encode(*decodedPod), expected) << json::serialize(encode(*decodedPod));

  const json::value node = parse(R"({
    "apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "node-1", "labels": {"topology.kubernetes.io/zone": "eu-west-1a"}},
    "spec": {"taints": [{"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}],
             "podCIDR": "10.244.0.0/24"},
    "status": {"capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
               "allocatable": {"cpu": "3900m", "memory": "15Gi", "pods": "110"},
               "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                               "lastHeartbeatTime": "2026-11-01T10:00:00Z",
                               "lastTransitionTime": "2026-11-01T09:00:00Z"}],
               "nodeInfo": {"kubeletVersion": "v1.31.0"}}
  })");
  auto decodedNode = decode<Node>(node);
  ASSERT_TRUE(decodedNode.has_value()) << decodedNode.error().str();
  EXPECT_EQ(decodedNode->status.allocatable.at("cpu").milliValue(), 3900);
  EXPECT_EQ(encode(*decodedNode), node) << json::serialize(encode(*decodedNode));
}

TEST(CodecTest, AdmissionReviewKeepsObjectOpaque) {
  const json::value review = parse(R"({
    "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
    "request": {"uid": "705ab4f5", "kind": {"group": "flotilla.io", "version": "v1alpha1",
                                            "kind": "PropagationPolicy"},
                "resource": {"group": "flotilla.io", "version": "v1alpha1",
                             "resource": "propagationpolicies"},
                "name": "p", "namespace": "shop", "operation": "CREATE",
                "userInfo": {"username": "admin", "groups": ["system:masters"], "extra": {"k": ["v"]}},
                "object": {"kind": "PropagationPolicy", "spec": {"anything": [1, 2]}},
                "dryRun": false}
  })");
  auto decoded = decode<AdmissionReview>(review);
  ASSERT_TRUE(decoded.has_value()) << decoded.error().str();
  EXPECT_EQ(decoded->request->operation, "CREATE");
  EXPECT_EQ(decoded->request->object.at("spec").at("anything").as_array().size(), 2u);
  EXPECT_EQ(encode(*decoded), review) << json::serialize(encode(*decoded));
}

TEST(CodecTest, FederatedDeploymentTemplateIsKeptVerbatim) {
  json::value original = parse(R"({
    "apiVersion": "flotilla.io/v1alpha1", "kind": "FederatedDeployment",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {
      "template": {"metadata": {"labels": {"app": "web"}},
                   "spec": {"replicas": 6, "paused": false, "minReadySeconds": 5,
                            "template": {"spec": {"containers": [{"name": "c", "image": "i",
                                                   "command": ["sleep", "1d"]}]}}}},
      "overrides": [{"clusterName": "member1",
                     "patches": [{"op": "replace", "path": "/spec/template/spec/containers/0/image",
                                  "value": "i:canary"},
                                 {"op": "add", "path": "/metadata/labels/x", "value": {"a": [1, 2]}}]}]
    }
  })");
  auto fd = decode<FederatedDeployment>(original);
  ASSERT_TRUE(fd.has_value()) << fd.error().str();
  EXPECT_EQ(fd->spec.template_.spec.replicas.value_or(-1), 6);
  EXPECT_EQ(fd->spec.overrides[0].patches[1].value.at("a").as_array().size(), 2u);
  // `paused: false` is a zero value the Deployment keeps in unknownFields, so it survives too.
  EXPECT_EQ(encode(*fd), original) << json::serialize(encode(*fd));
}

TEST(CodecTest, ErrorsNameTheJsonPath) {
  json::value v = parse(R"({
    "apiVersion": "flotilla.io/v1alpha1", "kind": "PropagationPolicy",
    "metadata": {"name": "p", "labels": {"a": 1}},
    "spec": {"priority": "high",
             "placement": {"replicaScheduling": {"weights": [
               {"weight": 1}, {"weight": 2}, {"weight": "three"}]},
               "spreadConstraints": {"spreadByField": "region"},
               "maxClusters": 3000000000}}
  })");
  auto policy = decode<PropagationPolicy>(v);
  ASSERT_FALSE(policy.has_value());
  const FieldErrors& errors = policy.error().causes;
  std::vector<std::string> messages;
  for (const auto& e : errors) messages.push_back(e.str());
  EXPECT_EQ(messages,
            (std::vector<std::string>{
                "metadata.labels[a]: expected string, got integer",
                "spec.priority: expected integer, got string",
                "spec.placement.spreadConstraints: expected array, got object",
                "spec.placement.maxClusters: expected integer (int32), got out-of-range value "
                "3000000000",
                "spec.placement.replicaScheduling.weights[2].weight: expected integer, got string",
            }));
  EXPECT_EQ(policy.error().reason, reason::kInvalid);
  EXPECT_EQ(policy.error().message,
            "metadata.labels[a]: expected string, got integer (and 4 more)");
}

// Decoding straight from an object (what reconcilers do with cached objects, without a copy into
// a value) gives what decoding the value gives: the fields, unknown fields kept, and the errors
// with their paths.
TEST(CodecTest, DecodingAnObjectEqualsDecodingItsValue) {
  const json::value deployment = parse(kDeployment);
  auto fromObject = decode<Deployment>(deployment.as_object());
  ASSERT_TRUE(fromObject.has_value()) << fromObject.error().str();
  EXPECT_EQ(encode(*fromObject), deployment);

  const json::value bad = parse(R"({"kind": "PropagationPolicy", "metadata": {"name": 1},
      "spec": {"placement": {"spreadConstraints": [{"minGroup": 2}]}}})");
  auto viaValue = decode<PropagationPolicy>(bad, {.rejectUnknownFields = true});
  auto viaObject = decode<PropagationPolicy>(bad.as_object(), {.rejectUnknownFields = true});
  ASSERT_FALSE(viaValue.has_value());
  ASSERT_FALSE(viaObject.has_value());
  EXPECT_EQ(viaObject.error().message, viaValue.error().message);
  ASSERT_EQ(viaObject.error().causes.size(), 2u);
  EXPECT_EQ(viaObject.error().causes[1].str(),
            "spec.placement.spreadConstraints[0].minGroup: unknown field \"minGroup\"");
}

TEST(CodecTest, QuantityErrorsNameTheField) {
  auto fc = decode<FederatedCluster>(
      parse(R"({"status": {"resources": {"allocatable": {"cpu": "4", "memory": "lots"}}}})"));
  ASSERT_FALSE(fc.has_value());
  ASSERT_EQ(fc.error().causes.size(), 1u);
  EXPECT_EQ(fc.error().causes[0].field, "status.resources.allocatable[memory]");
}

TEST(CodecTest, UnknownFieldsRejectedOnlyWhenAsked) {
  json::value v = parse(R"({"kind": "PropagationPolicy", "metadata": {"name": "p"},
                            "spec": {"placement": {"spreadConstraints": [{"minGroup": 2}]}}})");
  EXPECT_TRUE(decode<PropagationPolicy>(v).has_value());
  auto strict = decode<PropagationPolicy>(v, {.rejectUnknownFields = true});
  ASSERT_FALSE(strict.has_value());
  EXPECT_EQ(strict.error().causes[0].str(),
            "spec.placement.spreadConstraints[0].minGroup: unknown field \"minGroup\"");
}

TEST(CodecTest, OptionalFieldsKeepPresence) {
  PropagationPolicy p;
  p.metadata.name = "p";
  p.spec.placement.replicaScheduling.emplace();
  p.spec.placement.replicaScheduling->avoidDisruption = false;
  p.spec.placement.replicaScheduling->weights.push_back({{{"m1"}, std::nullopt}, 0, 0, 0});
  json::value v = encode(p);
  const auto& rs = v.at("spec").at("placement").at("replicaScheduling");
  EXPECT_EQ(rs.at("avoidDisruption"), json::value(false));
  EXPECT_EQ(rs.at("weights").at(0).at("maxReplicas"), json::value(0));
  EXPECT_FALSE(rs.at("weights").at(0).as_object().contains("weight"));  // omitempty, means 0
  EXPECT_FALSE(v.as_object().contains("status"));
  auto back = decode<PropagationPolicy>(v);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->spec.placement.replicaScheduling->weights[0].maxReplicas, 0);
}

TEST(CodecTest, QuantitiesAcceptNumbersAndPrintCanonically) {
  auto list = decode<ResourceList>(parse(R"({"cpu": 2, "memory": "1024Mi", "gpu": 0.5})"));
  ASSERT_TRUE(list.has_value()) << list.error().str();
  EXPECT_EQ(encode(*list), parse(R"({"cpu": "2", "memory": "1Gi", "gpu": "500m"})"));
}

TEST(CodecTest, ParseJsonReportsPosition) {
  auto bad = parseJson("{\n  \"a\": 1,\n  \"b\": tru\n}");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().reason, reason::kBadRequest);
  EXPECT_NE(bad.error().message.find("line 3"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(parseJson("").has_value());
  EXPECT_FALSE(parseJson(std::string(1000, '[')).has_value());  // too deep, not a crash
}

}  // namespace
}  // namespace flotilla::api
