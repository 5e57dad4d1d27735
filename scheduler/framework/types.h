// The scheduling framework's data: what is scheduled, per-cycle state, plugin verdicts, results.
#pragma once

#include <any>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "api/flotilla_types.h"
#include "scheduler/framework/snapshot.h"
#include "scheduler/planner/replica_planner.h"

namespace flotilla::scheduler {

// One ResourceBinding as the scheduler sees it.
struct SchedulingUnit {
  std::string key;         // "namespace/name" of the workload (ties in the planner depend on it)
  std::string apiVersion;  // of the workload kind the members must serve (apps/v1)
  std::string kind;        // Deployment
  int32_t replicas = 0;
  api::ResourceList resourceRequest;  // per replica
  api::Placement placement;           // defaulted
  int32_t priority = 0;
  ReplicaMap currentReplicas;    // the previous result still in force
  ReplicaMap estimatedCapacity;  // from auto-migration
  bool keepUnschedulableReplicas = false;
  // Plan the weighted desired distribution instead of moving as little as possible from the
  // current one (ScheduleDecision::rebalance: an estimate lifted, a failback).
  bool rebalance = false;

  // Divided replicas whose clusters' room is a limit: Aggregated division, or Weighted division
  // with dynamic weights (no `weights`). Static weights are intent; auto-migration handles
  // capacity.
  bool dividesByCapacity() const {
    if (!placement.replicaScheduling) return true;  // defaulted: Divided, Weighted, dynamic
    const api::ReplicaScheduling& rs = *placement.replicaScheduling;
    if (!rs.type.empty() && rs.type != "Divided") return false;
    return rs.division == "Aggregated" || rs.weights.empty();
  }

  bool placedOn(const std::string& cluster) const {
    auto it = currentReplicas.find(cluster);
    return it != currentReplicas.end() && it->second > 0;
  }
};

// Data plugins of one scheduling cycle share (computed once, read by several plugins).
class CycleState {
 public:
  // Replicas the unit runs on each snapshot cluster (by ClusterInfo::index) and its per-replica
  // requests in milli-units: filled by the framework before any plugin runs.
  std::vector<int64_t> current;
  RequestView requests;
  bool dividesByCapacity = false;  // SchedulingUnit::dividesByCapacity(), computed once

  bool placed(const ClusterInfo& cluster) const { return current[cluster.index] > 0; }

  // Plugin-private data by type. Few slots per cycle: a linear search beats hashing.
  template <class T>
  T* get() {
    for (auto& [type, value] : slots_) {
      if (type == std::type_index(typeid(T))) return std::any_cast<T>(&value);
    }
    return nullptr;
  }
  template <class T>
  T& put(T value) {
    if (T* existing = get<T>()) return *existing = std::move(value);
    slots_.emplace_back(std::type_index(typeid(T)), std::move(value));
    return *std::any_cast<T>(&slots_.back().second);
  }

 private:
  std::vector<std::pair<std::type_index, std::any>> slots_;
};

// Written by the Divided replicas plugin: how many replicas each participating cluster may hold
// (maxReplicas, estimated capacity). Clusters absent take no replicas.
struct ReplicaLimits {
  std::map<std::string, int64_t> room;
};

// Replicas a cluster can hold in all for the unit (framework/snapshot.h replicaRoom: the unit's own
// replicas there added back; unknown capacity holds only those), tightened by auto-migration's
// estimate. Computed on demand: only capacity-aware divisions need it.
int64_t unitRoom(const CycleState& state, const SchedulingUnit& unit, const ClusterInfo& cluster);

// A plugin's verdict. Success carries nothing; the others carry a reason a user can read.
struct Status {
  enum class Code { kSuccess, kUnschedulable, kError };
  Code code = Code::kSuccess;
  std::string reason;

  static Status success() { return {}; }
  static Status unschedulable(std::string reason) {
    return {Code::kUnschedulable, std::move(reason)};
  }
  static Status error(std::string reason) { return {Code::kError, std::move(reason)}; }
  bool ok() const { return code == Code::kSuccess; }
};

// A cluster that passed filtering, with its weighted total and per-plugin scores.
struct ScoredCluster {
  const api::FederatedCluster* cluster = nullptr;
  const ClusterInfo* info = nullptr;
  int64_t score = 0;
  std::vector<std::pair<std::string_view, int64_t>> pluginScores;  // plugin -> weighted score
  const std::string& name() const { return cluster->metadata.name; }
};

// Why a cluster was filtered out: the first failing plugin and its reason.
struct FilterVerdict {
  std::string cluster;
  std::string plugin;  // empty: feasible
  std::string reason;
};

}  // namespace flotilla::scheduler
