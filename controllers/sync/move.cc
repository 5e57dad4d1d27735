#include "controllers/sync/move.h"

#include <algorithm>

namespace flotilla::controllers::sync {

MovePlan planMove(const std::vector<MoveCluster>& clusters, bool timedOut) {
  MovePlan plan;
  int64_t desiredTotal = 0;
  int64_t available = 0;  // what stays available if every cluster goes to its planned count
  std::vector<const MoveCluster*> sources;
  for (const MoveCluster& c : clusters) {
    desiredTotal += c.desired;
    plan.replicas[c.name] = c.desired;
    const bool losing = c.reachable && c.live && *c.live > c.desired;
    if (timedOut || !losing) {
      if (c.reachable) available += std::min(c.available, c.desired);
      continue;
    }
    // Keep what is available (never more than runs there now), give up the rest at once.
    const int32_t keep = std::clamp(c.available, c.desired, *c.live);
    plan.replicas[c.name] = keep;
    available += std::min(c.available, keep);
    sources.push_back(&c);
  }
  std::sort(sources.begin(), sources.end(),
            [](const MoveCluster* a, const MoveCluster* b) { return a->name < b->name; });
  int64_t excess = available - desiredTotal;
  for (const MoveCluster* c : sources) {
    int32_t& n = plan.replicas[c->name];
    const int64_t give = std::clamp<int64_t>(excess, 0, n - c->desired);
    n -= static_cast<int32_t>(give);
    excess -= give;
    if (n > c->desired) plan.held[c->name] = n;
  }
  return plan;
}

std::string describeHeld(const MovePlan& plan, const std::vector<MoveCluster>& clusters) {
  std::string out;
  for (const auto& [name, n] : plan.held) {
    int32_t desired = 0;
    for (const auto& c : clusters)
      if (c.name == name) desired = c.desired;
    if (!out.empty()) out += ", ";
    out += name + " holds " + std::to_string(n) + " (target " + std::to_string(desired) + ")";
  }
  return out;
}

}  // namespace flotilla::controllers::sync
