#include "controllers/automigration/estimate.h"

#include <algorithm>

namespace flotilla::controllers::automigration {

using std::chrono::nanoseconds;

namespace {

void soonest(std::optional<nanoseconds>& current, nanoseconds candidate) {
  candidate = std::max(candidate, nanoseconds(0));
  if (!current || candidate < *current) current = candidate;
}

}  // namespace

Decision decide(const std::optional<api::AutoMigrationStatus>& previous,
                const std::vector<ClusterView>& clusters, const Settings& settings,
                api::Clock::time_point now) {
  Decision out;
  api::AutoMigrationStatus next;
  const std::string nowText = api::formatRfc3339(now);
  auto previousEstimate = [&](const std::string& name) -> std::optional<int64_t> {
    if (!previous) return std::nullopt;
    auto it = previous->estimatedCapacity.find(name);
    if (it == previous->estimatedCapacity.end()) return std::nullopt;
    return it->second;
  };
  // Keeps the previous estimate of `name` with its time and baseline.
  auto keep = [&](const std::string& name, int64_t estimate) {
    next.estimatedCapacity[name] = estimate;
    if (auto it = previous->estimatedAt.find(name); it != previous->estimatedAt.end())
      next.estimatedAt[name] = it->second;
    if (auto it = previous->availableReplicas.find(name); it != previous->availableReplicas.end())
      next.availableReplicas[name] = it->second;
    if (auto it = previous->scheduledReplicas.find(name); it != previous->scheduledReplicas.end())
      next.scheduledReplicas[name] = it->second;
  };

  for (const ClusterView& c : clusters) {
    const auto before = previousEstimate(c.name);
    int64_t unschedulable = 0;
    int64_t scheduled = 0;
    for (const PodView& pod : c.pods) {
      if (!pod.unschedulable) {
        ++scheduled;
        continue;
      }
      const nanoseconds pending = now - pod.since;
      if (pending >= settings.podUnschedulableFor) {
        ++unschedulable;
      } else {
        soonest(out.requeueAfter, settings.podUnschedulableFor - pending);
      }
    }
    if (c.observed && unschedulable > 0) {
      // Pods not created yet count as schedulable: the desired count, or the pods there are when
      // more run (a scale-down in progress), minus those that cannot be placed.
      const int64_t estimate =
          std::max<int64_t>(std::max<int64_t>(c.desired, c.pods.size()) - unschedulable, 0);
      if (estimate < c.desired) {
        if (before && *before == estimate) {
          keep(c.name, estimate);
        } else {
          next.estimatedCapacity[c.name] = estimate;
          next.estimatedAt[c.name] = nowText;
          if (c.availableReplicas) next.availableReplicas[c.name] = *c.availableReplicas;
        }
        next.scheduledReplicas[c.name] = scheduled;
        soonest(out.requeueAfter, settings.capacityTTL);
        continue;
      }
    }
    if (!before) continue;
    // An estimate in force: lifted when its TTL has passed or the cluster grew.
    const auto at = [&]() -> std::optional<api::Clock::time_point> {
      auto it = previous->estimatedAt.find(c.name);
      if (it != previous->estimatedAt.end()) return api::parseRfc3339(it->second);
      return api::parseRfc3339(previous->updatedAt);
    }();
    if (!at || now - *at >= settings.capacityTTL) continue;  // lifted: the scheduler probes upward
    keep(c.name, *before);
    if (c.availableReplicas) {
      // The cluster grew: the estimate is raised by what it can run more than when it was made
      // (not lifted altogether: a cluster that grew by one replica takes one more, instead of the
      // whole weighted share that would go pending and migrate away again). Without a recorded
      // baseline, by what it can run now.
      auto base = previous->availableReplicas.find(c.name);
      const int64_t was = base == previous->availableReplicas.end() ? 0 : base->second;
      if (*c.availableReplicas > was) {
        next.estimatedCapacity[c.name] = *before + (*c.availableReplicas - was);
        next.availableReplicas[c.name] = *c.availableReplicas;
      }
    }
    if (c.observed) next.scheduledReplicas[c.name] = c.pods.size() - unschedulable;
    soonest(out.requeueAfter, settings.capacityTTL - (now - *at));
  }
  if (next.estimatedCapacity.empty()) return out;  // no status.autoMigration at all
  const bool same = previous && previous->estimatedCapacity == next.estimatedCapacity &&
                    previous->estimatedAt == next.estimatedAt &&
                    previous->availableReplicas == next.availableReplicas;
  next.updatedAt = same ? previous->updatedAt : nowText;
  out.status = std::move(next);
  return out;
}

}  // namespace flotilla::controllers::automigration
