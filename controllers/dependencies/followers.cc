#include "controllers/dependencies/followers.h"

#include "interpreter/interpreter.h"

namespace flotilla::controllers::dependencies {

namespace {

// The object a dependency names, whatever its optional flag.
Dependency identity(Dependency d) {
  d.optional = false;
  return d;
}

std::string describe(const Dependency& d) {
  return d.kind + " " + (d.ns.empty() ? d.name : d.ns + "/" + d.name);
}

// "ConfigMap shop/env, Secret shop/tls" (at most 3, then "and N more").
std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 3; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 3) out += " and " + std::to_string(names.size() - 3) + " more";
  return out;
}

}  // namespace

std::vector<FollowerPlacement> planFollowers(const std::vector<Leader>& leaders,
                                             const std::set<Dependency>& optOut) {
  std::map<Dependency, FollowerPlacement> byObject;
  std::map<Dependency, bool> allOptional;
  for (const auto& leader : leaders) {
    if (!leader.follow) continue;
    for (const auto& need : leader.needs) {
      const Dependency id = identity(need);
      if (optOut.count(id)) continue;
      auto& placement = byObject[id];
      placement.follower = id;
      placement.requiredBy.insert(leader.id());
      for (const auto* on : {&leader.clusters, &leader.presentOn}) {
        for (const auto& cluster : *on) {
          placement.clusters.insert(cluster);
          placement.leadersOn[cluster].insert(leader.id());
        }
      }
      auto [it, first] = allOptional.emplace(id, need.optional);
      if (!first) it->second = it->second && need.optional;
    }
  }
  std::vector<FollowerPlacement> out;
  for (auto& [id, placement] : byObject) {
    placement.follower.optional = allOptional[id];
    out.push_back(std::move(placement));
  }
  return out;
}

LeaderGate gateLeader(const Leader& leader, const std::map<Dependency, FollowerState>& followers,
                      const std::set<Dependency>& optOut, bool waitForMissing) {
  LeaderGate gate;
  if (!leader.follow) return gate;
  std::vector<std::string> missing, pending;
  for (const auto& need : leader.needs) {
    const auto it = followers.find(identity(need));
    // An HPA whose copy is on a cluster owns the leader's replicas there (placed by following or
    // by a policy of its own).
    if (it != followers.end() &&
        interpreter::Registry::builtIn().of(need.apiVersion, need.kind).scalesWhatItFollows())
      gate.autoscaledOn.insert(it->second.heldOn.begin(), it->second.heldOn.end());
    if (optOut.count(identity(need))) continue;  // placed by its own policy, if at all
    const bool onHost = it != followers.end() && it->second.onHost;
    if (!onHost) {
      // An optional reference the pods start without; a required one the workload still
      // propagates without (it is reported, never a reason to hold the workload back).
      if (!need.optional) {
        missing.push_back(describe(need));
        if (waitForMissing)
          for (const auto& cluster : leader.clusters)
            if (!leader.presentOn.count(cluster)) gate.blocked.insert(cluster);
      }
      continue;
    }
    bool applied = true;
    for (const auto& cluster : leader.clusters) {
      if (it->second.appliedOn.count(cluster)) continue;
      applied = false;
      if (!leader.presentOn.count(cluster)) gate.blocked.insert(cluster);
    }
    if (!applied) pending.push_back(describe(need));
  }
  if (!missing.empty()) {
    gate.status = "False";
    gate.reason = "Missing";
    gate.message = "not on the host: " + list(missing);
    if (!pending.empty()) gate.message += "; not applied on every cluster yet: " + list(pending);
  } else if (!pending.empty()) {
    gate.status = "False";
    gate.reason = "Pending";
    gate.message = "not applied on every cluster yet: " + list(pending);
  }
  return gate;
}

}  // namespace flotilla::controllers::dependencies
