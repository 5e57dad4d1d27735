#include "controllers/sync/dependency_gate.h"

#include "api/time.h"
#include "api/unstructured.h"
#include "interpreter/dependencies.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;
namespace u = api::unstructured;

namespace {

// Where a follower's binding has it applied, or found an object of that name Flotilla may not
// take over (Conflict): the workload's pods find one there either way, and waiting for a
// conflict someone else must resolve would hold the workload back forever (the follower's own
// binding reports the conflict). An applied copy still Progressing or Unhealthy there (the sync
// writes a follower's health only for kinds whose workloads wait for it: a CRD not established
// yet) is not ready for them.
std::set<std::string> appliedOn(const json::object& binding) {
  std::set<std::string> out;
  if (const json::array* items = u::findArray(binding, {"status", "aggregatedStatus"})) {
    for (const auto& item : *items) {
      if (!item.is_object()) continue;
      const auto* applied = item.as_object().if_contains("applied");
      const std::string health = u::stringAt(item.as_object(), {"health"});
      const bool ready = health != "Progressing" && health != "Unhealthy";
      if ((applied && applied->is_bool() && applied->get_bool() && ready) ||
          u::stringAt(item.as_object(), {"propagation"}) == propagation::kConflict)
        out.insert(u::stringAt(item.as_object(), {"clusterName"}));
    }
  }
  return out;
}

// Where a copy of a follower is: applied, or there with its last update failed (a Conflict is
// not a copy of ours).
std::set<std::string> heldOn(const json::object& binding) {
  std::set<std::string> out;
  if (const json::array* items = u::findArray(binding, {"status", "aggregatedStatus"})) {
    for (const auto& item : *items) {
      if (!item.is_object()) continue;
      const std::string state = u::stringAt(item.as_object(), {"propagation"});
      if (state == propagation::kOK || state == propagation::kUpdateFailed)
        out.insert(u::stringAt(item.as_object(), {"clusterName"}));
    }
  }
  return out;
}

}  // namespace

bool replicasKeptUntilKnown(const std::optional<dependencies::LeaderGate>& gate) {
  return gate && gate->status == "Unknown" && !gate->autoscaledOn.empty();
}

std::optional<dependencies::LeaderGate> gateOf(const json::object& binding, const GateInputs& in) {
  if (!in.followers || !in.bindings) return std::nullopt;
  const auto leader = in.followers->leaderOf(binding);
  if (!in.followers->readyFor(u::stringAt(binding, {"metadata", "namespace"}),
                              u::stringAt(binding, {"spec", "resource", "apiVersion"}))) {
    // Not known yet (the follower caches are syncing): no new cluster, the condition untouched.
    // (Before the Services are listed a workload whose only followers select its pods looks
    // like one that leads nothing: its condition stays too.)
    dependencies::LeaderGate unknown;
    unknown.status = "Unknown";
    unknown.message = "the followers' caches have not synced yet";
    if (leader && leader->follow)
      for (const auto& cluster : leader->clusters)
        if (!leader->presentOn.count(cluster)) unknown.blocked.insert(cluster);
    // An HPA may scale it wherever it runs: its replicas there are left as they are until known.
    if (leader) unknown.autoscaledOn = leader->presentOn;
    return unknown;
  }
  if (!leader || !leader->follow) return std::nullopt;
  // Placed nowhere and no copy anywhere: nothing waits and nothing is applied, so nothing is said
  // (an unplaced binding would otherwise read "every dependency applied"; one that was placed
  // loses the condition).
  if (leader->clusters.empty() && leader->presentOn.empty()) return std::nullopt;
  std::map<interpreter::Dependency, dependencies::FollowerState> states;
  std::set<interpreter::Dependency> optOut;
  for (const auto& need : leader->needs) {
    interpreter::Dependency id = need;
    id.optional = false;
    const ObjectKey key{need.apiVersion, need.kind, need.ns, need.name};
    dependencies::FollowerState state;
    if (in.sourceOf) {
      const auto source = in.sourceOf(key);
      state.onHost = source != nullptr;
      if (source && !interpreter::mayFollow(*source)) optOut.insert(id);
    } else {
      state.onHost = true;
    }
    const std::string name = federatedName(need.name, need.kind, key.group());
    const auto rb = need.ns.empty()
                        ? (in.clusterBindings ? in.clusterBindings->store().get(name) : nullptr)
                        : in.bindings->store().get(need.ns + "/" + name);
    if (rb) {
      state.appliedOn = appliedOn(*rb);
      state.heldOn = heldOn(*rb);
    }
    states.emplace(id, std::move(state));
  }
  const auto created = api::parseRfc3339(u::stringAt(binding, {"metadata", "creationTimestamp"}));
  const bool young = created && in.now - *created < in.missingGrace;
  return dependencies::gateLeader(*leader, states, optOut, young);
}

bool deferWaitingStatus(const json::object& binding,
                        const std::optional<dependencies::LeaderGate>& gate,
                        const std::vector<ClusterOutcome>& outcomes, const GateInputs& in) {
  if (!gate || gate->status != "False" || gate->reason != "Pending" || outcomes.empty())
    return false;
  for (const auto& o : outcomes)
    if (o.propagation != propagation::kPendingCreate || !o.target) return false;
  const json::array* items = u::findArray(binding, {"status", "aggregatedStatus"});
  if (items && !items->empty()) return false;
  const auto created = api::parseRfc3339(u::stringAt(binding, {"metadata", "creationTimestamp"}));
  return created && in.now - *created < in.missingGrace;
}

kube::MapFunc mapFollowerToLeaders() {
  return [](const kube::ObjectPtr& o) {
    std::vector<std::string> out;
    if (const json::array* required = u::findArray(*o, {"spec", "requiredBy"})) {
      for (const auto& r : *required) {
        if (!r.is_object()) continue;
        out.push_back(u::stringAt(r.as_object(), {"namespace"}) + "/" +
                      u::stringAt(r.as_object(), {"name"}));
      }
    }
    return out;
  };
}

kube::Predicate followerAppliedChanged() {
  return kube::Predicate{[](const kube::ObjectPtr& o) {
                           return u::findArray(*o, {"spec", "requiredBy"}) != nullptr;
                         },
                         [](const kube::ObjectPtr& before, const kube::ObjectPtr& after) {
                           return u::findArray(*after, {"spec", "requiredBy"}) != nullptr &&
                                  appliedOn(*before) != appliedOn(*after);
                         },
                         [](const kube::ObjectPtr& o) {
                           return u::findArray(*o, {"spec", "requiredBy"}) != nullptr;
                         }};
}

}  // namespace flotilla::controllers::sync
