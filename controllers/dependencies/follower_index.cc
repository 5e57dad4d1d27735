#include "controllers/dependencies/follower_index.h"

#include <algorithm>
#include <set>

#include "api/flotilla_types.h"
#include "api/names.h"
#include "api/unstructured.h"
#include "controllers/common/object_key.h"
#include "interpreter/interpreter.h"

namespace flotilla::controllers::dependencies {

namespace json = boost::json;
namespace u = api::unstructured;

namespace {

std::vector<std::string> placementOf(const kube::ObjectPtr& o) {
  std::vector<std::string> out;
  if (const json::array* clusters = u::findArray(*o, {"spec", "clusters"}))
    for (const auto& c : *clusters)
      if (c.is_object()) out.push_back("spec:" + u::stringAt(c.as_object(), {"name"}));
  if (const json::array* items = u::findArray(*o, {"status", "aggregatedStatus"}))
    for (const auto& c : *items)
      if (c.is_object()) out.push_back("status:" + u::stringAt(c.as_object(), {"clusterName"}));
  if (u::find(*o, {"metadata", "deletionTimestamp"}) != nullptr) out.push_back("deleting");
  return out;
}

std::vector<const json::object*> pointersTo(const std::vector<kube::ObjectPtr>& objects) {
  std::vector<const json::object*> out;
  out.reserve(objects.size());
  for (const auto& o : objects) out.push_back(o.get());
  return out;
}

std::string needValue(const Dependency& d) {
  return "need:" + ObjectKey{d.apiVersion, d.kind, d.ns, d.name}.str();
}

// The group of `apiVersion` when a CRD may serve it (not one kube-apiserver serves itself).
std::optional<std::string> customGroup(const std::string& apiVersion) {
  const auto slash = apiVersion.find('/');
  if (slash == std::string::npos) return std::nullopt;
  std::string group = apiVersion.substr(0, slash);
  if (api::builtInGroup(group)) return std::nullopt;
  return group;
}

// "crd:<group>/<kind>" of a custom resource.
std::optional<std::string> crdValue(const std::string& apiVersion, const std::string& kind) {
  const auto group = customGroup(apiVersion);
  if (!group || kind.empty()) return std::nullopt;
  return "crd:" + *group + "/" + kind;
}

// "target:<ObjectKey>" of an object with replicas: what an HPA scaling it names.
std::optional<std::string> targetValue(const json::object& object,
                                       const interpreter::Interpreter& interpreter) {
  if (!interpreter.divisible()) return std::nullopt;
  return "target:" + ObjectKey::of(object).str();
}

std::string podLabelValue(const std::string& ns, std::string_view key, const json::value& value) {
  return "pod:" + selectorValue(ns, key, value);
}

// kNeedsIndex of a cached FederatedDeployment or FederatedObject (`memberObject` turns it into
// what members receive).
using MemberObjectOf = std::optional<json::object> (*)(const json::object&);
std::vector<std::string> needsOf(MemberObjectOf memberObject, const json::object& federated) {
  std::vector<std::string> out;
  const auto object = memberObject(federated);
  if (!object) return out;
  const auto interpreter = interpreter::Registry::builtIn().of(u::stringAt(*object, {"apiVersion"}),
                                                               u::stringAt(*object, {"kind"}));
  for (const auto& need : interpreter.dependencies(*object).followers)
    out.push_back(needValue(need));
  if (auto crd = crdValue(u::stringAt(*object, {"apiVersion"}), u::stringAt(*object, {"kind"})))
    out.push_back(std::move(*crd));
  if (auto target = targetValue(*object, interpreter)) out.push_back(std::move(*target));
  if (const json::object* labels = interpreter.podLabels(*object)) {
    const std::string ns = u::stringAt(*object, {"metadata", "namespace"});
    for (const auto& kv : *labels) out.push_back(podLabelValue(ns, kv.key(), kv.value()));
  }
  return out;
}

std::vector<std::string> requiringOf(const json::object& binding) {
  std::vector<std::string> out;
  if (const json::array* required = u::findArray(binding, {"spec", "requiredBy"}))
    for (const auto& r : *required)
      if (r.is_object())
        out.push_back(u::stringAt(r.as_object(), {"namespace"}) + "/" +
                      u::stringAt(r.as_object(), {"name"}));
  return out;
}

}  // namespace

std::string selectorValue(const std::string& ns, std::string_view key, const json::value& value) {
  std::string out = ns + "/" + std::string(key) + "=";
  if (value.is_string()) out += value.get_string();
  return out;
}

std::vector<std::string> selectorIndexValues(const json::object& service) {
  std::vector<std::string> out;
  const std::string ns = u::stringAt(service, {"metadata", "namespace"});
  if (const json::object* selector = u::findObject(service, {"spec", "selector"}))
    for (const auto& kv : *selector) out.push_back(selectorValue(ns, kv.key(), kv.value()));
  return out;
}

std::vector<std::string> followsIndexValues(const std::string& apiVersion, const std::string& kind,
                                            const json::object& object) {
  const auto followed = interpreter::Registry::builtIn().of(apiVersion, kind).follows(object);
  if (!followed) return {};
  return {ObjectKey{followed->apiVersion, followed->kind, followed->ns, followed->name}.str()};
}

std::vector<std::string> crdIndexValues(const json::object& crd) {
  const std::string group = u::stringAt(crd, {"spec", "group"});
  const std::string kind = u::stringAt(crd, {"spec", "names", "kind"});
  if (group.empty() || kind.empty()) return {};
  return {group + "/" + kind};
}

kube::Predicate leaderPlacementChanged() {
  return kube::Predicate{nullptr,
                         [](const kube::ObjectPtr& before, const kube::ObjectPtr& after) {
                           return placementOf(before) != placementOf(after);
                         },
                         nullptr};
}

std::vector<std::string> federatedKeys(const std::vector<std::string>& objectKeys) {
  std::vector<std::string> out;
  for (const auto& text : objectKeys) {
    const auto key = ObjectKey::parse(text);
    if (!key) continue;
    const std::string name = federatedName(key->name, key->kind, key->group());
    out.push_back(key->ns.empty() ? name : key->ns + "/" + name);
  }
  return out;
}

FollowerIndex::FollowerIndex(IndexInformers informers, ServiceLookup services, SourcesSynced synced,
                             CrdLookup crds, NamingLookup naming)
    : informers_(informers),
      services_(std::move(services)),
      synced_(std::move(synced)),
      crds_(std::move(crds)),
      naming_(std::move(naming)) {
  informers_.federatedDeployments.addIndex(
      kNeedsIndex, [](const json::object& fd) { return needsOf(deploymentOf, fd); });
  informers_.federatedObjects.addIndex(
      kNeedsIndex, [](const json::object& fo) { return needsOf(templateOf, fo); });
  informers_.bindings.addIndex(kRequiredByIndex, requiringOf);
  if (informers_.clusterBindings) informers_.clusterBindings->addIndex(kRequiredByIndex, requiringOf);
}

bool FollowerIndex::readyFor(const std::string& ns, const std::string& apiVersion) const {
  if (!ready(ns)) return false;
  if (!crds_.synced || !customGroup(apiVersion)) return true;
  return crds_.synced();
}

std::vector<Dependency> FollowerIndex::cachedNeeds(const json::object& object) const {
  std::vector<Dependency> out;
  if (naming_.naming) {
    const auto interpreter = interpreter::Registry::builtIn().of(
        u::stringAt(object, {"apiVersion"}), u::stringAt(object, {"kind"}));
    if (interpreter.divisible())
      for (auto& follower : naming_.naming(u::stringAt(object, {"metadata", "namespace"}),
                                           ObjectKey::of(object).str()))
        out.push_back(std::move(follower));
  }
  if (!crds_.serving) return out;
  const auto group = customGroup(u::stringAt(object, {"apiVersion"}));
  const std::string kind = u::stringAt(object, {"kind"});
  if (!group || kind.empty()) return out;
  if (const auto crd = crds_.serving(*group, kind))
    out.push_back({kCrdKind.first, kCrdKind.second, "", u::stringAt(*crd, {"metadata", "name"})});
  return out;
}

std::optional<json::object> FollowerIndex::memberObjectOf(const json::object& binding) const {
  const std::string ns = u::stringAt(binding, {"metadata", "namespace"});
  const std::string apiVersion = u::stringAt(binding, {"spec", "resource", "apiVersion"});
  const std::string kind = u::stringAt(binding, {"spec", "resource", "kind"});
  if (apiVersion == api::kGroupVersion && kind == "FederatedDeployment") {
    const auto fd = informers_.federatedDeployments.store().get(
        ns + "/" + u::stringAt(binding, {"spec", "resource", "name"}));
    return fd ? deploymentOf(*fd) : std::nullopt;
  }
  // A FederatedObject controls the binding; its template is the object.
  if (const json::array* owners = u::findArray(binding, {"metadata", "ownerReferences"})) {
    for (const auto& owner : *owners) {
      if (!owner.is_object() || u::stringAt(owner.as_object(), {"kind"}) != "FederatedObject")
        continue;
      const auto fo = informers_.federatedObjects.store().get(
          ns + "/" + u::stringAt(owner.as_object(), {"name"}));
      if (fo) return templateOf(*fo);
    }
  }
  return std::nullopt;
}

std::optional<json::object> FollowerIndex::deploymentOf(const json::object& fd) {
  const json::object* tmpl = u::findObject(fd, {"spec", "template"});
  if (!tmpl) return std::nullopt;
  json::object deployment = *tmpl;
  deployment["apiVersion"] = "apps/v1";
  deployment["kind"] = "Deployment";
  auto& meta = u::ensureObject(deployment, {"metadata"});
  meta["namespace"] = u::stringAt(fd, {"metadata", "namespace"});
  meta["name"] = u::stringAt(fd, {"metadata", "name"});
  return deployment;
}

std::optional<json::object> FollowerIndex::templateOf(const json::object& fo) {
  const json::object* tmpl = u::findObject(fo, {"spec", "template"});
  if (!tmpl) return std::nullopt;
  return *tmpl;
}

std::optional<Leader> FollowerIndex::leaderFor(const json::object& binding,
                                               const json::object& object) const {
  std::vector<kube::ObjectPtr> services;
  const auto interpreter = interpreter::Registry::builtIn().of(u::stringAt(object, {"apiVersion"}),
                                                               u::stringAt(object, {"kind"}));
  const json::object* labels = interpreter.podLabels(object);
  if (labels && services_.selecting) {
    const std::string ns = u::stringAt(object, {"metadata", "namespace"});
    for (const auto& kv : *labels)
      for (auto& service : services_.selecting(ns, selectorValue(ns, kv.key(), kv.value())))
        services.push_back(std::move(service));
    std::sort(services.begin(), services.end());
    services.erase(std::unique(services.begin(), services.end()), services.end());
  }
  return dependencies::leaderOf(binding, object, pointersTo(services), cachedNeeds(object));
}

std::optional<Leader> FollowerIndex::leaderOf(const json::object& binding) const {
  const auto object = memberObjectOf(binding);
  if (!object) return std::nullopt;
  return leaderFor(binding, *object);
}

std::vector<Leader> FollowerIndex::leadersOf(const Dependency& follower) const {
  // The federated objects that may lead it: those naming it, and for a Service those running
  // pods with one of its selector's labels (leaderOf checks the whole selector).
  std::vector<std::string> values = {needValue(follower)};
  if (follower.apiVersion == "v1" && follower.kind == "Service" && services_.named) {
    if (const auto service = services_.named(follower.ns, follower.name)) {
      const json::object* selector = u::findObject(*service, {"spec", "selector"});
      if (selector && !selector->empty())
        values.push_back(
            podLabelValue(follower.ns, selector->begin()->key(), selector->begin()->value()));
    }
  }
  // An object that follows what it names (an HPA): the federated object of what it names.
  if (naming_.named) {
    const auto interpreter = interpreter::Registry::builtIn().of(follower.apiVersion, follower.kind);
    if (const auto source = naming_.named(follower))
      if (const auto followed = interpreter.follows(*source))
        values.push_back("target:" +
                         ObjectKey{followed->apiVersion, followed->kind, followed->ns,
                                   followed->name}
                             .str());
  }
  if (follower.apiVersion == kCrdKind.first && follower.kind == kCrdKind.second && crds_.named) {
    if (const auto crd = crds_.named(follower.name))
      for (const auto& value : crdIndexValues(*crd)) values.push_back("crd:" + value);
  }
  std::set<std::string> bindingKeys;
  for (const auto* informer : {&informers_.federatedDeployments, &informers_.federatedObjects})
    for (const auto& value : values)
      for (const auto& federated : informer->store().byIndex(kNeedsIndex, value))
        bindingKeys.insert(kube::objectKey(*federated));
  std::vector<Leader> out;
  for (const auto& key : bindingKeys) {
    const auto binding = informers_.bindings.store().get(key);
    if (!binding) continue;
    auto leader = leaderOf(*binding);
    if (!leader) continue;
    const bool names = std::any_of(leader->needs.begin(), leader->needs.end(),
                                   [&](const Dependency& d) { return sameObject(d, follower); });
    if (names) out.push_back(std::move(*leader));
  }
  return out;
}

std::vector<api::BindingRequirement> FollowerIndex::requiredBy(const Dependency& follower) const {
  return requirementsFor(planFollowers(leadersOf(follower)), follower, follower.ns);
}

std::vector<std::string> FollowerIndex::followerKeysOf(const json::object& binding) const {
  const auto object = memberObjectOf(binding);
  return object ? keysNeededBy(*object) : std::vector<std::string>{};
}

std::vector<kube::ObjectPtr> FollowerIndex::bindingsRequiring(const json::object& binding) const {
  auto out = informers_.bindings.store().byIndex(kRequiredByIndex, kube::objectKey(binding));
  if (informers_.clusterBindings)
    for (auto& b : informers_.clusterBindings->store().byIndex(kRequiredByIndex,
                                                                 kube::objectKey(binding)))
      out.push_back(std::move(b));
  return out;
}

std::vector<std::string> FollowerIndex::followerSourcesOf(const json::object& binding) const {
  auto out = followerKeysOf(binding);
  for (const auto& follower : bindingsRequiring(binding)) {
    ObjectKey key;
    key.apiVersion = u::stringAt(*follower, {"spec", "resource", "apiVersion"});
    key.kind = u::stringAt(*follower, {"spec", "resource", "kind"});
    key.ns = u::stringAt(*follower, {"spec", "resource", "namespace"});
    key.name = u::stringAt(*follower, {"spec", "resource", "name"});
    out.push_back(key.str());
  }
  return out;
}

std::vector<std::string> FollowerIndex::followerBindingsOf(const json::object& binding) const {
  auto out = federatedKeys(followerKeysOf(binding));
  for (const auto& follower : bindingsRequiring(binding)) out.push_back(kube::objectKey(*follower));
  return out;
}

std::vector<std::string> FollowerIndex::keysNeededBy(const json::object& object) const {
  std::vector<std::string> out;
  // leaderOf reads only the binding's name, spec and status: an empty one will do.
  const auto leader = leaderFor(json::object{}, object);
  if (!leader) return out;
  for (const auto& need : leader->needs) {
    ObjectKey key;
    key.apiVersion = need.apiVersion;
    key.kind = need.kind;
    key.ns = need.ns;
    key.name = need.name;
    out.push_back(key.str());
  }
  return out;
}

std::vector<std::string> FollowerIndex::keysNeededByDeployment(const json::object& fd) const {
  const auto object = deploymentOf(fd);
  return object ? keysNeededBy(*object) : std::vector<std::string>{};
}

std::vector<std::string> FollowerIndex::keysNeededByObject(const json::object& fo) const {
  const auto object = templateOf(fo);
  return object ? keysNeededBy(*object) : std::vector<std::string>{};
}

}  // namespace flotilla::controllers::dependencies
