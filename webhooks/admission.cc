#include "webhooks/admission.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <exception>
#include <functional>
#include <map>

#include "api/json_codec.h"
#include "api/patch.h"
#include "api/unstructured.h"
#include "api/validation.h"
#include "scheduler/framework/registry.h"
#include "webhooks/defaults_patch.h"

namespace flotilla::webhooks {
namespace json = boost::json;

namespace {

constexpr std::string_view kValidatePrefix = "/validate-flotilla-io-v1alpha1-";
constexpr std::string_view kMutatePrefix = "/mutate-flotilla-io-v1alpha1-";

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// kube-apiserver's Invalid message: `Kind.group "name" is invalid: e` or `...: [e1, e2]`.
std::string invalidMessage(const std::string& kind, const std::string& name,
                           const api::FieldErrors& errors) {
  std::string list;
  for (const auto& e : errors) list += (list.empty() ? "" : ", ") + e.str();
  if (errors.size() > 1) list = "[" + list + "]";
  return kind + "." + api::kGroup + " \"" + name + "\" is invalid: " + list;
}

// Denials are 403 Forbidden, the status controller-runtime and policy engines deny with, so that
// kubectl prints the webhook's name and the whole message; the field errors travel as causes.
AdmissionResponse deny(const AdmissionRequest& request, const std::string& kind,
                       const std::string& name, api::FieldErrors errors) {
  std::string message = invalidMessage(kind, name, errors);
  return denied(request.uid,
                api::Error{api::reason::kForbidden, 403, std::move(message), std::move(errors)});
}

std::string objectName(const AdmissionRequest& request) {
  if (!request.name.empty()) return request.name;
  if (request.object.is_object()) {
    const json::value* meta = request.object.as_object().if_contains("metadata");
    if (meta && meta->is_object()) {
      const json::value* name = meta->as_object().if_contains("name");
      if (name && name->is_string()) return std::string(name->as_string());
    }
  }
  return "";
}

bool isDeleting(const json::value& object) {
  const json::value* meta =
      object.is_object() ? object.as_object().if_contains("metadata") : nullptr;
  const json::value* stamp =
      meta && meta->is_object() ? meta->as_object().if_contains("deletionTimestamp") : nullptr;
  return stamp && !stamp->is_null();
}

// Checks beyond the object's own rules, for the kinds that have them.
struct Extra {
  api::FieldErrors errors;
  std::vector<std::string> warnings;
  std::vector<ServedQuestion> served;
};

template <class T>
Extra extraChecks(const T&, const ClusterView&) {
  return {};
}

// The scheduler builds the profile the same way: plugins that do not implement an extension
// point and pluginConfig args a plugin rejects are caught here instead of at scheduling time.
template <>
Extra extraChecks(const api::SchedulingProfile& profile, const ClusterView&) {
  Extra extra;
  auto built = scheduler::buildProfile(profile);
  if (!built) {
    extra.errors = built.error().causes;
    if (extra.errors.empty()) extra.errors.push_back({"spec", built.error().message});
  }
  return extra;
}

template <class Policy>
Extra policyWarnings(const Policy& policy, const ClusterView& cluster) {
  Extra extra;
  const std::string& name = policy.spec.schedulingProfile;
  if (!name.empty() && cluster.schedulingProfileExists(name) == false)
    extra.warnings.push_back("spec.schedulingProfile: SchedulingProfile \"" + name +
                             "\" does not exist; bindings of this policy stay unscheduled "
                             "until it is created");
  return extra;
}
template <>
Extra extraChecks(const api::PropagationPolicy& p, const ClusterView& c) {
  return policyWarnings(p, c);
}
template <>
Extra extraChecks(const api::ClusterPropagationPolicy& p, const ClusterView& c) {
  return policyWarnings(p, c);
}

// A selector naming a kind the host does not serve (a CRD not installed yet, a wrong apiVersion)
// selects nothing, and the policy would change nothing without a word (Karmada #4650): admitted,
// since the CRD may come later, with a warning kubectl prints. The host's discovery is asked by
// the webhook server after this decision (it is I/O), one question per distinct kind.
template <class Policy>
Extra overrideQuestions(const Policy& policy) {
  Extra extra;
  const auto& selectors = policy.spec.resourceSelectors;
  for (size_t i = 0; i < selectors.size(); ++i) {
    const auto& s = selectors[i];
    if (s.apiVersion.empty() || s.kind.empty()) continue;  // (validation says so)
    const bool asked = std::any_of(extra.served.begin(), extra.served.end(), [&](const auto& q) {
      return q.apiVersion == s.apiVersion && q.kind == s.kind;
    });
    if (!asked)
      extra.served.push_back(
          {"spec.resourceSelectors[" + std::to_string(i) + "]", s.apiVersion, s.kind});
  }
  return extra;
}
template <>
Extra extraChecks(const api::OverridePolicy& p, const ClusterView&) {
  return overrideQuestions(p);
}
template <>
Extra extraChecks(const api::ClusterOverridePolicy& p, const ClusterView&) {
  return overrideQuestions(p);
}

// What the requesting user must be allowed to do themselves (docs/security.md, H1). A
// FederatedCluster names a credentials Secret the operator will read and send to the cluster's
// apiEndpoint, so its author must be able to read that Secret, as the API server asks of a Pod's
// author for a Secret the Pod mounts. Asked on create and whenever secretRef, apiEndpoint or
// insecureSkipTLSVerify change (`old`: the object before an UPDATE, after defaulting). Federated
// objects ask for their template (templateAccess below).
template <class T>
std::vector<AccessCheck> requiredAccess(const T&, const T*) {
  return {};
}
template <>
std::vector<AccessCheck> requiredAccess(const api::FederatedCluster& fc,
                                        const api::FederatedCluster* old) {
  const auto& s = fc.spec;
  if (old && old->spec.secretRef.namespace_ == s.secretRef.namespace_ &&
      old->spec.secretRef.name == s.secretRef.name && old->spec.apiEndpoint == s.apiEndpoint &&
      old->spec.insecureSkipTLSVerify == s.insecureSkipTLSVerify)
    return {};
  return {{.verb = "get",
           .group = "",
           .resource = "secrets",
           .namespace_ = s.secretRef.namespace_,
           .name = s.secretRef.name,
           .why = "spec.secretRef names it as the credentials the operator sends to " +
                  (s.apiEndpoint.empty() ? std::string("the cluster") : s.apiEndpoint),
           .rule = "only someone who may read the Secret may name it"}};
}

// A federated object's template is written on the members with the operator's credentials: its
// author must be allowed to write that object on the host themselves (docs/security.md,
// "FederatedObject templates"), and for RBAC kinds, to bind the role a binding grants or to
// escalate through a role (stricter than the API server, which also accepts holding every
// permission of the role: that cannot be asked in one review). Asked on create and whenever the
// template changes.
std::vector<AccessCheck> templateAccess(const boost::json::object& tmpl, const std::string& ns,
                                        bool namespaced, const boost::json::object* oldTmpl,
                                        const std::string& ownKind) {
  if (oldTmpl && *oldTmpl == tmpl) return {};
  namespace u = api::unstructured;
  const std::string apiVersion = u::stringAt(tmpl, {"apiVersion"});
  const std::string kind = u::stringAt(tmpl, {"kind"});
  const std::string name = u::stringAt(tmpl, {"metadata", "name"});
  const std::string why = "spec.template holds it, which the operator writes on the members";
  const std::string rule = "a " + ownKind + " may hold only what its author may write on the host";
  std::vector<AccessCheck> out{{.verb = oldTmpl ? "update" : "create",
                                .namespace_ = ns,
                                .name = name,
                                .why = why,
                                .rule = rule,
                                .apiVersion = apiVersion,
                                .kind = kind,
                                .namespaced = namespaced}};
  if (u::groupOf(apiVersion) != "rbac.authorization.k8s.io") return out;
  const std::string rbac = "rbac.authorization.k8s.io";
  if (kind == "Role" || kind == "ClusterRole") {
    out.push_back({.verb = "escalate",
                   .group = rbac,
                   .resource = kind == "Role" ? "roles" : "clusterroles",
                   .namespace_ = ns,
                   .name = name,
                   .why = why + " and it grants permissions",
                   .rule = "only someone who may escalate through roles may federate one"});
  } else if (kind == "RoleBinding" || kind == "ClusterRoleBinding") {
    const std::string roleKind = u::stringAt(tmpl, {"roleRef", "kind"});
    out.push_back({.verb = "bind",
                   .group = rbac,
                   .resource = roleKind == "Role" ? "roles" : "clusterroles",
                   .namespace_ = roleKind == "Role" || kind == "RoleBinding" ? ns : "",
                   .name = u::stringAt(tmpl, {"roleRef", "name"}),
                   .why = why + " and it binds that role",
                   .rule = "only someone who may bind a role may federate a binding to it"});
  }
  return out;
}

// What each cluster receives is the template with that cluster's overrides: an override may
// change what the object grants (a RoleBinding's roleRef), so every cluster's object is asked
// for, whenever the template or the overrides change.
std::vector<AccessCheck> federatedAccess(const api::FederatedObjectSpec& spec,
                                         const api::FederatedObjectSpec* old, const std::string& ns,
                                         bool namespaced, const std::string& ownKind) {
  const auto overridesOf = [](const api::FederatedObjectSpec& s) {
    api::FederatedObject only;  // (the codec is instantiated for whole objects)
    only.spec.overrides = s.overrides;
    return api::encode(only);
  };
  if (old && old->template_ == spec.template_ && overridesOf(*old) == overridesOf(spec)) return {};
  std::vector<AccessCheck> out =
      templateAccess(spec.template_, ns, namespaced, old ? &old->template_ : nullptr, ownKind);
  if (out.empty())  // the template is unchanged: its overrides changed; ask as for an update
    out = templateAccess(spec.template_, ns, namespaced, nullptr, ownKind);
  for (const auto& o : spec.overrides) {
    json::array ops;
    for (const auto& p : o.patches) {
      json::object op{{"op", p.op}, {"path", p.path}};
      if (!p.from.empty()) op["from"] = p.from;
      if (p.op == "add" || p.op == "replace" || p.op == "test") op["value"] = p.value;
      ops.push_back(std::move(op));
    }
    auto patched = api::applyJsonPatch(json::value(spec.template_), ops);
    if (!patched || !patched->is_object()) continue;  // the sync reports it for that cluster
    for (auto& check : templateAccess(patched->as_object(), ns, namespaced, nullptr, ownKind)) {
      check.why += " (with the overrides of cluster " + o.clusterName + ")";
      if (std::find(out.begin(), out.end(), check) == out.end()) out.push_back(std::move(check));
    }
  }
  return out;
}

template <>
std::vector<AccessCheck> requiredAccess(const api::FederatedObject& fo,
                                        const api::FederatedObject* old) {
  return federatedAccess(fo.spec, old ? &old->spec : nullptr, fo.metadata.namespace_, true,
                         "FederatedObject");
}

template <>
std::vector<AccessCheck> requiredAccess(const api::ClusterFederatedObject& cfo,
                                        const api::ClusterFederatedObject* old) {
  return federatedAccess(cfo.spec, old ? &old->spec : nullptr, "", false, "ClusterFederatedObject");
}

template <class T>
AdmissionResponse admitKind(const Route& route, const AdmissionRequest& request,
                            const ClusterView& cluster) {
  AdmissionResponse allowed;
  allowed.uid = request.uid;
  if (request.operation != "CREATE" && request.operation != "UPDATE") return allowed;
  const std::string name = objectName(request);
  if (!request.object.is_object())
    return deny(request, route.kind, name, {{"", "request.object is missing"}});

  // Unknown fields are the API server's to prune (the CRD's structural schema); the types and
  // values of the fields Flotilla reads are ours to check.
  T object;
  if (auto errors = api::decodeInto(request.object, object); !errors.empty())
    return deny(request, route.kind, name, std::move(errors));

  if (route.mutating) {
    const json::value before = api::encode(object);
    api::setDefaults(object);
    const json::value after = api::encode(object);
    json::array ops = defaultsPatch(request.object, before, after);
    if (!ops.empty()) allowed.patch = json::value(std::move(ops));
    return allowed;
  }

  // Validation sees what the mutating webhook would have made of the object, as flotillactl.
  api::setDefaults(object);
  api::FieldErrors errors = api::validate(object);
  Extra extra = extraChecks(object, cluster);
  if (errors.empty()) errors = std::move(extra.errors);  // the extra checks assume a valid object
  if (!errors.empty() && request.operation == "UPDATE") {
    // Ratcheting, as kube-apiserver does for CRD validation: an update is denied only for what
    // it makes wrong. An object stored before a rule existed (or before the webhooks were
    // installed) can still get its finalizer removed, its status-like fields and taints updated.
    if (isDeleting(request.object)) {
      // Still no new credentials target without the Secret's reader (docs/security.md, H1).
      std::optional<T> before;
      if (request.oldObject.is_object()) {
        T decoded;
        if (api::decodeInto(request.oldObject, decoded).empty()) {
          api::setDefaults(decoded);
          before = std::move(decoded);
        }
      }
      allowed.requiredAccess = requiredAccess(object, before ? &*before : nullptr);
      return allowed;
    }
    T old;
    if (request.oldObject.is_object() && api::decodeInto(request.oldObject, old).empty()) {
      api::setDefaults(old);
      api::FieldErrors before = api::validate(old);
      if (before.empty()) before = extraChecks(old, cluster).errors;
      std::erase_if(errors, [&before](const api::FieldError& e) {
        return std::find(before.begin(), before.end(), e) != before.end();
      });
    }
  }
  if (!errors.empty()) return deny(request, route.kind, name, std::move(errors));
  allowed.warnings = std::move(extra.warnings);
  allowed.servedQuestions = std::move(extra.served);
  std::optional<T> old;
  if (request.operation == "UPDATE" && request.oldObject.is_object()) {
    T decoded;
    if (api::decodeInto(request.oldObject, decoded).empty()) {
      api::setDefaults(decoded);
      old = std::move(decoded);
    }
  }
  allowed.requiredAccess = requiredAccess(object, old ? &*old : nullptr);
  return allowed;
}

using Handler =
    std::function<AdmissionResponse(const Route&, const AdmissionRequest&, const ClusterView&)>;

const std::map<std::string, Handler>& handlers() {
  static const std::map<std::string, Handler> table = {
      {"FederatedCluster", admitKind<api::FederatedCluster>},
      {"PropagationPolicy", admitKind<api::PropagationPolicy>},
      {"ClusterPropagationPolicy", admitKind<api::ClusterPropagationPolicy>},
      {"FederatedDeployment", admitKind<api::FederatedDeployment>},
      {"ResourceBinding", admitKind<api::ResourceBinding>},
      {"FederatedObject", admitKind<api::FederatedObject>},
      {"ClusterFederatedObject", admitKind<api::ClusterFederatedObject>},
      {"ClusterResourceBinding", admitKind<api::ClusterResourceBinding>},
      {"SchedulingProfile", admitKind<api::SchedulingProfile>},
      {"SchedulerExtender", admitKind<api::SchedulerExtender>},
      {"OverridePolicy", admitKind<api::OverridePolicy>},
      {"ClusterOverridePolicy", admitKind<api::ClusterOverridePolicy>},
  };
  return table;
}

}  // namespace

const std::vector<std::string>& admittedKinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> out;
    for (const auto& [kind, handler] : handlers()) out.push_back(kind);
    return out;
  }();
  return kinds;
}

