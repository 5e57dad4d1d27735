#include "scheduler/framework/snapshot.h"

#include <algorithm>
#include <climits>
#include <unordered_map>

#include "scheduler/framework/cluster_fields.h"

namespace flotilla::scheduler {

// Clamped to [0, 2^61]: a negative or absurd quantity in a cluster's status (or a request) is
// malformed input and must not overflow allocatable - used or used + request.
int64_t toMilli(const api::Quantity& q) {
  constexpr __int128 kLimit = __int128{1} << 61;
  const __int128 milli = q.nanoValue() / 1'000'000 + (q.nanoValue() % 1'000'000 > 0 ? 1 : 0);
  return static_cast<int64_t>(std::clamp<__int128>(milli, 0, kLimit));
}

ResourceView::ResourceView(const api::ClusterResources& r) {
  for (const auto& [name, q] : r.allocatable) {
    ResourceAmount amount{name, toMilli(q), 0};
    api::Quantity used;
    if (auto it = r.allocated.find(name); it != r.allocated.end()) used += it->second;
    if (auto it = r.allocating.find(name); it != r.allocating.end()) used += it->second;
    amount.used = toMilli(used);
    amounts_.push_back(std::move(amount));
  }
}

const ResourceAmount* ResourceView::find(std::string_view name) const {
  for (const auto& a : amounts_) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

RequestView requestView(const api::ResourceList& perReplica) {
  RequestView out;
  for (const auto& [name, q] : perReplica) {
    if (q.sign() > 0) out.emplace_back(name, toMilli(q));
  }
  return out;
}

bool capacityKnown(const ResourceView& resources, const RequestView& requests) {
  if (resources.amounts().empty()) return false;
  return !requests.empty() || resources.find("pods") != nullptr;
}

int64_t replicaRoom(const ResourceView& resources, const RequestView& requests, int64_t own) {
  own = std::max<int64_t>(own, 0);
  if (!capacityKnown(resources, requests)) return own;
  // __int128: own x request can exceed 64 bits for absurd requests (clamped to 2^61).
  auto fit = [&](int64_t available, int64_t need) {
    const __int128 free = __int128{available} + __int128{own} * need;
    return free <= 0 ? int64_t{0}
                     : static_cast<int64_t>(std::min<__int128>(free / need, INT32_MAX));
  };
  int64_t maximum = INT32_MAX;
  bool podsRequested = false;
  for (const auto& [name, need] : requests) {
    podsRequested = podsRequested || name == "pods";
    const ResourceAmount* have = resources.find(name);  // missing: none available
    maximum = std::min(maximum, fit(have ? have->available() : 0, need));
  }
  // Every replica is a pod, whether or not the workload requests "pods".
  if (!podsRequested) {
    if (const ResourceAmount* pods = resources.find("pods")) {
      maximum = std::min(maximum, fit(pods->available(), 1000));
    }
  }
  return maximum;
}

int64_t availableReplicas(const ResourceView& resources, const RequestView& requests) {
  return replicaRoom(resources, requests, 0);
}

std::optional<TopologyField> topologyField(std::string_view key) {
  if (key == "provider") return TopologyField::kProvider;
  if (key == "region") return TopologyField::kRegion;
  if (key == "zone") return TopologyField::kZone;
  return std::nullopt;
}

ClusterSnapshot::ClusterSnapshot(std::vector<api::FederatedCluster> clusters)
    : objects_(std::move(clusters)) {
  infos_.reserve(objects_.size());
  std::unordered_map<std::string, int> ids[kTopologyFields];
  for (size_t i = 0; i < objects_.size(); ++i) {
    ClusterInfo info;
    info.cluster = &objects_[i];
    info.index = i;
    info.ready = isClusterReady(objects_[i]);
    info.resources = ResourceView(objects_[i].status.resources);
    const std::string* fields[kTopologyFields] = {&objects_[i].spec.provider,
                                                  &objects_[i].spec.region, &objects_[i].spec.zone};
    for (size_t f = 0; f < kTopologyFields; ++f) {
      if (fields[f]->empty()) continue;
      auto [it, inserted] =
          ids[f].try_emplace(*fields[f], static_cast<int>(fieldValues_[f].size()));
      if (inserted) fieldValues_[f].push_back(*fields[f]);
      info.fieldIds[f] = it->second;
    }
    infos_.push_back(std::move(info));
  }
  std::vector<size_t> byName(infos_.size());
  for (size_t i = 0; i < byName.size(); ++i) byName[i] = i;
  std::sort(byName.begin(), byName.end(),
            [&](size_t a, size_t b) { return infos_[a].name() < infos_[b].name(); });
  for (size_t rank = 0; rank < byName.size(); ++rank) infos_[byName[rank]].nameRank = rank;
}

}  // namespace flotilla::scheduler
