#include "interpreter/interpreter.h"

#include <boost/json/value.hpp>

#include "api/unstructured.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

std::string_view toString(Health health) {
  switch (health) {
    case Health::kHealthy:
      return "Healthy";
    case Health::kProgressing:
      return "Progressing";
    case Health::kUnhealthy:
      return "Unhealthy";
    case Health::kUnknown:
      break;
  }
  return "Unknown";
}

std::optional<int32_t> Interpreter::replicas(const json::object& object) const {
  if (!entry_.replicas) return std::nullopt;
  return entry_.replicas(object);
}

api::ReplicaRequirements Interpreter::requirements(const json::object& object) const {
  if (!entry_.requirements) return {};
  return entry_.requirements(object);
}

std::string Interpreter::reviseReplicas(json::object& object, const Share& share) const {
  if (!entry_.reviseReplicas) return {};
  return entry_.reviseReplicas(object, share);
}

json::object Interpreter::memberTemplate(const json::object& source) const {
  json::object out = source;
  // The kind's own pruning first: it may read what the generic part removes (managedFields,
  // last-applied-configuration) to tell what the user wrote from what the server filled in.
  if (entry_.prune) entry_.prune(out);
  out.erase("status");
  if (auto* metadata = out.if_contains("metadata"); metadata && metadata->is_object()) {
    json::object kept;
    for (const char* key : {"name", "namespace", "labels", "annotations"}) {
      if (auto* v = metadata->as_object().if_contains(key)) kept[key] = *v;
    }
    if (auto* annotations = kept.if_contains("annotations");
        annotations && annotations->is_object()) {
      annotations->as_object().erase("kubectl.kubernetes.io/last-applied-configuration");
      if (annotations->as_object().empty()) kept.erase("annotations");
    }
    out["metadata"] = std::move(kept);
  }
  return out;
}

void Interpreter::retain(json::object& desired, const json::object& live) const {
  if (entry_.retain) entry_.retain(desired, live);
}

HealthReport Interpreter::health(const json::object* member) const {
  if (member == nullptr) return {Health::kUnknown, "not on the cluster"};
  if (u::find(*member, {"metadata", "deletionTimestamp"}) != nullptr)
    return {Health::kProgressing, "being deleted"};
  if (!entry_.health) return {Health::kHealthy, ""};
  return entry_.health(*member);
}

std::optional<json::object> Interpreter::aggregateStatus(
    const json::object& source, const std::vector<MemberObject>& members) const {
  if (!entry_.aggregateStatus) return std::nullopt;
  return entry_.aggregateStatus(source, members);
}

Followers Interpreter::dependencies(const json::object& object) const {
  Followers out = annotatedFollowers(object);
  if (entry_.dependencies) {
    auto own = entry_.dependencies(object);
    out.followers.insert(out.followers.end(), own.begin(), own.end());
    normalize(out.followers);
  }
  return out;
}

void Registry::add(KindEntry entry) {
  auto key = std::make_pair(entry.group, entry.kind);
  entries_.insert_or_assign(std::move(key), std::move(entry));
}

Interpreter Registry::of(std::string_view apiVersion, std::string_view kind) const {
  auto it = entries_.find(std::make_pair(std::string(u::groupOf(apiVersion)), std::string(kind)));
  return Interpreter(it == entries_.end() ? generic_ : it->second);
}

bool Registry::has(std::string_view group, std::string_view kind) const {
  return entries_.count(std::make_pair(std::string(group), std::string(kind))) != 0;
}

const Registry& Registry::builtIn() {
  static const Registry registry = [] {
    Registry r;
    addWorkloadKinds(r);
    addCoreKinds(r);
    addServiceKinds(r);
    addRbacKinds(r);
    addExtensionKinds(r);
    addAvailabilityKinds(r);
    return r;
  }();
  return registry;
}

}  // namespace flotilla::interpreter
