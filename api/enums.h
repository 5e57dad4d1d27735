// Allowed values of every enumerated string field of flotilla.io/v1alpha1. Validation, defaulting
// and the CRD generator all read these lists, so the webhook, `flotillactl validate` and the CRD
// schema cannot disagree.
#pragma once

#include <array>
#include <string_view>

namespace flotilla::api::enums {

inline constexpr std::array<std::string_view, 4> kSpreadByField = {"cluster", "region", "zone",
                                                                   "provider"};
// Cluster fields a fieldSelector may test.
inline constexpr std::array<std::string_view, 3> kFieldSelectorKey = {"provider", "region", "zone"};
inline constexpr std::array<std::string_view, 2> kFieldSelectorOperator = {"In", "NotIn"};
// PropagationPolicy spec.conflictResolution (docs/design.md §11): a member object of the same
// name that Flotilla does not manage is left alone (Abort) or taken over (Adopt).
inline constexpr std::array<std::string_view, 2> kConflictResolution = {"Abort", "Adopt"};
// PropagationPolicy spec.dependencies (docs/design.md §12): what a selected workload uses follows
// it (Follow, the default) or not (Ignore).
inline constexpr std::array<std::string_view, 2> kDependencies = {"Follow", "Ignore"};
inline constexpr std::array<std::string_view, 2> kWhenUnsatisfiable = {"DoNotSchedule",
                                                                       "ScheduleAnyway"};
inline constexpr std::array<std::string_view, 2> kReplicaSchedulingType = {"Duplicated", "Divided"};
inline constexpr std::array<std::string_view, 2> kReplicaDivision = {"Weighted", "Aggregated"};
inline constexpr std::array<std::string_view, 1> kDynamicWeight = {"AvailableReplicas"};
inline constexpr std::array<std::string_view, 2> kFailback = {"Never", "Rebalance"};
inline constexpr std::array<std::string_view, 3> kTaintEffect = {"NoSchedule", "PreferNoSchedule",
                                                                 "NoExecute"};
inline constexpr std::array<std::string_view, 2> kTolerationOperator = {"Equal", "Exists"};
inline constexpr std::array<std::string_view, 4> kLabelSelectorOperator = {"In", "NotIn", "Exists",
                                                                           "DoesNotExist"};
// OverridePolicy overriders (docs/design.md §14).
inline constexpr std::array<std::string_view, 4> kImageComponent = {"Registry", "Repository", "Tag",
                                                                    "Digest"};
inline constexpr std::array<std::string_view, 3> kOverrideOperator = {"addIfAbsent", "overwrite",
                                                                      "delete"};
inline constexpr std::array<std::string_view, 3> kListOperator = {"append", "overwrite", "delete"};
inline constexpr std::array<std::string_view, 3> kOverridePatchOp = {"add", "remove", "replace"};
inline constexpr std::array<std::string_view, 6> kJsonPatchOp = {"add",  "remove", "replace",
                                                                 "move", "copy",   "test"};
// Conflict: an object Flotilla does not manage is in the way on the member (docs/operator.md).
inline constexpr std::array<std::string_view, 7> kPropagation = {
    "OK",           "PendingCreate",  "CreationFailed",
    "UpdateFailed", "DeletionFailed", "ClusterNotReady",
    "Conflict"};
inline constexpr std::array<std::string_view, 5> kScheduleType = {
    "FirstSchedule", "ReconcileSchedule", "ScaleSchedule", "FailoverSchedule", "MigrationSchedule"};
inline constexpr std::array<std::string_view, 2> kPolicyKind = {"PropagationPolicy",
                                                                "ClusterPropagationPolicy"};
inline constexpr std::array<std::string_view, 4> kHealth = {"Healthy", "Progressing", "Unhealthy",
                                                            "Unknown"};
inline constexpr std::array<std::string_view, 3> kConditionStatus = {"True", "False", "Unknown"};

// Scheduler plugins by extension point (docs/design.md §4.3). The scheduler's registry registers
// exactly these names; SchedulingProfile validation rejects anything else.
inline constexpr std::array<std::string_view, 6> kFilterPlugins = {
    "ClusterReady",  "TaintToleration",  "ClusterAffinity",
    "APIEnablement", "SpreadConstraint", "ResourcesFit"};
inline constexpr std::array<std::string_view, 6> kScorePlugins = {
    "ClusterAffinity",    "TaintToleration", "LeastAllocated",
    "BalancedAllocation", "Locality",        "TopologySpread"};
inline constexpr std::array<std::string_view, 2> kSelectPlugins = {"SpreadConstraint",
                                                                   "MaxClusters"};
inline constexpr std::array<std::string_view, 3> kReplicasPlugins = {"Duplicated", "Divided",
                                                                     "TopologySpread"};

template <size_t N>
constexpr bool contains(const std::array<std::string_view, N>& values, std::string_view v) {
  for (auto x : values) {
    if (x == v) return true;
  }
  return false;
}

}  // namespace flotilla::api::enums