std::optional<Route> routeFor(std::string_view path) {
  for (const auto& [prefix, mutating] :
       {std::pair{kValidatePrefix, false}, {kMutatePrefix, true}}) {
    if (path.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = path.substr(prefix.size());
    for (const auto& kind : admittedKinds())
      if (lower(kind) == rest) return Route{kind, mutating};
  }
  return std::nullopt;
}

std::string pathFor(const Route& route) {
  return std::string(route.mutating ? kMutatePrefix : kValidatePrefix) + lower(route.kind);
}

AdmissionResponse admit(const Route& route, const AdmissionRequest& request,
                        const ClusterView& cluster) {
  if (request.kind.group != api::kGroup || request.kind.kind != route.kind) {
    return denied(request.uid,
                  api::badRequest("this endpoint admits " + route.kind + "." + api::kGroup +
                                  ", the request is for " + request.kind.kind + "." +
                                  (request.kind.group.empty() ? "core" : request.kind.group) +
                                  " (check the webhook configuration's rules)"));
  }
  const auto& table = handlers();
  auto it = table.find(route.kind);
  if (it == table.end())
    return denied(request.uid, api::badRequest("no webhook for kind " + route.kind));
  try {
    return it->second(route, request, cluster);
  } catch (const std::exception& e) {
    // A defect in a decision must not take the server down or admit the object.
    return denied(
        request.uid,
        api::Error{
            api::reason::kInternalError, 500, std::string("internal error: ") + e.what(), {}});
  }
}

}  // namespace flotilla::webhooks
