#include "controllers/dependencies/leaders.h"

#include <algorithm>
#include <map>

#include "api/conditions.h"
#include "api/unstructured.h"
#include "interpreter/interpreter.h"

namespace flotilla::controllers::dependencies {

namespace json = boost::json;
namespace u = api::unstructured;

namespace {

std::set<std::string> namesAt(const json::object& o, u::Path path, std::string_view field) {
  std::set<std::string> out;
  if (const json::array* items = u::findArray(o, path)) {
    for (const auto& item : *items) {
      if (!item.is_object()) continue;
      if (const auto* name = item.as_object().if_contains(field); name && name->is_string())
        out.insert(std::string(name->as_string()));
    }
  }
  return out;
}

}  // namespace

std::optional<Leader> leaderOf(const json::object& binding, const json::object& object,
                               const std::vector<const json::object*>& services,
                               const std::vector<Dependency>& extraNeeds) {
  const auto interpreter = interpreter::Registry::builtIn().of(u::stringAt(object, {"apiVersion"}),
                                                               u::stringAt(object, {"kind"}));
  Leader leader;
  leader.needs = interpreter.dependencies(object).followers;
  if (const json::object* labels = interpreter.podLabels(object)) {
    auto selecting = interpreter::selectingServices(*labels, services);
    leader.needs.insert(leader.needs.end(), selecting.begin(), selecting.end());
  }
  leader.needs.insert(leader.needs.end(), extraNeeds.begin(), extraNeeds.end());
  interpreter::normalize(leader.needs);
  if (leader.needs.empty()) return std::nullopt;
  leader.key = u::stringAt(binding, {"metadata", "name"});
  leader.ns = u::stringAt(binding, {"metadata", "namespace"});
  leader.follow = u::stringAt(binding, {"spec", "dependencies"}) != "Ignore";
  // A binding being deleted is placed nowhere; its copies still count until they are gone.
  if (u::find(binding, {"metadata", "deletionTimestamp"}) == nullptr)
    leader.clusters = namesAt(binding, {"spec", "clusters"}, "name");
  // Where a copy of it may be: every entry but those saying none of ours was made there.
  if (const json::array* items = u::findArray(binding, {"status", "aggregatedStatus"})) {
    for (const auto& item : *items) {
      if (!item.is_object()) continue;
      const std::string propagation = u::stringAt(item.as_object(), {"propagation"});
      if (propagation == "PendingCreate" || propagation == "CreationFailed" ||
          propagation == "Conflict")
        continue;
      leader.presentOn.insert(u::stringAt(item.as_object(), {"clusterName"}));
    }
  }
  return leader;
}

bool sameObject(const Dependency& a, const Dependency& b) {
  return a.apiVersion == b.apiVersion && a.kind == b.kind && a.ns == b.ns && a.name == b.name;
}

std::vector<api::BindingRequirement> requirementsFor(const std::vector<FollowerPlacement>& plan,
                                                     const Dependency& follower,
                                                     const std::string& ns) {
  std::vector<api::BindingRequirement> out;
  const auto it = std::find_if(plan.begin(), plan.end(), [&](const FollowerPlacement& p) {
    return sameObject(p.follower, follower);
  });
  if (it == plan.end()) return out;
  std::map<std::string, std::vector<std::string>> byLeader;
  for (const auto& leader : it->requiredBy) byLeader[leader];
  for (const auto& [cluster, leaders] : it->leadersOn)
    for (const auto& leader : leaders) byLeader[leader].push_back(cluster);
  std::set<std::string> rest;  // the clusters of the leaders past the cap
  size_t more = 0;
  for (auto& [leader, clusters] : byLeader) {
    if (byLeader.size() > kMaxRequirements && out.size() == kMaxRequirements - 1) {
      rest.insert(clusters.begin(), clusters.end());
      ++more;
      continue;
    }
    const auto slash = leader.find('/');
    out.push_back({.namespace_ = slash == std::string::npos ? ns : leader.substr(0, slash),
                   .name = slash == std::string::npos ? leader : leader.substr(slash + 1),
                   .clusters = std::move(clusters)});
  }
  if (more > 0)
    out.push_back({.namespace_ = "",
                   .name = "+" + std::to_string(more) + " more",
                   .clusters = std::vector<std::string>(rest.begin(), rest.end())});
  return out;
}

std::vector<api::TargetCluster> targetsOf(const api::ResourceBinding& rb) {
  std::vector<api::TargetCluster> out = rb.spec.clusters;
  for (const auto& requirement : rb.spec.requiredBy) {
    for (const auto& cluster : requirement.clusters) {
      const bool listed = std::any_of(
          out.begin(), out.end(), [&](const api::TargetCluster& t) { return t.name == cluster; });
      if (!listed) out.push_back({.name = cluster, .replicas = 0});
    }
  }
  return out;
}

std::set<std::string> clustersInUse(const json::object& binding) {
  std::set<std::string> out = namesAt(binding, {"spec", "clusters"}, "name");
  out.merge(namesAt(binding, {"status", "aggregatedStatus"}, "clusterName"));
  if (const json::array* required = u::findArray(binding, {"spec", "requiredBy"})) {
    for (const auto& r : *required) {
      if (!r.is_object()) continue;
      if (const json::array* clusters = u::findArray(r.as_object(), {"clusters"}))
        for (const auto& c : *clusters)
          if (c.is_string()) out.insert(std::string(c.get_string()));
    }
  }
  return out;
}

bool setDependenciesReady(api::ResourceBindingStatus& status, const LeaderGate& gate,
                          int64_t generation, const std::string& now) {
  const api::Condition* before = api::findCondition(status.conditions, kDependenciesReady);
  const bool changed = !before || before->status != gate.status || before->reason != gate.reason ||
                       before->message != gate.message;
  const std::string reason = gate.status == "True" ? "AllApplied" : gate.reason;
  const std::string message =
      gate.status == "True" ? "every dependency is applied on every cluster" : gate.message;
  api::setCondition(status.conditions, kDependenciesReady, gate.status, reason, message, generation,
                    now);
  return changed && gate.reason == "Missing";
}

bool updateDependenciesReady(api::ResourceBindingStatus& status,
                             const std::optional<LeaderGate>& gate, int64_t generation,
                             const std::string& now) {
  if (!gate) {
    std::erase_if(status.conditions,
                  [](const api::Condition& c) { return c.type == kDependenciesReady; });
    return false;
  }
  if (gate->status == "Unknown") return false;
  return setDependenciesReady(status, *gate, generation, now);
}

}  // namespace flotilla::controllers::dependencies
