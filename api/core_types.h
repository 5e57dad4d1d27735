// core/v1 and apps/v1 objects Flotilla reads and writes. Only the fields Flotilla uses are typed;
// everything else is kept in `unknownFields` (see meta_types.h for the conventions).
#pragma once

#include "api/meta_types.h"
#include "api/quantity.h"
#include "api/taint.h"

namespace flotilla::api {

// ResourceList: resource name (cpu, memory, pods, ...) to quantity.
using ResourceList = std::map<std::string, Quantity>;

struct ResourceRequirements {
  ResourceList limits;
  ResourceList requests;
  boost::json::object unknownFields;
};

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  boost::json::object unknownFields;
};

struct PodSpec {
  std::vector<Container> initContainers;
  std::vector<Container> containers;
  std::map<std::string, std::string> nodeSelector;
  std::string nodeName;
  std::vector<Toleration> tolerations;
  std::string schedulerName;
  std::optional<int32_t> priority;
  boost::json::object unknownFields;
};

struct PodCondition {
  std::string type;
  std::string status;
  std::string lastProbeTime;
  std::string lastTransitionTime;
  std::string reason;
  std::string message;
};

struct PodStatus {
  std::string phase;  // Pending | Running | Succeeded | Failed | Unknown
  std::vector<PodCondition> conditions;
  std::string reason;
  std::string message;
  std::string startTime;
  boost::json::object unknownFields;
};

struct Pod {
  std::string apiVersion = "v1";
  std::string kind = "Pod";
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;
};

struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;
};

struct NodeCondition {
  std::string type;
  std::string status;
  std::string lastHeartbeatTime;
  std::string lastTransitionTime;
  std::string reason;
  std::string message;
};

struct NodeSpec {
  bool unschedulable = false;
  std::vector<Taint> taints;
  boost::json::object unknownFields;
};

struct NodeStatus {
  ResourceList capacity;
  ResourceList allocatable;
  std::vector<NodeCondition> conditions;
  boost::json::object unknownFields;
};

struct Node {
  std::string apiVersion = "v1";
  std::string kind = "Node";
  ObjectMeta metadata;
  NodeSpec spec;
  NodeStatus status;
};

struct Secret {
  std::string apiVersion = "v1";
  std::string kind = "Secret";
  ObjectMeta metadata;
  std::string type;
  std::map<std::string, std::string> data;        // base64, as on the wire
  std::map<std::string, std::string> stringData;  // write-only convenience
  std::optional<bool> immutable;
};

struct Namespace {
  std::string apiVersion = "v1";
  std::string kind = "Namespace";
  ObjectMeta metadata;
  boost::json::object spec;
  boost::json::object status;
};

struct ObjectReference {
  std::string apiVersion;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resourceVersion;
  std::string fieldPath;
};

struct EventSource {
  std::string component;
  std::string host;
};

// core/v1 Event (what `kubectl describe` and `kubectl get events` show).
struct Event {
  std::string apiVersion = "v1";
  std::string kind = "Event";
  ObjectMeta metadata;
  ObjectReference involvedObject;
  std::string reason;
  std::string message;
  EventSource source;
  std::string firstTimestamp;
  std::string lastTimestamp;
  int32_t count = 0;
  std::string type;  // Normal | Warning
  std::string eventTime;
  std::string reportingComponent;
  std::string reportingInstance;
  std::string action;
};

// ---- apps/v1 ----

struct DeploymentSpec {
  std::optional<int32_t> replicas;  // absent means 1
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  boost::json::object unknownFields;  // strategy, minReadySeconds, revisionHistoryLimit, ...
};

struct DeploymentCondition {
  std::string type;
  std::string status;
  std::string lastUpdateTime;
  std::string lastTransitionTime;
  std::string reason;
  std::string message;
};

struct DeploymentStatus {
  int64_t observedGeneration = 0;
  int32_t replicas = 0;
  int32_t updatedReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int32_t unavailableReplicas = 0;
  std::vector<DeploymentCondition> conditions;
  boost::json::object unknownFields;
};

struct Deployment {
  std::string apiVersion = "apps/v1";
  std::string kind = "Deployment";
  ObjectMeta metadata;
  DeploymentSpec spec;
  DeploymentStatus status;
};

struct ReplicaSetSpec {
  std::optional<int32_t> replicas;
  std::optional<LabelSelector> selector;
  PodTemplateSpec template_;
  boost::json::object unknownFields;
};

struct ReplicaSetStatus {
  int32_t replicas = 0;
  int32_t fullyLabeledReplicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int64_t observedGeneration = 0;
  std::vector<DeploymentCondition> conditions;
  boost::json::object unknownFields;
};

struct ReplicaSet {
  std::string apiVersion = "apps/v1";
  std::string kind = "ReplicaSet";
  ObjectMeta metadata;
  ReplicaSetSpec spec;
  ReplicaSetStatus status;
};

}  // namespace flotilla::api
