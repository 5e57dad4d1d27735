#include "controllers/dependencies/follower_index.h"

#include "api/flotilla_types.h"
#include "api/unstructured.h"
#include "controllers/common/object_key.h"

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

}  // namespace

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

FollowerIndex::FollowerIndex(IndexInformers informers, ServicesIn services, SourcesSynced synced)
    : informers_(informers), services_(std::move(services)), synced_(std::move(synced)) {}

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

std::optional<Leader> FollowerIndex::leaderOf(const json::object& binding) const {
  const auto object = memberObjectOf(binding);
  if (!object) return std::nullopt;
  const auto services = services_(u::stringAt(binding, {"metadata", "namespace"}));
  std::vector<const json::object*> pointers;
  pointers.reserve(services.size());
  for (const auto& s : services) pointers.push_back(s.get());
  return dependencies::leaderOf(binding, *object, pointers);
}

std::vector<Leader> FollowerIndex::leadersIn(const std::string& ns) const {
  std::vector<Leader> out;
  for (const auto& binding : informers_.bindings.store().byIndex(kube::kNamespaceIndex, ns))
    if (auto leader = leaderOf(*binding)) out.push_back(std::move(*leader));
  return out;
}

std::vector<api::BindingRequirement> FollowerIndex::requiredBy(const Dependency& follower) const {
  return requirementsFor(planFollowers(leadersIn(follower.ns)), follower, follower.ns);
}

std::vector<std::string> FollowerIndex::followerKeysOf(const json::object& binding) const {
  const auto object = memberObjectOf(binding);
  return object ? keysNeededBy(*object) : std::vector<std::string>{};
}

std::vector<kube::ObjectPtr> FollowerIndex::bindingsRequiring(const json::object& binding) const {
  std::vector<kube::ObjectPtr> out;
  const std::string ns = u::stringAt(binding, {"metadata", "namespace"});
  const std::string name = u::stringAt(binding, {"metadata", "name"});
  for (const auto& other : informers_.bindings.store().byIndex(kube::kNamespaceIndex, ns)) {
    const json::array* required = u::findArray(*other, {"spec", "requiredBy"});
    if (!required) continue;
    for (const auto& r : *required) {
      if (r.is_object() && u::stringAt(r.as_object(), {"name"}) == name) {
        out.push_back(other);
        break;
      }
    }
  }
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
  for (const auto& follower : bindingsRequiring(binding))
    out.push_back(u::stringAt(*follower, {"metadata", "namespace"}) + "/" +
                  u::stringAt(*follower, {"metadata", "name"}));
  return out;
}

std::vector<std::string> FollowerIndex::keysNeededBy(const json::object& object) const {
  std::vector<std::string> out;
  // leaderOf reads only the binding's name, spec and status: an empty one will do.
  const auto services = services_(u::stringAt(object, {"metadata", "namespace"}));
  std::vector<const json::object*> pointers;
  for (const auto& s : services) pointers.push_back(s.get());
  const auto leader = dependencies::leaderOf(json::object{}, object, pointers);
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

}  // namespace flotilla::controllers::dependencies
