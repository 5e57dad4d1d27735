#include "interpreter/dependencies.h"

#include <algorithm>
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "api/unstructured.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

bool optionalRef(const json::object& ref) {
  const auto* v = ref.if_contains("optional");
  return v && v->is_bool() && v->as_bool();
}

void add(std::vector<Dependency>& out, const char* kind, const std::string& ns,
         const std::string& name, bool optional = false) {
  if (name.empty()) return;
  out.push_back({"v1", kind, ns, name, optional});
}

// A named reference object ({name, optional}) at `path` under `in`.
void addRef(std::vector<Dependency>& out, const json::object& in,
            std::initializer_list<std::string_view> path, const char* kind, const std::string& ns,
            std::string_view nameField = "name") {
  const json::object* ref = u::findObject(in, path);
  if (!ref) return;
  add(out, kind, ns, u::stringAt(*ref, {nameField}), optionalRef(*ref));
}

void containerDependencies(const json::object& container, const std::string& ns,
                           std::vector<Dependency>& out) {
  if (const json::array* env = u::findArray(container, {"env"})) {
    for (const auto& e : *env) {
      if (!e.is_object()) continue;
      addRef(out, e.as_object(), {"valueFrom", "configMapKeyRef"}, "ConfigMap", ns);
      addRef(out, e.as_object(), {"valueFrom", "secretKeyRef"}, "Secret", ns);
    }
  }
  if (const json::array* envFrom = u::findArray(container, {"envFrom"})) {
    for (const auto& e : *envFrom) {
      if (!e.is_object()) continue;
      addRef(out, e.as_object(), {"configMapRef"}, "ConfigMap", ns);
      addRef(out, e.as_object(), {"secretRef"}, "Secret", ns);
    }
  }
}

void volumeDependencies(const json::object& volume, const std::string& ns,
                        std::vector<Dependency>& out) {
  addRef(out, volume, {"configMap"}, "ConfigMap", ns);
  addRef(out, volume, {"secret"}, "Secret", ns, "secretName");
  // A CSI driver's mount secret (the secrets-store driver's, for one): the mount fails without it.
  addRef(out, volume, {"csi", "nodePublishSecretRef"}, "Secret", ns);
  if (const json::object* claim = u::findObject(volume, {"persistentVolumeClaim"}))
    add(out, "PersistentVolumeClaim", ns, u::stringAt(*claim, {"claimName"}));
  if (const json::array* sources = u::findArray(volume, {"projected", "sources"})) {
    for (const auto& s : *sources) {
      if (!s.is_object()) continue;
      addRef(out, s.as_object(), {"configMap"}, "ConfigMap", ns);
      addRef(out, s.as_object(), {"secret"}, "Secret", ns);
    }
  }
}

std::string coreApiVersion(std::string_view kind) {
  for (const char* core :
       {"ConfigMap", "Secret", "Service", "ServiceAccount", "PersistentVolumeClaim"})
    if (kind == core) return "v1";
  return "";
}

}  // namespace

void normalize(std::vector<Dependency>& deps) {
  // Required before optional for the same object, then keep the first of each object.
  std::sort(deps.begin(), deps.end());
  std::vector<Dependency> out;
  for (auto& d : deps) {
    if (!out.empty() && out.back().apiVersion == d.apiVersion && out.back().kind == d.kind &&
        out.back().ns == d.ns && out.back().name == d.name)
      continue;
    out.push_back(std::move(d));
  }
  deps = std::move(out);
}

std::vector<Dependency> podSpecDependencies(const json::object& podSpec, const std::string& ns) {
  std::vector<Dependency> out;
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    if (const json::array* containers = u::findArray(podSpec, {list}))
      for (const auto& c : *containers)
        if (c.is_object()) containerDependencies(c.as_object(), ns, out);
  }
  if (const json::array* volumes = u::findArray(podSpec, {"volumes"}))
    for (const auto& v : *volumes)
      if (v.is_object()) volumeDependencies(v.as_object(), ns, out);
  if (const json::array* pullSecrets = u::findArray(podSpec, {"imagePullSecrets"}))
    for (const auto& s : *pullSecrets)
      if (s.is_object()) add(out, "Secret", ns, u::stringAt(s.as_object(), {"name"}));
  // serviceAccount is the deprecated alias the API server still fills in.
  std::string account = u::stringAt(podSpec, {"serviceAccountName"});
  if (account.empty()) account = u::stringAt(podSpec, {"serviceAccount"});
  if (account != "default") add(out, "ServiceAccount", ns, account);
  normalize(out);
  return out;
}

Followers annotatedFollowers(const json::object& object) {
  Followers out;
  const std::string text = u::stringAt(object, {"metadata", "annotations", kFollowersAnnotation});
  if (text.empty()) return out;
  const std::string ns = u::stringAt(object, {"metadata", "namespace"});
  boost::system::error_code ec;
  const json::value parsed = json::parse(text, ec);
  if (ec || !parsed.is_array()) {
    out.problems.push_back(std::string(kFollowersAnnotation) +
                           " is not a JSON list of {\"kind\", \"name\"}");
    return out;
  }
  size_t i = 0;
  for (const auto& entry : parsed.as_array()) {
    const std::string at = std::string(kFollowersAnnotation) + "[" + std::to_string(i++) + "]";
    if (!entry.is_object()) {
      out.problems.push_back(at + " is not an object");
      continue;
    }
    const std::string kind = u::stringAt(entry.as_object(), {"kind"});
    const std::string name = u::stringAt(entry.as_object(), {"name"});
    std::string apiVersion = u::stringAt(entry.as_object(), {"apiVersion"});
    if (apiVersion.empty()) apiVersion = coreApiVersion(kind);
    if (kind.empty() || name.empty()) {
      out.problems.push_back(at + " needs a kind and a name");
    } else if (apiVersion.empty()) {
      out.problems.push_back(at + " (" + kind + " " + name +
                             ") needs an apiVersion: it is not a core kind");
    } else {
      out.followers.push_back({apiVersion, kind, ns, name, false});
    }
  }
  normalize(out.followers);
  return out;
}

bool mayFollow(const json::object& object) {
  return u::stringAt(object, {"metadata", "annotations", kFollowAnnotation}) != "false";
}

std::vector<Dependency> selectingServices(const json::object& podLabels,
                                          const std::vector<const json::object*>& services) {
  std::vector<Dependency> out;
  for (const json::object* service : services) {
    if (!service) continue;
    const json::object* selector = u::findObject(*service, {"spec", "selector"});
    // A Service without a selector routes to endpoints someone else manages: it selects nothing.
    if (!selector || selector->empty()) continue;
    const bool matches = std::all_of(selector->begin(), selector->end(), [&](const auto& kv) {
      const auto* label = podLabels.if_contains(kv.key());
      return label && *label == kv.value();
    });
    if (!matches) continue;
    out.push_back({"v1", "Service", u::stringAt(*service, {"metadata", "namespace"}),
                   u::stringAt(*service, {"metadata", "name"}), false});
  }
  normalize(out);
  return out;
}

}  // namespace flotilla::interpreter
