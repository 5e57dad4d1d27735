// flotilla.io/v1alpha1: every kind of docs/design.md §3. Field names are the JSON names (see
// meta_types.h). Enumerations are strings on the wire; their allowed values live in
// api/enums.h so validation, the CRD generator and the docs share one list.
#pragma once

#include "api/core_types.h"

namespace flotilla::api {

inline constexpr const char* kGroup = "flotilla.io";
inline constexpr const char* kVersion = "v1alpha1";
inline constexpr const char* kGroupVersion = "flotilla.io/v1alpha1";

// ---- FederatedCluster (cluster-scoped, fc) ----
struct LocalSecretReference {
  std::string namespace_;
  std::string name;
};

// On a credentials Secret: the one FederatedCluster whose secretRef may use it
// (docs/security.md, H1). Whoever can write FederatedClusters cannot point one at another
// member's credentials: the operator reads the Secret only for the cluster it names.
inline constexpr const char* kClusterCredentialsAnnotation = "flotilla.io/cluster";

struct FederatedClusterSpec {
  std::string apiEndpoint;             // https URL of the member's API server
  LocalSecretReference secretRef;      // Secret with `kubeconfig`, or `token` + `caBundle`
  bool insecureSkipTLSVerify = false;  // refused: credentials go over verified TLS only
  std::string provider;
  std::string region;
  std::string zone;
  std::vector<Taint> taints;
};

struct APIResource {
  std::string name;
  std::string kind;
};
struct APIEnablement {
  std::string groupVersion;
  std::vector<APIResource> resources;
};

struct ClusterResources {
  ResourceList allocatable;
  ResourceList allocated;   // requests of bound, non-terminal pods
  ResourceList allocating;  // requests of unbound pods
  ResourceList available;   // allocatable - allocated - allocating
};

struct NodeSummary {
  int32_t total = 0;
  int32_t ready = 0;
};

struct FederatedClusterStatus {
  std::vector<Condition> conditions;  // Ready, Offline
  std::string kubernetesVersion;
  std::vector<APIEnablement> apiEnablements;
  ClusterResources resources;
  NodeSummary nodeSummary;
  std::string lastProbeTime;
};

struct FederatedCluster {
  std::string apiVersion = kGroupVersion;
  std::string kind = "FederatedCluster";
  ObjectMeta metadata;
  FederatedClusterSpec spec;
  FederatedClusterStatus status;
};

// ---- PropagationPolicy (pp) and ClusterPropagationPolicy (cpp) ----
struct ResourceSelector {
  std::string apiVersion;
  std::string kind;
  std::string namespace_;  // PropagationPolicy: empty or its own; ClusterPropagationPolicy: any
  std::string name;
  std::optional<LabelSelector> labelSelector;
};

struct FieldSelectorRequirement {
  std::string key;        // provider | region | zone
  std::string operator_;  // In | NotIn
  std::vector<std::string> values;
};
struct FieldSelector {
  std::vector<FieldSelectorRequirement> matchExpressions;
};

struct ClusterAffinity {
  std::vector<std::string> clusterNames;
  std::vector<std::string> exclude;
  std::optional<LabelSelector> labelSelector;
  std::optional<FieldSelector> fieldSelector;
};

struct SpreadConstraint {
  std::string spreadByField;  // cluster | region | zone | provider
  std::string spreadByLabel;
  std::optional<int32_t> minGroups;  // default 1
  std::optional<int32_t> maxGroups;  // default: every group available
};

struct TopologySpreadConstraint {
  std::string topologyKey;        // region | zone | provider | <cluster label key>
  int32_t maxSkew = 0;            // >= 1
  std::string whenUnsatisfiable;  // DoNotSchedule | ScheduleAnyway
};

struct ClusterTarget {
  std::vector<std::string> clusterNames;
  std::optional<LabelSelector> labelSelector;
};

struct ClusterPreference {
  ClusterTarget targetCluster;
  int64_t weight = 0;
  int64_t minReplicas = 0;
  std::optional<int64_t> maxReplicas;
};

struct ReplicaScheduling {
  std::string type;      // Duplicated | Divided (default)
  std::string division;  // Weighted (default) | Aggregated
  std::vector<ClusterPreference> weights;
  std::string dynamicWeight;            // AvailableReplicas
  std::optional<bool> avoidDisruption;  // default true
};

struct Placement {
  std::optional<ClusterAffinity> clusterAffinity;
  std::vector<Toleration> clusterTolerations;
  std::vector<SpreadConstraint> spreadConstraints;
  std::vector<TopologySpreadConstraint> topologySpreadConstraints;
  std::optional<int32_t> maxClusters;
  std::optional<ReplicaScheduling> replicaScheduling;
};

struct AutoMigration {
  std::string podUnschedulableFor;  // duration, default 1m
  bool keepUnschedulableReplicas = false;
  std::string capacityTTL;  // duration, default 5m
};

struct Failover {
  std::string clusterNotReadyFor;  // duration, default 60s
  std::string failback;            // Never | Rebalance (default)
};

struct PropagationPolicySpec {
  std::vector<ResourceSelector> resourceSelectors;
  int32_t priority = 0;
  std::string schedulingProfile;
  // Abort (empty: the default) | Adopt: what happens to a member object of the same name that
  // Flotilla does not manage (docs/design.md §11).
  std::string conflictResolution;
  // Follow (empty: the default) | Ignore: whether the ConfigMaps, Secrets, ServiceAccount, PVCs
  // and Services a selected workload uses follow it to its clusters (docs/design.md §12).
  std::string dependencies;
  Placement placement;
  std::optional<AutoMigration> autoMigration;  // absent means off
  std::optional<Failover> failover;
};

struct PropagationPolicyStatus {
  std::vector<Condition> conditions;
  int64_t observedGeneration = 0;
};

struct PropagationPolicy {
  std::string apiVersion = kGroupVersion;
  std::string kind = "PropagationPolicy";
  ObjectMeta metadata;
  PropagationPolicySpec spec;
  PropagationPolicyStatus status;
};

// Same spec as PropagationPolicy, cluster-scoped.
struct ClusterPropagationPolicy {
  std::string apiVersion = kGroupVersion;
  std::string kind = "ClusterPropagationPolicy";
  ObjectMeta metadata;
  PropagationPolicySpec spec;
  PropagationPolicyStatus status;
};

// ---- FederatedDeployment (fdeploy) ----
struct JsonPatchOperation {
  std::string op;    // add | remove | replace | move | copy | test
  std::string path;  // JSON pointer
  std::string from;  // move and copy
  boost::json::value value;
};

struct ClusterOverride {
  std::string clusterName;
  std::vector<JsonPatchOperation> patches;
};

// A Deployment's metadata (labels/annotations) and spec, verbatim.
struct DeploymentTemplate {
  ObjectMeta metadata;
  DeploymentSpec spec;
  boost::json::object unknownFields;
};

struct FederatedDeploymentSpec {
  DeploymentTemplate template_;
  std::vector<ClusterOverride> overrides;
};

struct ClusterDeploymentStatus {
  std::string name;
  int32_t replicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int32_t updatedReplicas = 0;
  int32_t unavailableReplicas = 0;
  int64_t observedGeneration = 0;
  std::string propagation;  // OK | PendingCreate | CreationFailed | UpdateFailed | ...
  std::string message;
  std::vector<DeploymentCondition> conditions;
  // The OverridePolicies and ClusterOverridePolicies whose rules changed the member Deployment
  // ("cop/NAME", "op/NAMESPACE/NAME", in the order they applied), as its
  // flotilla.io/applied-overrides annotation says.
  std::vector<std::string> appliedOverrides;
};

struct FederatedDeploymentStatus {
  std::vector<ClusterDeploymentStatus> clusters;  // sorted by name
  int32_t replicas = 0;
  int32_t readyReplicas = 0;
  int32_t availableReplicas = 0;
  int32_t updatedReplicas = 0;
  std::string ready;  // "ready/desired", for the READY printer column
  // The clusters it is scheduled to, by name, comma-separated ("member1,member2"), for the
  // CLUSTERS printer column (a column of `.status.clusters[*].name` shows only the first).
  std::string clusterNames;
  std::vector<Condition> conditions;  // Propagated, Available
  int64_t observedGeneration = 0;
};

struct FederatedDeployment {
  std::string apiVersion = kGroupVersion;
  std::string kind = "FederatedDeployment";
  ObjectMeta metadata;
  FederatedDeploymentSpec spec;
  FederatedDeploymentStatus status;
};

// ---- FederatedObject (fo) / ClusterFederatedObject (cfo) ----
// The federated form of any kind but the Deployment (docs/operator.md, "Any kind").
struct FederatedObjectSpec {
  // The source object as members receive it: apiVersion, kind, metadata (name, namespace,
  // labels, annotations) and the rest of the object, without status or server-set fields.
  boost::json::object template_;
  std::vector<ClusterOverride> overrides;
};

struct ClusterObjectStatus {
  std::string name;
  std::string propagation;  // OK | PendingCreate | ... | Conflict
  std::string health;       // Healthy | Progressing | Unhealthy | Unknown
  std::string message;
  // The OverridePolicies and ClusterOverridePolicies whose rules changed the copy on this cluster
  // ("cop/NAME", "op/NAMESPACE/NAME", in the order they applied).
  std::vector<std::string> appliedOverrides;
  // Overriders of those policies that do not apply to this object ("cop/registry rule 0: image:
  // ConfigMap has no pod template").
  std::vector<std::string> skippedOverrides;
};

struct FederatedObjectStatus {
  std::vector<ClusterObjectStatus> clusters;  // sorted by name
  std::string healthy;                // "healthy/targeted" clusters, for the HEALTHY printer column
  std::string clusterNames;           // "member1,member2", for the CLUSTERS printer column
  // The fleet-wide object's own progress as its kind's kubectl columns give it (READY 5/5 of a
  // StatefulSet, COMPLETIONS 10/10 of a Job), for the PROGRESS printer column; empty for a kind
  // without one (interpreter::Interpreter::progress).
  std::string progress;
  std::vector<Condition> conditions;  // Propagated, Healthy
  int64_t observedGeneration = 0;
};

struct FederatedObject {
  std::string apiVersion = kGroupVersion;
  std::string kind = "FederatedObject";
  ObjectMeta metadata;
  FederatedObjectSpec spec;
  FederatedObjectStatus status;
};

// The same for a cluster-scoped source (a ClusterRole, a CRD, a Namespace).
struct ClusterFederatedObject {
  std::string apiVersion = kGroupVersion;
  std::string kind = "ClusterFederatedObject";
  ObjectMeta metadata;
  FederatedObjectSpec spec;
  FederatedObjectStatus status;
};

// ---- ResourceBinding (rb) ----
struct ObjectReferenceWithUID {
  std::string apiVersion;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
};

struct ReplicaRequirements {
  ResourceList resourceRequest;  // per replica
  std::map<std::string, std::string> nodeSelector;
  std::vector<Toleration> tolerations;
};

struct PolicyReference {
  std::string kind;  // PropagationPolicy | ClusterPropagationPolicy
  std::string name;
  std::string namespace_;
  int64_t generation = 0;
};

struct TargetCluster {
  std::string name;
  int32_t replicas = 0;
  bool operator==(const TargetCluster&) const = default;
};

// A leader whose follower this binding's object is (docs/design.md §12): the follower goes to
// the leader's clusters. Written by the binding controller.
struct BindingRequirement {
  std::string namespace_;
  std::string name;  // the leader's binding
  std::vector<std::string> clusters;
  bool operator==(const BindingRequirement&) const = default;
};

struct ResourceBindingSpec {
  ObjectReferenceWithUID resource;
  int32_t replicas = 0;
  ReplicaRequirements replicaRequirements;
  PolicyReference policy;
  Placement placement;
  int32_t priority = 0;
  std::vector<TargetCluster> clusters;  // the scheduling result; written by the scheduler only
  std::string conflictResolution;       // the policy's: Abort (empty) | Adopt
  std::string dependencies;             // the policy's: Follow (empty) | Ignore
  // The leaders this object follows; its member copies go to spec.clusters and to every
  // requirement's clusters (a follower no policy selects has no spec.clusters of its own).
  std::vector<BindingRequirement> requiredBy;
};

struct AggregatedStatusItem {
  std::string clusterName;
  bool applied = false;
  // Written by the sync controller: OK | PendingCreate | CreationFailed | UpdateFailed |
  // DeletionFailed | ClusterNotReady, and why (the status controller copies both into the
  // FederatedDeployment's per-cluster status).
  std::string propagation;
  std::string message;
  std::string health;  // Healthy | Unhealthy | Unknown (a CRD follower: Progressing too)
  int32_t replicas = 0;
  int32_t readyReplicas = 0;
};

// Written by the automigration controller (docs/design.md §5.7, §5.10): per cluster short of its
// desired count, the replicas it can run. An estimate stays in force after the pending pods it came
// from are gone, until the cluster's available replicas for this workload exceed availableReplicas
// (what they were when the estimate was made) or capacityTTL has passed since estimatedAt.
struct AutoMigrationStatus {
  std::map<std::string, int64_t> estimatedCapacity;
  std::map<std::string, int64_t> scheduledReplicas;  // pods of the newest ReplicaSet scheduled
  std::string updatedAt;
  std::map<std::string, std::string> estimatedAt;    // RFC 3339, per estimate
  std::map<std::string, int64_t> availableReplicas;  // the cluster's, when estimated
  bool operator==(const AutoMigrationStatus&) const = default;
};

struct ClusterDiagnosis {
  std::string clusterName;
  std::string plugin;
  std::string reason;
};

struct ResourceBindingStatus {
  std::vector<Condition> conditions;  // Scheduled, FullyApplied
  int64_t schedulerObservedGeneration = 0;
  std::string lastScheduledTime;
  std::string lastScheduleType;  // FirstSchedule | ReconcileSchedule | ScaleSchedule | ...
  std::string placementSummary;  // "member1=1 member2=3 member3=2"
  std::vector<AggregatedStatusItem> aggregatedStatus;
  std::optional<AutoMigrationStatus> autoMigration;
  std::vector<ClusterDiagnosis> diagnosis;
};

struct ResourceBinding {
  std::string apiVersion = kGroupVersion;
  std::string kind = "ResourceBinding";
  ObjectMeta metadata;
  ResourceBindingSpec spec;
  ResourceBindingStatus status;
};

// ---- ClusterResourceBinding (crb) ----
// A ResourceBinding for a cluster-scoped federated object: same spec and status.
struct ClusterResourceBinding {
  std::string apiVersion = kGroupVersion;
  std::string kind = "ClusterResourceBinding";
  ObjectMeta metadata;
  ResourceBindingSpec spec;
  ResourceBindingStatus status;
};

// ---- SchedulingProfile (sp) ----
struct PluginRef {
  std::string name;
  std::optional<int32_t> weight;  // score plugins only; default 1, 0 rejected
};
struct PluginSet {
  std::vector<PluginRef> enabled;
  std::vector<PluginRef> disabled;  // name "*" disables every default plugin
};
struct Plugins {
  PluginSet filter;
  PluginSet score;
  PluginSet select;
  PluginSet replicas;
};
struct PluginConfig {
  std::string name;
  boost::json::value args;
};

struct SchedulingProfileSpec {
  Plugins plugins;
  std::vector<PluginConfig> pluginConfig;
};

struct SchedulingProfileStatus {
  std::vector<Condition> conditions;
};

struct SchedulingProfile {
  std::string apiVersion = kGroupVersion;
  std::string kind = "SchedulingProfile";
  ObjectMeta metadata;
  SchedulingProfileSpec spec;
  SchedulingProfileStatus status;
};

// ---- SchedulerExtender ----
struct ExtenderTLSConfig {
  std::string caBundle;  // base64 PEM
  bool insecureSkipVerify = false;
  std::string serverName;
};

struct SchedulerExtenderSpec {
  std::string urlPrefix;
  std::string filterVerb;
  std::string prioritizeVerb;
  std::optional<int64_t> weight;  // >= 1, default 1
  std::string httpTimeout;        // duration, default 5s
  bool ignorable = false;
  bool nodeCacheCapable = false;  // send cluster names only
  std::optional<ExtenderTLSConfig> tls;
};

struct SchedulerExtenderStatus {
  std::vector<Condition> conditions;
};

struct SchedulerExtender {
  std::string apiVersion = kGroupVersion;
  std::string kind = "SchedulerExtender";
  ObjectMeta metadata;
  SchedulerExtenderSpec spec;
  SchedulerExtenderStatus status;
};

}  // namespace flotilla::api
