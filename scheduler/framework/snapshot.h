// The fleet as the scheduler sees it: FederatedClusters plus what every cycle would otherwise
// recompute (readiness, resources as integers). Built once per change of the fleet and shared by
// every binding scheduled against it, as kube-scheduler's NodeInfo snapshot.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/flotilla_types.h"

namespace flotilla::scheduler {

// One resource of a cluster in milli-units (cpu millicores, memory milli-bytes, ...), clamped to
// [0, 2^61] (2 EB of memory, 2 trillion cores): exact for every real cluster.
struct ResourceAmount {
  std::string name;
  int64_t allocatable = 0;
  int64_t used = 0;  // allocated + allocating
  int64_t available() const { return allocatable - used; }
};

// Resources by name, few entries (cpu, memory, pods, a GPU type or two): a sorted vector searched
// linearly beats a map here.
class ResourceView {
 public:
  ResourceView() = default;
  explicit ResourceView(const api::ClusterResources& resources);
  const ResourceAmount* find(std::string_view name) const;
  const std::vector<ResourceAmount>& amounts() const { return amounts_; }

 private:
  std::vector<ResourceAmount> amounts_;
};

// A workload's per-replica requests in the same milli-units (zero requests dropped).
using RequestView = std::vector<std::pair<std::string, int64_t>>;
RequestView requestView(const api::ResourceList& perReplica);

// min over requests of available / request, bounded by available pods; 0 when a requested resource
// is missing or exhausted, and 0 when nothing bounds it (no resources reported, or no requests and
// no allocatable pods): capacity Flotilla does not know never counts as unlimited
// (docs/design.md §4.5).
int64_t availableReplicas(const ResourceView& resources, const RequestView& requests);

// Replicas of one workload a cluster can hold in all, `own` of which it already runs or has
// pending there. Their requests are part of allocated/allocating, so they are added back before
// dividing: a workload's own pods never count against its own room (Karmada's estimator adds back
// what a binding already has). A cluster whose capacity is unknown holds what it has (`own`).
int64_t replicaRoom(const ResourceView& resources, const RequestView& requests, int64_t own);

// Whether `resources` bound the workload at all: something is reported, and either a requested
// resource or allocatable pods limit it.
bool capacityKnown(const ResourceView& resources, const RequestView& requests);

int64_t toMilli(const api::Quantity& q);

// The topology fields spread and topology-spread constraints group by, interned per snapshot.
enum class TopologyField { kProvider = 0, kRegion = 1, kZone = 2 };
inline constexpr size_t kTopologyFields = 3;
// "provider"/"region"/"zone" -> the field; nullopt for label keys and "cluster".
std::optional<TopologyField> topologyField(std::string_view key);

struct ClusterInfo {
  const api::FederatedCluster* cluster = nullptr;
  // Interned provider/region/zone (-1 when empty), indexed by TopologyField.
  int fieldIds[kTopologyFields] = {-1, -1, -1};
  size_t index = 0;     // position in the snapshot
  size_t nameRank = 0;  // position in name order: ties between equal scores break on it
  bool ready = false;
  ResourceView resources;

  const std::string& name() const { return cluster->metadata.name; }
};

class ClusterSnapshot {
 public:
  explicit ClusterSnapshot(std::vector<api::FederatedCluster> clusters);
  ClusterSnapshot(const ClusterSnapshot&) = delete;
  ClusterSnapshot& operator=(const ClusterSnapshot&) = delete;
  ClusterSnapshot(ClusterSnapshot&&) = default;  // vectors move their buffers: pointers stay valid

  const std::vector<ClusterInfo>& clusters() const { return infos_; }
  size_t size() const { return infos_.size(); }
  // Distinct values of a topology field in this snapshot (ids are 0..count-1).
  size_t fieldValueCount(TopologyField f) const {
    return fieldValues_[static_cast<size_t>(f)].size();
  }
  const std::string& fieldValue(TopologyField f, int id) const {
    return fieldValues_[static_cast<size_t>(f)][static_cast<size_t>(id)];
  }

 private:
  std::vector<api::FederatedCluster> objects_;
  std::vector<ClusterInfo> infos_;
  std::vector<std::string> fieldValues_[kTopologyFields];
};

}  // namespace flotilla::scheduler
