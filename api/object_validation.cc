#include "api/object_validation.h"

#include <functional>

#include "api/json_codec.h"
#include "api/names.h"
#include "api/validation.h"

namespace flotilla::api {
namespace {

namespace json = boost::json;

using Check = std::function<FieldErrors(const json::value&)>;

// Decode strictly (a misspelt field is an error, as with `kubectl apply --validate=strict`),
// default, then validate: the order the API server runs mutating and validating admission.
template <class T>
FieldErrors checkKind(const json::value& v) {
  T object;
  FieldErrors errors = decodeInto(v, object, {.rejectUnknownFields = true});
  if (!errors.empty()) return errors;
  if constexpr (requires { setDefaults(object); }) setDefaults(object);
  return validate(object);
}

// Kinds we only carry alongside ours (the Secret holding member credentials, the namespace
// of the demo): the name rules are all that matters to Flotilla.
FieldErrors checkNameOnly(const json::value& v, bool namespaced) {
  FieldErrors errors;
  const json::value* meta = v.as_object().if_contains("metadata");
  const json::value* name =
      meta && meta->is_object() ? meta->as_object().if_contains("name") : nullptr;
  if (!name || !name->is_string() || name->as_string().empty()) {
    errors.push_back({"metadata.name", "Required value"});
  } else {
    std::string n(name->as_string());
    bool ok = namespaced ? isDns1123Subdomain(n) : isDns1123Label(n);
    if (!ok)
      errors.push_back(
          {"metadata.name", namespaced ? dns1123SubdomainMessage(n) : dns1123LabelMessage(n)});
  }
  return errors;
}

struct KindEntry {
  const char* apiVersion;
  const char* kind;
  Check check;
};

const std::vector<KindEntry>& registry() {
  static const std::vector<KindEntry> kinds = {
      {"flotilla.io/v1alpha1", "FederatedCluster", checkKind<FederatedCluster>},
      {"flotilla.io/v1alpha1", "PropagationPolicy", checkKind<PropagationPolicy>},
      {"flotilla.io/v1alpha1", "ClusterPropagationPolicy", checkKind<ClusterPropagationPolicy>},
      {"flotilla.io/v1alpha1", "FederatedDeployment", checkKind<FederatedDeployment>},
      {"flotilla.io/v1alpha1", "ResourceBinding", checkKind<ResourceBinding>},
      {"flotilla.io/v1alpha1", "FederatedObject", checkKind<FederatedObject>},
      {"flotilla.io/v1alpha1", "ClusterFederatedObject", checkKind<ClusterFederatedObject>},
      {"flotilla.io/v1alpha1", "ClusterResourceBinding", checkKind<ClusterResourceBinding>},
      {"flotilla.io/v1alpha1", "SchedulingProfile", checkKind<SchedulingProfile>},
      {"flotilla.io/v1alpha1", "SchedulerExtender", checkKind<SchedulerExtender>},
      {"flotilla.io/v1alpha1", "OverridePolicy", checkKind<OverridePolicy>},
      {"flotilla.io/v1alpha1", "ClusterOverridePolicy", checkKind<ClusterOverridePolicy>},
      {"apps/v1", "Deployment", checkKind<Deployment>},
      {"v1", "Secret", [](const json::value& v) { return checkNameOnly(v, true); }},
      {"v1", "Namespace", [](const json::value& v) { return checkNameOnly(v, false); }},
  };
  return kinds;
}

std::string stringField(const json::object& obj, std::string_view key) {
  const json::value* v = obj.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::string ObjectVerdict::describe() const {
  std::string out = kind.empty() ? "object" : kind;
  if (!name.empty()) out += " " + (namespace_.empty() ? name : namespace_ + "/" + name);
  return out;
}

std::vector<std::string> supportedKinds() {
  std::vector<std::string> out;
  for (const auto& k : registry()) out.push_back(std::string(k.apiVersion) + "/" + k.kind);
  return out;
}

ObjectVerdict validateObject(const json::value& object) {
  ObjectVerdict verdict;
  if (!object.is_object()) {
    verdict.errors.push_back({"", "expected a Kubernetes object (a mapping), got " +
                                      std::string(object.is_array() ? "a list" : "a scalar")});
    return verdict;
  }
  const json::object& obj = object.as_object();
  verdict.apiVersion = stringField(obj, "apiVersion");
  verdict.kind = stringField(obj, "kind");
  if (const json::value* meta = obj.if_contains("metadata"); meta && meta->is_object()) {
    verdict.name = stringField(meta->as_object(), "name");
    verdict.namespace_ = stringField(meta->as_object(), "namespace");
  }
  if (verdict.apiVersion.empty()) verdict.errors.push_back({"apiVersion", "Required value"});
  if (verdict.kind.empty()) verdict.errors.push_back({"kind", "Required value"});
  if (!verdict.errors.empty()) return verdict;
  for (const auto& entry : registry()) {
    if (verdict.kind == entry.kind && verdict.apiVersion == entry.apiVersion) {
      verdict.errors = entry.check(object);
      return verdict;
    }
  }
  verdict.errors.push_back({"kind", "no matches for kind \"" + verdict.kind + "\" in version \"" +
                                        verdict.apiVersion + "\""});
  return verdict;
}

}  // namespace flotilla::api
