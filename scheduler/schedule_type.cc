#include "scheduler/schedule_type.h"

#include <algorithm>
#include <boost/json.hpp>

#include "api/conditions.h"
#include "api/json_codec.h"
#include "api/validation.h"
#include "scheduler/framework/cluster_fields.h"
#include "scheduler/plugins/cluster_affinity/cluster_affinity.h"

namespace flotilla::scheduler {
namespace {

// 64-bit FNV-1a, hex: a compact, stable fingerprint of what a result was computed from.
std::string fingerprint(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  for (int i = 15; i >= 0; --i) {
    buf[i] = "0123456789abcdef"[h & 0xf];
    h >>= 4;
  }
  buf[16] = '\0';
  return buf;
}

}  // namespace

const char* scheduleTypeName(ScheduleType type) {
  switch (type) {
    case ScheduleType::kNone:
      return "";
    case ScheduleType::kFirst:
      return "FirstSchedule";
    case ScheduleType::kReconcile:
      return "ReconcileSchedule";
    case ScheduleType::kScale:
      return "ScaleSchedule";
    case ScheduleType::kFailover:
      return "FailoverSchedule";
    case ScheduleType::kMigration:
      return "MigrationSchedule";
  }
  return "";
}

ScheduleRecord recordFor(const api::ResourceBinding& binding) {
  api::Placement placement = binding.spec.placement;
  api::setDefaults(placement);
  const auto& policy = binding.spec.policy;
  ScheduleRecord record;
  record.replicas = binding.spec.replicas;
  // The policy's generation covers its fields outside placement (profile, auto-migration).
  record.placementHash = fingerprint(policy.kind + "/" + policy.namespace_ + "/" + policy.name +
                                     "@" + std::to_string(policy.generation) + "|" +
                                     boost::json::serialize(api::encode(placement)));
  if (binding.status.autoMigration)
    record.estimates = binding.status.autoMigration->estimatedCapacity;
  return record;
}

std::string encodeRecord(const ScheduleRecord& r) {
  boost::json::object estimates;
  for (const auto& [cluster, n] : r.estimates) estimates[cluster] = n;
  boost::json::object o{{"replicas", r.replicas},
                        {"placement", r.placementHash},
                        {"estimates", std::move(estimates)}};
  if (!r.failedOver.empty()) {
    boost::json::array failed;
    for (const auto& c : r.failedOver) failed.emplace_back(c);
    o["failedOver"] = std::move(failed);
  }
  if (!r.type.empty()) o["type"] = r.type;
  return boost::json::serialize(o);
}

std::optional<ScheduleRecord> decodeRecord(const std::string& text) {
  auto v = api::parseJson(text);
  if (!v || !v->is_object()) return std::nullopt;
  const auto& o = v->as_object();
  const auto* replicas = o.if_contains("replicas");
  const auto* placement = o.if_contains("placement");
  const auto* estimates = o.if_contains("estimates");
  if (!replicas || !replicas->is_int64() || !placement || !placement->is_string() || !estimates ||
      !estimates->is_object()) {
    return std::nullopt;  // a damaged record reschedules (as Reconcile), it never crashes
  }
  ScheduleRecord record;
  record.replicas = static_cast<int32_t>(replicas->as_int64());
  record.placementHash = std::string(placement->as_string());
  for (const auto& [cluster, n] : estimates->as_object()) {
    if (!n.is_int64()) return std::nullopt;
    record.estimates[std::string(cluster)] = n.as_int64();
  }
  if (const auto* type = o.if_contains("type")) {
    if (!type->is_string()) return std::nullopt;
    record.type = std::string(type->as_string());
  }
  if (const auto* failed = o.if_contains("failedOver")) {
    if (!failed->is_array()) return std::nullopt;
    for (const auto& c : failed->as_array()) {
      if (!c.is_string()) return std::nullopt;
      record.failedOver.emplace_back(c.as_string());
    }
  }
  return record;
}

namespace {

const api::FederatedCluster* findCluster(const std::vector<api::FederatedCluster>& clusters,
                                         const std::string& name) {
  auto it = std::find_if(clusters.begin(), clusters.end(),
                         [&](const api::FederatedCluster& c) { return c.metadata.name == name; });
  return it == clusters.end() ? nullptr : &*it;
}

// A cluster an estimate was lifted from, or raised for: it can run more than the last result
// assumed.
bool estimateLifted(const std::map<std::string, int64_t>& before,
                    const std::map<std::string, int64_t>& after) {
  for (const auto& [cluster, n] : before) {
    auto it = after.find(cluster);
    if (it == after.end() || it->second > n) return true;
  }
  return false;
}

void addUnique(std::vector<std::string>& list, const std::string& name) {
  if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
}

}  // namespace

ScheduleDecision decideSchedule(const api::ResourceBinding& binding,
                                const std::optional<ScheduleRecord>& last,
                                const std::vector<api::FederatedCluster>& clusters,
                                api::Clock::time_point now, const FailoverPolicy& failover) {
  ScheduleDecision d;
  if (!last) {
    const bool annotated = binding.metadata.annotations.count(kScheduleRecordAnnotation) > 0;
    d.type = annotated || !binding.spec.clusters.empty() ? ScheduleType::kReconcile
                                                         : ScheduleType::kFirst;
    d.reason = annotated ? "the schedule record is unreadable" : "not scheduled yet";
    if (!binding.spec.clusters.empty() && !annotated) d.reason = "no record of the last schedule";
    return d;
  }
  // Clusters failed away from stay on the list while they are not Ready (and still exist); a
  // result written when one is Ready again drops it: with Rebalance that result is the failback,
  // with Never whatever schedule comes next.
  for (const auto& name : last->failedOver) {
    const auto* c = findCluster(clusters, name);
    if (c && !c->metadata.deletionTimestamp && !isClusterReady(*c)) addUnique(d.failedOver, name);
  }
  const ScheduleRecord current = recordFor(binding);
  // A failback that is due and an estimate lifted are honoured by whatever schedule happens
  // now (a scale at the same moment must not swallow them: the record written with its result
  // no longer names the returning cluster nor the old estimate).
  std::string back;
  if (failover.failbackRebalance) {
    for (const auto& name : last->failedOver) {
      const auto* c = findCluster(clusters, name);
      if (c && !c->metadata.deletionTimestamp && isClusterReady(*c)) back += " " + name;
    }
  }
  const bool lifted = estimateLifted(last->estimates, current.estimates);
  d.rebalance = lifted || !back.empty();
  if (current.placementHash != last->placementHash) {
    d.type = ScheduleType::kReconcile;
    d.reason = "placement or policy changed";
    return d;
  }
  if (current.replicas != last->replicas) {
    d.type = ScheduleType::kScale;
    d.reason = "replicas changed from " + std::to_string(last->replicas) + " to " +
               std::to_string(current.replicas);
    return d;
  }
  for (const auto& target : binding.spec.clusters) {
    if (target.replicas <= 0 || failover.finished.count(target.name)) continue;
    const auto* c = findCluster(clusters, target.name);
    if (!c || c->metadata.deletionTimestamp) {
      d.failedClusters.push_back(target.name);
      continue;
    }
    if (isClusterReady(*c)) continue;
    const api::Condition* ready = api::findCondition(c->status.conditions, "Ready");
    const auto since = ready ? api::parseRfc3339(ready->lastTransitionTime) : std::nullopt;
    // Without a usable transition time there is no way to measure the grace period; waiting for
    // ever would strand the replicas, so the cluster counts as failed.
    if (!since || now - *since >= failover.clusterNotReadyFor) {
      d.failedClusters.push_back(target.name);
      if (c) addUnique(d.failedOver, target.name);
    }
  }
  if (!d.failedClusters.empty()) {
    d.type = ScheduleType::kFailover;
    d.reason = "target cluster(s) failed:";
    for (const auto& c : d.failedClusters) d.reason += " " + c;
    return d;
  }
  if (!back.empty()) {
    d.type = ScheduleType::kFailover;
    d.reason = "failback: Ready again:" + back;
    return d;
  }
  if (current.estimates != last->estimates) {
    d.type = ScheduleType::kMigration;
    d.reason = lifted ? "auto-migration estimates lifted: rebalancing"
                      : "auto-migration estimates changed";
  }
  return d;
}

api::ResourceBinding applyScheduleResult(const api::ResourceBinding& binding,
                                         const ScheduleResult& result,
                                         const ScheduleDecision& decision,
                                         api::Clock::time_point now) {
  const ScheduleType type = decision.type;
  api::ResourceBinding out = binding;
  const std::string time = api::formatRfc3339(now);
  const int64_t generation = binding.metadata.generation;
  // Why a cluster was filtered out, except the clusters the placement's own affinity leaves out:
  // those are the user's choice, not a finding, and in a large fleet they are most clusters (95
  // entries on every binding of a policy that selects 5 of 100 made the status five times larger,
  // and every status write carried them). The condition's message still counts them.
  out.status.diagnosis.clear();
  for (const auto& v : result.verdicts) {
    if (!v.plugin.empty() && v.plugin != ClusterAffinity::kName)
      out.status.diagnosis.push_back({v.cluster, v.plugin, v.reason});
  }
  if (!result.ok()) {
    api::setCondition(out.status.conditions, "Scheduled", "False", result.reason(), result.message,
                      generation, time);
    return out;  // spec.clusters untouched: the previous placement keeps running
  }
  out.spec.clusters.clear();
  for (const auto& [cluster, replicas] : result.placement) {
    out.spec.clusters.push_back({cluster, static_cast<int32_t>(replicas)});
  }
  ScheduleRecord record = recordFor(binding);
  record.failedOver = decision.failedOver;
  record.type = scheduleTypeName(type);
  out.metadata.annotations[kScheduleRecordAnnotation] = encodeRecord(record);
  api::setCondition(out.status.conditions, "Scheduled", "True", "Success", "", generation, time);
  out.status.schedulerObservedGeneration = generation;
  out.status.lastScheduledTime = time;
  out.status.lastScheduleType = scheduleTypeName(type);
  out.status.placementSummary = placementSummary(result.placement);
  return out;
}

}  // namespace flotilla::scheduler
