#include "controllers/sync/member_object.h"

#include <boost/json/serialize.hpp>
#include <cstdio>

#include "api/json_codec.h"
#include "api/patch.h"
#include "api/quantity.h"
#include "controllers/common/managed.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;

namespace {

std::string hashOf(const std::string& text) {
  uint64_t h = 14695981039346656037ull;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

json::object& objectAt(json::object& o, const char* key) {
  auto& v = o[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

bool numbersEqual(const json::value& a, const json::value& b) {
  if (a.is_double() || b.is_double()) {
    const double x = a.is_double()  ? a.as_double()
                     : a.is_int64() ? double(a.as_int64())
                                    : double(a.as_uint64());
    const double y = b.is_double()  ? b.as_double()
                     : b.is_int64() ? double(b.as_int64())
                                    : double(b.as_uint64());
    return x == y;
  }
  if (a.is_int64() && b.is_int64()) return a.as_int64() == b.as_int64();
  if (a.is_uint64() && b.is_uint64()) return a.as_uint64() == b.as_uint64();
  const auto& i = a.is_int64() ? a : b;
  const auto& u = a.is_int64() ? b : a;
  return i.as_int64() >= 0 && static_cast<uint64_t>(i.as_int64()) == u.as_uint64();
}

}  // namespace

api::Result<json::object> applyOverrides(json::object object,
                                         const std::vector<api::ClusterOverride>& overrides,
                                         const std::string& cluster) {
  json::value patched = std::move(object);
  for (const auto& o : overrides) {
    if (o.clusterName != cluster) continue;
    for (size_t i = 0; i < o.patches.size(); ++i) {
      const auto& p = o.patches[i];
      json::object op{{"op", p.op}, {"path", p.path}};
      if (!p.from.empty()) op["from"] = p.from;
      if (p.op == "add" || p.op == "replace" || p.op == "test") op["value"] = p.value;
      json::array ops{op};
      auto next = api::applyJsonPatch(patched, ops);
      if (!next) {
        return api::Error{api::reason::kInvalid,
                          422,
                          "override patch " + std::to_string(i) + " (" + p.op + " " + p.path +
                              ") for " + cluster + ": " + next.error().message,
                          {}};
      }
      patched = std::move(*next);
    }
  }
  if (!patched.is_object()) {
    return api::Error{api::reason::kInvalid,
                      422,
                      "the overrides for " + cluster + " did not leave an object",
                      {}};
  }
  return std::move(patched.as_object());
}

void markMemberObject(json::object& object, const std::string& bindingKey,
                      const std::string& cluster, const std::string& hostId,
                      const std::string& sourceGeneration) {
  auto& m = objectAt(object, "metadata");
  auto& labels = objectAt(m, "labels");
  labels[kManagedByLabel] = kManagedByValue;
  labels[kBindingLabel] = bindingHash(bindingKey);
  labels[kClusterLabel] = cluster;
  if (!hostId.empty()) labels[kHostLabel] = hostId;
  auto& annotations = objectAt(m, "annotations");
  annotations[kBindingAnnotation] = bindingKey;
  if (!sourceGeneration.empty()) annotations[kSourceGenerationAnnotation] = sourceGeneration;
  annotations.erase(kAppliedHashAnnotation);
  const std::string hash = hashOf(json::serialize(object));
  objectAt(objectAt(object, "metadata"), "annotations")[kAppliedHashAnnotation] = hash;
}

void clearReservedAnnotations(json::object& object) {
  auto* meta = object.if_contains("metadata");
  auto* a = meta && meta->is_object() ? meta->as_object().if_contains("annotations") : nullptr;
  if (!a || !a->is_object()) return;
  for (const char* reserved : {"flotilla.io/adopted", "flotilla.io/released-by",
                               "flotilla.io/released-host", "flotilla.io/released-generation"})
    a->as_object().erase(reserved);
  if (a->as_object().empty()) meta->as_object().erase("annotations");
}

void setAppliedOverrides(json::object& object, const std::vector<std::string>& policies) {
  auto& meta = objectAt(object, "metadata");
  if (policies.empty()) {
    if (auto* a = meta.if_contains("annotations"); a && a->is_object()) {
      a->as_object().erase(override::kAppliedOverridesAnnotation);
      if (a->as_object().empty()) meta.erase("annotations");
    }
    return;
  }
  objectAt(meta, "annotations")[override::kAppliedOverridesAnnotation] =
      override::appliedList(policies);
}

api::Result<json::object> desiredMemberDeployment(const api::FederatedDeployment& fd,
                                                  const std::string& bindingKey,
                                                  const std::string& cluster, int32_t replicas,
                                                  const std::string& hostId,
                                                  const std::vector<override::RuleRef>& rules,
                                                  override::OverrideResult* overrides) {
  // The template as JSON, through the whole FederatedDeployment (its codec is instantiated).
  auto whole = api::encode(fd);
  json::object tmpl;
  if (const auto* spec = whole.as_object().if_contains("spec"); spec && spec->is_object()) {
    if (const auto* t = spec->as_object().if_contains("template"); t && t->is_object())
      tmpl = t->as_object();
  }
  json::object out;
  out["apiVersion"] = "apps/v1";
  out["kind"] = "Deployment";
  json::object meta;
  meta["name"] = fd.metadata.name;
  meta["namespace"] = fd.metadata.namespace_;
  if (const auto* m = tmpl.if_contains("metadata"); m && m->is_object()) {
    for (const char* field : {"labels", "annotations"}) {
      if (const auto* v = m->as_object().if_contains(field)) meta[field] = *v;
    }
  }
  out["metadata"] = std::move(meta);
  json::object spec;
  if (const auto* s = tmpl.if_contains("spec"); s && s->is_object()) spec = s->as_object();
  spec["replicas"] = replicas;
  out["spec"] = std::move(spec);

  override::OverrideResult byPolicies;
  if (!rules.empty()) byPolicies = override::applyRules(out, rules);
  if (byPolicies.error) return api::Error{api::reason::kInvalid, 422, *byPolicies.error, {}};
  auto overridden = applyOverrides(std::move(out), fd.spec.overrides, cluster);
  if (!overridden) return overridden.error();
  json::object result = std::move(*overridden);
  // What overrides must not change: identity and Flotilla's marks.
  result["apiVersion"] = "apps/v1";
  result["kind"] = "Deployment";
  auto& m = objectAt(result, "metadata");
  m["name"] = fd.metadata.name;
  m["namespace"] = fd.metadata.namespace_;
  // The pods carry the marks too (a ReplicaSet copies the template's labels): auto-migration finds
  // a workload's ReplicaSets and pods on a member by them, through an index, without reading
  // every pod's owner chain. Extra template labels do not touch the selector.
  auto& podLabels =
      objectAt(objectAt(objectAt(objectAt(result, "spec"), "template"), "metadata"), "labels");
  podLabels[kManagedByLabel] = kManagedByValue;
  podLabels[kBindingLabel] = bindingHash(bindingKey);
  clearReservedAnnotations(result);
  setAppliedOverrides(result, byPolicies.applied);
  if (overrides) *overrides = std::move(byPolicies);
  auto gen = fd.metadata.annotations.find(kSourceGenerationAnnotation);
  markMemberObject(result, bindingKey, cluster, hostId,
                   gen == fd.metadata.annotations.end() ? "" : gen->second);
  return result;
}

json::object memberNamespace(const json::object& hostNamespace) {
  json::object labels{{kManagedByLabel, kManagedByValue}};
  std::string name;
  if (const auto* meta = hostNamespace.if_contains("metadata"); meta && meta->is_object()) {
    if (const auto* n = meta->as_object().if_contains("name"); n && n->is_string())
      name = n->as_string();
    if (const auto* l = meta->as_object().if_contains("labels"); l && l->is_object()) {
      for (const auto& [key, value] : l->as_object()) {
        if (key.starts_with("pod-security.kubernetes.io/") && value.is_string())
          labels[key] = value;
      }
    }
  }
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata",
           json::object{{"name", name},
                        {"labels", std::move(labels)},
                        {"annotations", json::object{{kCreatedNamespaceAnnotation, "true"}}}}}};
}

bool flotillaNamespace(const json::object& memberNamespace) {
  const auto* meta = memberNamespace.if_contains("metadata");
  if (!meta || !meta->is_object()) return false;
  const auto* labels = meta->as_object().if_contains("labels");
  if (!labels || !labels->is_object()) return false;
  const auto* v = labels->as_object().if_contains(kManagedByLabel);
  return v && v->is_string() && v->as_string() == kManagedByValue;
}

namespace {

bool scalarHolds(const json::value& live, const json::value& desired) {
  if (desired.is_number() && live.is_number()) return numbersEqual(live, desired);
  if (desired.is_string() && live.is_string()) {
    if (live.as_string() == desired.as_string()) return true;
    // The API server stores quantities canonically ("0.5" -> "500m").
    auto a = api::Quantity::parse(std::string_view(live.as_string()));
    auto b = api::Quantity::parse(std::string_view(desired.as_string()));
    return a && b && *a == *b;
  }
  return live == desired;
}

std::string firstDifference(const json::value& live, const json::value& desired,
                            const std::string& path) {
  if (desired.is_object()) {
    if (!live.is_object()) return path.empty() ? "(root)" : path;
    const auto& l = live.as_object();
    for (const auto& [k, v] : desired.as_object()) {
      const std::string here = path.empty() ? std::string(k) : path + "." + std::string(k);
      const auto* lv = l.if_contains(k);
      if (!lv || lv->is_null()) {
        // An empty object or list we set is what the server stores as absent.
        if ((v.is_object() && v.as_object().empty()) || (v.is_array() && v.as_array().empty()) ||
            v.is_null())
          continue;
        return here;
      }
      if (auto d = firstDifference(*lv, v, here); !d.empty()) return d;
    }
    return "";
  }
  if (desired.is_array()) {
    if (!live.is_array() || live.as_array().size() != desired.as_array().size())
      return path.empty() ? "(root)" : path;
    for (size_t i = 0; i < desired.as_array().size(); ++i) {
      if (auto d = firstDifference(live.as_array()[i], desired.as_array()[i],
                                   path + "[" + std::to_string(i) + "]");
          !d.empty())
        return d;
    }
    return "";
  }
  return scalarHolds(live, desired) ? "" : (path.empty() ? "(root)" : path);
}

}  // namespace

std::string difference(const json::value& live, const json::value& desired) {
  return firstDifference(live, desired, "");
}

bool holds(const json::value& live, const json::value& desired) {
  return difference(live, desired).empty();
}

}  // namespace flotilla::controllers::sync
