// Member lists of every API struct for the generic codec (Boost.Describe). Internal to api/:
// include only from codec_*.cc and the CRD generator. `unknownFields` is never listed; the codec
// finds it by name. A test (codec_test.cc) catches a member missing from these lists.
#pragma once

#include <boost/describe.hpp>

#include "api/flotilla_types.h"
#include "api/override_types.h"
#include "api/system_types.h"

namespace flotilla::api {

// ---- meta ----
BOOST_DESCRIBE_STRUCT(LabelSelectorRequirement, (), (key, operator_, values))
BOOST_DESCRIBE_STRUCT(LabelSelector, (), (matchLabels, matchExpressions))
BOOST_DESCRIBE_STRUCT(OwnerReference, (),
                      (apiVersion, kind, name, uid, controller, blockOwnerDeletion))
BOOST_DESCRIBE_STRUCT(ObjectMeta, (),
                      (name, generateName, namespace_, uid, resourceVersion, generation,
                       creationTimestamp, deletionTimestamp, deletionGracePeriodSeconds, labels,
                       annotations, ownerReferences, finalizers))
BOOST_DESCRIBE_STRUCT(ListMeta, (), (resourceVersion, continue_, remainingItemCount))
BOOST_DESCRIBE_STRUCT(Condition, (),
                      (type, status, observedGeneration, lastTransitionTime, reason, message))
BOOST_DESCRIBE_STRUCT(StatusCause, (), (reason, message, field))
BOOST_DESCRIBE_STRUCT(StatusDetails, (), (name, group, kind, uid, causes, retryAfterSeconds))
BOOST_DESCRIBE_STRUCT(Status, (),
                      (apiVersion, kind, metadata, status, message, reason, details, code))
BOOST_DESCRIBE_STRUCT(Taint, (), (key, value, effect, timeAdded))
BOOST_DESCRIBE_STRUCT(Toleration, (), (key, operator_, value, effect, tolerationSeconds))

// ---- core/v1, apps/v1 ----
BOOST_DESCRIBE_STRUCT(ResourceRequirements, (), (limits, requests))
BOOST_DESCRIBE_STRUCT(Container, (), (name, image, resources))
BOOST_DESCRIBE_STRUCT(PodSpec, (),
                      (initContainers, containers, nodeSelector, nodeName, tolerations,
                       schedulerName, priority))
BOOST_DESCRIBE_STRUCT(PodCondition, (),
                      (type, status, lastProbeTime, lastTransitionTime, reason, message))
BOOST_DESCRIBE_STRUCT(PodStatus, (), (phase, conditions, reason, message, startTime))
BOOST_DESCRIBE_STRUCT(Pod, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(PodTemplateSpec, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(NodeCondition, (),
                      (type, status, lastHeartbeatTime, lastTransitionTime, reason, message))
BOOST_DESCRIBE_STRUCT(NodeSpec, (), (unschedulable, taints))
BOOST_DESCRIBE_STRUCT(NodeStatus, (), (capacity, allocatable, conditions))
BOOST_DESCRIBE_STRUCT(Node, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(Secret, (), (apiVersion, kind, metadata, type, data, stringData, immutable))
BOOST_DESCRIBE_STRUCT(Namespace, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(ObjectReference, (),
                      (apiVersion, kind, namespace_, name, uid, resourceVersion, fieldPath))
BOOST_DESCRIBE_STRUCT(EventSource, (), (component, host))
BOOST_DESCRIBE_STRUCT(Event, (),
                      (apiVersion, kind, metadata, involvedObject, reason, message, source,
                       firstTimestamp, lastTimestamp, count, type, eventTime, reportingComponent,
                       reportingInstance, action))
BOOST_DESCRIBE_STRUCT(DeploymentSpec, (), (replicas, selector, template_))
BOOST_DESCRIBE_STRUCT(DeploymentCondition, (),
                      (type, status, lastUpdateTime, lastTransitionTime, reason, message))
BOOST_DESCRIBE_STRUCT(DeploymentStatus, (),
                      (observedGeneration, replicas, updatedReplicas, readyReplicas,
                       availableReplicas, unavailableReplicas, conditions))
BOOST_DESCRIBE_STRUCT(Deployment, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(ReplicaSetSpec, (), (replicas, selector, template_))
BOOST_DESCRIBE_STRUCT(ReplicaSetStatus, (),
                      (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas,
                       observedGeneration, conditions))
BOOST_DESCRIBE_STRUCT(ReplicaSet, (), (apiVersion, kind, metadata, spec, status))

// ---- coordination, admission, apiextensions ----
BOOST_DESCRIBE_STRUCT(LeaseSpec, (),
                      (holderIdentity, leaseDurationSeconds, acquireTime, renewTime,
                       leaseTransitions))
BOOST_DESCRIBE_STRUCT(Lease, (), (apiVersion, kind, metadata, spec))
BOOST_DESCRIBE_STRUCT(GroupVersionKind, (), (group, version, kind))
BOOST_DESCRIBE_STRUCT(GroupVersionResource, (), (group, version, resource))
BOOST_DESCRIBE_STRUCT(UserInfo, (), (username, uid, groups))
BOOST_DESCRIBE_STRUCT(AdmissionRequest, (),
                      (uid, kind, resource, subResource, requestKind, requestResource, name,
                       namespace_, operation, userInfo, object, oldObject, dryRun, options))
BOOST_DESCRIBE_STRUCT(AdmissionResponse, (),
                      (uid, allowed, status, patchType, patch, warnings, auditAnnotations))
BOOST_DESCRIBE_STRUCT(AdmissionReview, (), (apiVersion, kind, request, response))
BOOST_DESCRIBE_STRUCT(CustomResourceDefinitionNames, (),
                      (plural, singular, kind, listKind, shortNames, categories))
BOOST_DESCRIBE_STRUCT(CustomResourceColumnDefinition, (),
                      (name, type, format, description, priority, jsonPath))
BOOST_DESCRIBE_STRUCT(CustomResourceValidation, (), (openAPIV3Schema))
BOOST_DESCRIBE_STRUCT(CustomResourceSubresources, (), (status, scale))
BOOST_DESCRIBE_STRUCT(CustomResourceDefinitionVersion, (),
                      (name, served, storage, deprecated, schema, subresources,
                       additionalPrinterColumns))
BOOST_DESCRIBE_STRUCT(CustomResourceDefinitionSpec, (), (group, names, scope, versions))
BOOST_DESCRIBE_STRUCT(CustomResourceDefinitionStatus, (),
                      (conditions, acceptedNames, storedVersions))
BOOST_DESCRIBE_STRUCT(CustomResourceDefinition, (), (apiVersion, kind, metadata, spec, status))

// ---- flotilla.io/v1alpha1 ----
BOOST_DESCRIBE_STRUCT(LocalSecretReference, (), (namespace_, name))
BOOST_DESCRIBE_STRUCT(FederatedClusterSpec, (),
                      (apiEndpoint, secretRef, insecureSkipTLSVerify, provider, region, zone,
                       taints))
BOOST_DESCRIBE_STRUCT(APIResource, (), (name, kind))
BOOST_DESCRIBE_STRUCT(APIEnablement, (), (groupVersion, resources))
BOOST_DESCRIBE_STRUCT(ClusterResources, (), (allocatable, allocated, allocating, available))
BOOST_DESCRIBE_STRUCT(NodeSummary, (), (total, ready))
BOOST_DESCRIBE_STRUCT(FederatedClusterStatus, (),
                      (conditions, kubernetesVersion, apiEnablements, resources, nodeSummary,
                       lastProbeTime))
BOOST_DESCRIBE_STRUCT(FederatedCluster, (), (apiVersion, kind, metadata, spec, status))

BOOST_DESCRIBE_STRUCT(ResourceSelector, (), (apiVersion, kind, namespace_, name, labelSelector))
BOOST_DESCRIBE_STRUCT(FieldSelectorRequirement, (), (key, operator_, values))
BOOST_DESCRIBE_STRUCT(FieldSelector, (), (matchExpressions))
BOOST_DESCRIBE_STRUCT(ClusterAffinity, (), (clusterNames, exclude, labelSelector, fieldSelector))
BOOST_DESCRIBE_STRUCT(SpreadConstraint, (), (spreadByField, spreadByLabel, minGroups, maxGroups))
BOOST_DESCRIBE_STRUCT(TopologySpreadConstraint, (), (topologyKey, maxSkew, whenUnsatisfiable))
BOOST_DESCRIBE_STRUCT(ClusterTarget, (), (clusterNames, labelSelector))
BOOST_DESCRIBE_STRUCT(ClusterPreference, (), (targetCluster, weight, minReplicas, maxReplicas))
BOOST_DESCRIBE_STRUCT(ReplicaScheduling, (),
                      (type, division, weights, dynamicWeight, avoidDisruption))
BOOST_DESCRIBE_STRUCT(Placement, (),
                      (clusterAffinity, clusterTolerations, spreadConstraints,
                       topologySpreadConstraints, maxClusters, replicaScheduling))
BOOST_DESCRIBE_STRUCT(AutoMigration, (),
                      (podUnschedulableFor, keepUnschedulableReplicas, capacityTTL))
BOOST_DESCRIBE_STRUCT(Failover, (), (clusterNotReadyFor, failback))
BOOST_DESCRIBE_STRUCT(PropagationPolicySpec, (),
                      (resourceSelectors, priority, schedulingProfile, placement, autoMigration,
                       failover, conflictResolution, dependencies))
BOOST_DESCRIBE_STRUCT(PropagationPolicyStatus, (), (conditions, observedGeneration))
BOOST_DESCRIBE_STRUCT(PropagationPolicy, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(ClusterPropagationPolicy, (), (apiVersion, kind, metadata, spec, status))

BOOST_DESCRIBE_STRUCT(JsonPatchOperation, (), (op, path, from, value))
BOOST_DESCRIBE_STRUCT(ClusterOverride, (), (clusterName, patches))
BOOST_DESCRIBE_STRUCT(ImageOverrider, (), (containerNames, component, operator_, value))
BOOST_DESCRIBE_STRUCT(CommandArgsOverrider, (), (containerName, operator_, value))
BOOST_DESCRIBE_STRUCT(EnvOverrider, (), (containerName, operator_, value))
BOOST_DESCRIBE_STRUCT(MetadataOverrider, (), (operator_, value))
BOOST_DESCRIBE_STRUCT(Overriders, (),
                      (image, command, args, env, labels, annotations, jsonPatch))
BOOST_DESCRIBE_STRUCT(OverrideRule, (), (targetCluster, overriders))
BOOST_DESCRIBE_STRUCT(OverridePolicySpec, (), (resourceSelectors, rules))
BOOST_DESCRIBE_STRUCT(OverridePolicyStatus, (), (conditions, observedGeneration))
BOOST_DESCRIBE_STRUCT(OverridePolicy, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(ClusterOverridePolicy, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(DeploymentTemplate, (), (metadata, spec))
BOOST_DESCRIBE_STRUCT(FederatedDeploymentSpec, (), (template_, overrides))
BOOST_DESCRIBE_STRUCT(ClusterDeploymentStatus, (),
                      (name, replicas, readyReplicas, availableReplicas, updatedReplicas,
                       unavailableReplicas, observedGeneration, propagation, message, conditions,
                       appliedOverrides))
BOOST_DESCRIBE_STRUCT(FederatedDeploymentStatus, (),
                      (clusters, replicas, readyReplicas, availableReplicas, updatedReplicas, ready,
                       clusterNames, conditions, observedGeneration))
BOOST_DESCRIBE_STRUCT(FederatedDeployment, (), (apiVersion, kind, metadata, spec, status))

BOOST_DESCRIBE_STRUCT(FederatedObjectSpec, (), (template_, overrides))
BOOST_DESCRIBE_STRUCT(ClusterObjectStatus, (),
                      (name, propagation, health, message, appliedOverrides, skippedOverrides))
BOOST_DESCRIBE_STRUCT(FederatedObjectStatus, (),
                      (clusters, healthy, clusterNames, progress, conditions,
                       observedGeneration))
BOOST_DESCRIBE_STRUCT(FederatedObject, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(ClusterFederatedObject, (), (apiVersion, kind, metadata, spec, status))

BOOST_DESCRIBE_STRUCT(ObjectReferenceWithUID, (), (apiVersion, kind, namespace_, name, uid))
BOOST_DESCRIBE_STRUCT(ReplicaRequirements, (), (resourceRequest, nodeSelector, tolerations))
BOOST_DESCRIBE_STRUCT(PolicyReference, (), (kind, name, namespace_, generation))
BOOST_DESCRIBE_STRUCT(TargetCluster, (), (name, replicas))
BOOST_DESCRIBE_STRUCT(BindingRequirement, (), (namespace_, name, clusters))
BOOST_DESCRIBE_STRUCT(ResourceBindingSpec, (),
                      (resource, replicas, replicaRequirements, policy, placement, priority,
                       clusters, conflictResolution, dependencies, requiredBy))
BOOST_DESCRIBE_STRUCT(AggregatedStatusItem, (),
                      (clusterName, applied, propagation, message, health, replicas, readyReplicas))
BOOST_DESCRIBE_STRUCT(AutoMigrationStatus, (),
                      (estimatedCapacity, scheduledReplicas, updatedAt, estimatedAt,
                       availableReplicas))
BOOST_DESCRIBE_STRUCT(ClusterDiagnosis, (), (clusterName, plugin, reason))
BOOST_DESCRIBE_STRUCT(ResourceBindingStatus, (),
                      (conditions, schedulerObservedGeneration, lastScheduledTime, lastScheduleType,
                       placementSummary, aggregatedStatus, autoMigration, diagnosis))
BOOST_DESCRIBE_STRUCT(ResourceBinding, (), (apiVersion, kind, metadata, spec, status))
BOOST_DESCRIBE_STRUCT(ClusterResourceBinding, (), (apiVersion, kind, metadata, spec, status))

BOOST_DESCRIBE_STRUCT(PluginRef, (), (name, weight))
BOOST_DESCRIBE_STRUCT(PluginSet, (), (enabled, disabled))
BOOST_DESCRIBE_STRUCT(Plugins, (), (filter, score, select, replicas))
BOOST_DESCRIBE_STRUCT(PluginConfig, (), (name, args))
BOOST_DESCRIBE_STRUCT(SchedulingProfileSpec, (), (plugins, pluginConfig))
BOOST_DESCRIBE_STRUCT(SchedulingProfileStatus, (), (conditions))
BOOST_DESCRIBE_STRUCT(SchedulingProfile, (), (apiVersion, kind, metadata, spec, status))

BOOST_DESCRIBE_STRUCT(ExtenderTLSConfig, (), (caBundle, insecureSkipVerify, serverName))
BOOST_DESCRIBE_STRUCT(SchedulerExtenderSpec, (),
                      (urlPrefix, filterVerb, prioritizeVerb, weight, httpTimeout, ignorable,
                       nodeCacheCapable, tls))
BOOST_DESCRIBE_STRUCT(SchedulerExtenderStatus, (), (conditions))
BOOST_DESCRIBE_STRUCT(SchedulerExtender, (), (apiVersion, kind, metadata, spec, status))

}  // namespace flotilla::api
