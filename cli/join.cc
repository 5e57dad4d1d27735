#include "cli/join.h"

#include <boost/json.hpp>
#include <ostream>

#include "api/base64.h"
#include "api/flotilla_types.h"
#include "api/yaml.h"

namespace flotilla::cli {
namespace json = boost::json;

namespace {

const kube::ResourceId kNamespaces{"", "v1", "namespaces", false, "Namespace"};
const kube::ResourceId kServiceAccounts{"", "v1", "serviceaccounts", true, "ServiceAccount"};
const kube::ResourceId kSecrets{"", "v1", "secrets", true, "Secret"};
const kube::ResourceId kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles", false,
                                     "ClusterRole"};
const kube::ResourceId kClusterRoleBindings{"rbac.authorization.k8s.io", "v1",
                                            "clusterrolebindings", false, "ClusterRoleBinding"};
const kube::ResourceId kFederatedClusters{"flotilla.io", "v1alpha1", "federatedclusters", false,
                                          "FederatedCluster"};
const kube::ResourceId kAccessReviews{"authorization.k8s.io", "v1", "selfsubjectaccessreviews",
                                      false, "SelfSubjectAccessReview"};

const kube::ResourceId& resourceOf(const json::object& object) {
  const auto kind = object.at("kind").as_string();
  for (const auto* r : {&kNamespaces, &kServiceAccounts, &kSecrets, &kClusterRoles,
                        &kClusterRoleBindings, &kFederatedClusters})
    if (r->kind == kind) return *r;
  throw std::logic_error("join: no resource for kind " + std::string(kind));
}

std::string str(const json::object& o, std::initializer_list<const char*> path) {
  const json::value* v = nullptr;
  const json::object* at = &o;
  for (const char* key : path) {
    v = at ? at->if_contains(key) : nullptr;
    if (!v) return "";
    at = v->if_object();
  }
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

json::object meta(const std::string& name, const std::string& ns = "") {
  json::object m{{"name", name}};
  if (!ns.empty()) m["namespace"] = ns;
  return m;
}

json::object rule(std::initializer_list<const char*> groups,
                  std::initializer_list<const char*> resources,
                  std::initializer_list<const char*> verbs) {
  auto list = [](std::initializer_list<const char*> items) {
    json::array a;
    for (const char* i : items) a.emplace_back(i);
    return a;
  };
  return {{"apiGroups", list(groups)}, {"resources", list(resources)}, {"verbs", list(verbs)}};
}

std::string kindPath(const json::object& object) {  // "clusterrole/flotilla-member", kubectl's way
  std::string kind(object.at("kind").as_string());
  for (auto& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return kind + "/" + str(object, {"metadata", "name"});
}

bool isNotFound(const api::Error& e) { return e.code == 404; }

// Applies `object`, printing kubectl's words for what happened: created, configured, unchanged.
bool applyObject(ClusterApi& api, const std::string& where, const json::object& object,
                 std::ostream& out, std::ostream& err) {
  const auto& resource = resourceOf(object);
  const std::string ns = str(object, {"metadata", "namespace"});
  const std::string name = str(object, {"metadata", "name"});
  auto before = api.get(resource, ns, name);
  if (!before && !isNotFound(before.error())) {
    err << "flotillactl: " << where << ": reading " << kindPath(object) << ": "
        << before.error().message << "\n";
    return false;
  }
  auto after = api.apply(resource, object);
  if (!after) {
    err << "flotillactl: " << where << ": applying " << kindPath(object) << ": "
        << after.error().message << "\n";
    return false;
  }
  const char* what = !before ? "created"
                     : str(*before, {"metadata", "resourceVersion"}) ==
                             str(*after, {"metadata", "resourceVersion"})
                         ? "unchanged"
                         : "configured";
  out << where << ": " << kindPath(object) << " " << what << "\n";
  return true;
}

struct Access {
  std::string group, resource, verb, ns, name;
  std::string describe() const {
    return verb + " " + resource + (group.empty() ? "" : "." + group) +
           (name.empty() ? "" : "/" + name) + (ns.empty() ? "" : " in namespace " + ns);
  }
};

// SelfSubjectAccessReview: whether the caller may. An error when the review itself fails.
api::Result<bool> allowed(ClusterApi& api, const Access& a) {
  json::object attributes{{"group", a.group}, {"resource", a.resource}, {"verb", a.verb}};
  if (!a.ns.empty()) attributes["namespace"] = a.ns;
  if (!a.name.empty()) attributes["name"] = a.name;
  const json::object review{{"apiVersion", "authorization.k8s.io/v1"},
                            {"kind", "SelfSubjectAccessReview"},
                            {"spec", json::object{{"resourceAttributes", attributes}}}};
  auto answer = api.create(kAccessReviews, "", review);
  if (!answer) return answer.error();
  const auto* status = answer->if_contains("status");
  const auto* yes =
      status && status->is_object() ? status->as_object().if_contains("allowed") : nullptr;
  return yes && yes->is_bool() && yes->as_bool();
}

// The accesses among `wanted` the caller lacks; false (and the reason on err) when asking failed.
bool missing(ClusterApi& api, const std::string& where, const std::vector<Access>& wanted,
             std::vector<Access>& lacking, std::ostream& err) {
  for (const auto& a : wanted) {
    auto ok = allowed(api, a);
    if (!ok) {
      err << "flotillactl: " << where
          << ": cannot check permissions (SelfSubjectAccessReview): " << ok.error().message << "\n";
      return false;
    }
    if (!*ok) lacking.push_back(a);
  }
  return true;
}

void reportLacking(const std::string& where, const std::string& who,
                   const std::vector<Access>& lacking, std::ostream& err) {
  err << "flotillactl: " << where << ": the " << who
      << " kubeconfig lacks permissions join needs:\n";
  for (const auto& a : lacking) err << "  " << a.describe() << "\n";
}

std::vector<Access> writes(const std::string& group, const std::string& resource,
                           const std::string& ns) {
  return {{group, resource, "get", ns, ""},
          {group, resource, "create", ns, ""},
          {group, resource, "patch", ns, ""}};
}

// Who the member is, whatever URL reaches it: its kube-system namespace's uid.
api::Result<std::string> clusterId(ClusterApi& member) {
  auto ns = member.get(kNamespaces, "", "kube-system");
  if (!ns) return ns.error();
  return api::okString(str(*ns, {"metadata", "uid"}));
}

}  // namespace

json::array memberRules() {
  return {
      rule({""}, {"nodes", "pods"}, {"list", "watch"}),
      rule({"apps"}, {"replicasets"}, {"list", "watch"}),
      rule({"apps"}, {"deployments"}, {"get", "list", "watch", "create", "patch", "delete"}),
      // Delete: only a namespace Flotilla created there, once nothing of the host is left in it
      // (docs/design.md §12; the annotation is checked and the delete carries its uid).
      rule({""}, {"namespaces"}, {"get", "create", "delete"}),
      // The kinds policies propagate besides Deployments (docs/operator.md). RBAC kinds and
      // CRDs are not granted here: writing them would need escalate/bind, i.e. everything on
      // the member; a platform team that propagates them grants that itself.
      rule({""}, {"configmaps", "secrets", "services", "serviceaccounts", "persistentvolumeclaims"},
           {"get", "list", "watch", "create", "patch", "delete"})};
}

std::vector<json::object> memberObjects() {
  const json::object labels{{kManagedByLabel, kManagedByValue}};
  auto labelled = [&](json::object m) {
    m["labels"] = labels;
    return m;
  };
  json::object account{{"apiVersion", "v1"},
                       {"kind", "ServiceAccount"},
                       {"metadata", labelled(meta(kMemberAccount, kSystemNamespace))}};
  json::object role{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                    {"kind", "ClusterRole"},
                    {"metadata", labelled(meta(kMemberAccount))},
                    {"rules", memberRules()}};
  json::object binding{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                       {"kind", "ClusterRoleBinding"},
                       {"metadata", labelled(meta(kMemberAccount))},
                       {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"},
                                                {"kind", "ClusterRole"},
                                                {"name", kMemberAccount}}},
                       {"subjects", json::array{json::object{{"kind", "ServiceAccount"},
                                                             {"name", kMemberAccount},
                                                             {"namespace", kSystemNamespace}}}}};
  json::object tokenMeta = labelled(meta(kMemberTokenSecret, kSystemNamespace));
  tokenMeta["annotations"] = json::object{{"kubernetes.io/service-account.name", kMemberAccount}};
  json::object token{{"apiVersion", "v1"},
                     {"kind", "Secret"},
                     {"type", "kubernetes.io/service-account-token"},
                     {"metadata", std::move(tokenMeta)}};
  return {account, role, binding, token};
}

std::string memberManifest() {
  std::string out;
  const json::object ns{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", meta(kSystemNamespace)}};
  out += "---\n" + api::toYaml(ns);
  for (const auto& object : memberObjects()) out += "---\n" + api::toYaml(object);
  return out;
}

json::object credentialsSecret(const std::string& cluster, const std::string& token,
                               const std::string& caPem) {
  json::object m = meta(cluster + "-credentials", kSystemNamespace);
  m["labels"] = json::object{{kManagedByLabel, kManagedByValue}};
  m["annotations"] = json::object{{api::kClusterCredentialsAnnotation, cluster}};
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"type", "Opaque"},
          {"metadata", std::move(m)},
          {"data", json::object{{"token", api::base64Encode(token)},
                                {"caBundle", api::base64Encode(caPem)}}}};
}

json::object federatedCluster(const JoinOptions& options, const std::string& endpoint,
                              const std::string& id) {
  json::object m = meta(options.name);
  json::object labels;
  for (const auto& [k, v] : options.labels) labels[k] = v;
  if (!labels.empty()) m["labels"] = std::move(labels);
  m["annotations"] = json::object{{kClusterIdAnnotation, id}};
  json::object spec{{"apiEndpoint", endpoint},
                    {"secretRef", json::object{{"namespace", kSystemNamespace},
                                               {"name", options.name + "-credentials"}}}};
  if (!options.provider.empty()) spec["provider"] = options.provider;
  if (!options.region.empty()) spec["region"] = options.region;
  if (!options.zone.empty()) spec["zone"] = options.zone;
  return {{"apiVersion", "flotilla.io/v1alpha1"},
          {"kind", "FederatedCluster"},
          {"metadata", std::move(m)},
          {"spec", std::move(spec)}};
}

std::string nameConflict(const json::object& existing, const std::string& id,
                         const std::string& endpoint) {
  const std::string name = str(existing, {"metadata", "name"});
  const std::string theirId = str(existing, {"metadata", "annotations", kClusterIdAnnotation});
  const std::string theirEndpoint = str(existing, {"spec", "apiEndpoint"});
  if (!str(existing, {"metadata", "deletionTimestamp"}).empty())
    return "FederatedCluster \"" + name +
           "\" is being deleted; wait until it is gone (kubectl get fc " + name + ")";
  if (!theirId.empty() ? theirId == id : theirEndpoint == endpoint) return "";
  return "the name \"" + name + "\" is taken: FederatedCluster \"" + name +
         "\" registers another cluster (" +
         (theirId.empty() ? "API endpoint " + theirEndpoint : "cluster id " + theirId) +
         "); choose another name, or `flotillactl unjoin " + name + "` first";
}

int join(const JoinOptions& o, ClusterApi& host, ClusterApi& member, const Pause& pause,
         std::ostream& out, std::ostream& err) {
  const std::string where = "member " + o.name;
  // 1. Both clusters answer, and the host has Flotilla.
  if (auto v = member.getPath("/version"); !v) {
    err << "flotillactl: cannot reach the member cluster at " << member.server() << ": "
        << v.error().message << "\n";
    return 1;
  }
  if (auto v = host.getPath("/version"); !v) {
    err << "flotillactl: cannot reach the host cluster at " << host.server() << ": "
        << v.error().message << "\n";
    return 1;
  }
  if (auto ns = host.get(kNamespaces, "", kSystemNamespace); !ns) {
    err << "flotillactl: host: "
        << (isNotFound(ns.error()) ? std::string("namespace ") + kSystemNamespace +
                                         " does not exist: install Flotilla first "
                                         "(docs/install.md)"
                                   : ns.error().message)
        << "\n";
    return 1;
  }
  // 2. Both kubeconfigs may do what join does, checked before anything is written. Granting the
  // member ClusterRole needs its permissions (or escalate and bind on ClusterRoles).
  std::vector<Access> lacking;
  std::vector<Access> memberWants{{"", "namespaces", "get", "", "kube-system"},
                                  {"", "namespaces", "create", "", ""}};
  for (const auto* r : {&kServiceAccounts, &kSecrets})
    for (auto& a : writes(r->group, r->resource, kSystemNamespace)) memberWants.push_back(a);
  for (const auto* r : {&kClusterRoles, &kClusterRoleBindings})
    for (auto& a : writes(r->group, r->resource, "")) memberWants.push_back(a);
  if (!missing(member, where, memberWants, lacking, err)) return 1;
  std::vector<Access> granted;
  for (const auto& r : memberRules())
    for (const auto& g : r.at("apiGroups").as_array())
      for (const auto& res : r.at("resources").as_array())
        for (const auto& v : r.at("verbs").as_array())
          granted.push_back({std::string(g.as_string()), std::string(res.as_string()),
                             std::string(v.as_string()), "", ""});
  std::vector<Access> notHeld;
  if (!missing(member, where, granted, notHeld, err)) return 1;
  if (!notHeld.empty()) {
    const std::vector<Access> delegation{
        {"rbac.authorization.k8s.io", "clusterroles", "escalate", "", ""},
        {"rbac.authorization.k8s.io", "clusterroles", "bind", "", kMemberAccount}};
    std::vector<Access> noDelegation;
    if (!missing(member, where, delegation, noDelegation, err)) return 1;
    if (!noDelegation.empty()) lacking.insert(lacking.end(), notHeld.begin(), notHeld.end());
  }
  if (!lacking.empty()) {
    reportLacking(where, "member", lacking, err);
    return 1;
  }
  std::vector<Access> hostWants = writes("", "secrets", kSystemNamespace);
  for (auto& a : writes("flotilla.io", "federatedclusters", "")) hostWants.push_back(a);
  hostWants.push_back({"flotilla.io", "federatedclusters", "list", "", ""});
  if (!missing(host, "host", hostWants, lacking, err)) return 1;
  if (!lacking.empty()) {
    reportLacking("host", "host", lacking, err);
    return 1;
  }

  auto id = clusterId(member);
  if (!id) {
    err << "flotillactl: " << where
        << ": reading namespace kube-system (the cluster's identity): " << id.error().message
        << "\n";
    return 1;
  }
  const std::string endpoint = o.endpoint.empty() ? member.server() : o.endpoint;

  // 3. The name is free, or already this cluster's; the cluster is not registered under another.
  auto existing = host.get(kFederatedClusters, "", o.name);
  if (!existing && !isNotFound(existing.error())) {
    err << "flotillactl: host: reading federatedcluster/" << o.name << ": "
        << existing.error().message << "\n";
    return 1;
  }
  if (existing) {
    if (auto why = nameConflict(*existing, *id, endpoint); !why.empty()) {
      err << "flotillactl: " << why << "\n";
      return 1;
    }
  }
  auto all = host.getPath("/apis/flotilla.io/v1alpha1/federatedclusters");
  if (!all) {
    err << "flotillactl: host: listing federatedclusters: " << all.error().message << "\n";
    return 1;
  }
  if (const auto* items = all->is_object() ? all->as_object().if_contains("items") : nullptr;
      items && items->is_array()) {
    for (const auto& item : items->as_array()) {
      if (!item.is_object()) continue;
      const std::string other = str(item.as_object(), {"metadata", "name"});
      if (other != o.name &&
          str(item.as_object(), {"metadata", "annotations", kClusterIdAnnotation}) == *id) {
        err << "flotillactl: this cluster (id " << *id << ") is already registered as \"" << other
            << "\"; `flotillactl unjoin " << other << "` first\n";
        return 1;
      }
    }
  }

  // 4. The member side: namespace (only created when missing), account, role, binding, token.
  auto ns = member.get(kNamespaces, "", kSystemNamespace);
  if (!ns && isNotFound(ns.error())) {
    json::object m = meta(kSystemNamespace);
    m["labels"] = json::object{{kManagedByLabel, kManagedByValue}};
    const json::object object{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", m}};
    if (auto created = member.create(kNamespaces, "", object); !created) {
      err << "flotillactl: " << where << ": creating namespace/" << kSystemNamespace << ": "
          << created.error().message << "\n";
      return 1;
    }
    out << where << ": namespace/" << kSystemNamespace << " created\n";
  } else if (!ns) {
    err << "flotillactl: " << where << ": reading namespace/" << kSystemNamespace << ": "
        << ns.error().message << "\n";
    return 1;
  } else {
    out << where << ": namespace/" << kSystemNamespace << " unchanged\n";
  }
  for (const auto& object : memberObjects())
    if (!applyObject(member, where, object, out, err)) return 1;

  // 5. The token, once the member's token controller has written it, and only one written for
  // the ServiceAccount as it is now (a Secret left from an account deleted and re-created holds a
  // token that no longer authenticates: it is replaced).
  std::string token, tokenCa;
  const json::object tokenSecret = memberObjects().back();
  for (int i = 0; i < o.tokenPolls && token.empty(); ++i) {
    if (i > 0) pause();
    auto account = member.get(kServiceAccounts, kSystemNamespace, kMemberAccount);
    auto secret = member.get(kSecrets, kSystemNamespace, kMemberTokenSecret);
    if (!account || (!secret && !isNotFound(secret.error()))) continue;
    const std::string uid =
        secret ? str(*secret, {"metadata", "annotations", "kubernetes.io/service-account.uid"})
               : "";
    if (secret && !uid.empty() && uid != str(*account, {"metadata", "uid"})) {
      out << where << ": secret/" << kMemberTokenSecret
          << " belongs to an earlier ServiceAccount of that name: replaced\n";
      if (auto removed = member.remove(kSecrets, kSystemNamespace, kMemberTokenSecret);
          !removed && !isNotFound(removed.error()))
        continue;
      secret = api::Error{api::reason::kNotFound, 404, "replaced", {}};
    }
    if (!secret) {  // deleted (by us just now, or by the token controller): written again
      if (!applyObject(member, where, tokenSecret, out, err)) return 1;
      continue;
    }
    if (uid.empty()) continue;  // not filled yet
    auto decoded = api::base64Decode(str(*secret, {"data", "token"}));
    if (decoded) token = *decoded;
    auto ca = api::base64Decode(str(*secret, {"data", "ca.crt"}));
    if (ca) tokenCa = *ca;
  }
  if (token.empty()) {
    err << "flotillactl: " << where << ": secret/" << kMemberTokenSecret << " in "
        << kSystemNamespace
        << " was not given a token (the member's kube-controller-manager fills "
           "kubernetes.io/service-account-token Secrets: is it running, with "
           "--service-account-private-key-file?)\n";
    return 1;
  }
  const std::string ca = o.caPem.empty() ? tokenCa : o.caPem;

  // 6. The host side: the credentials, then the FederatedCluster that names them.
  if (!applyObject(host, "host", credentialsSecret(o.name, token, ca), out, err)) return 1;
  if (!applyObject(host, "host", federatedCluster(o, endpoint, *id), out, err)) return 1;
  out << "cluster \"" << o.name << "\" joined (" << endpoint << "): `kubectl get fc " << o.name
      << "` shows Ready once the operator has probed it\n";
  return 0;
}

int unjoin(const JoinOptions& o, ClusterApi& host, ClusterApi* member, const Pause& pause,
           std::ostream& out, std::ostream& err) {
  const std::string where = "member " + o.name;
  auto fc = host.get(kFederatedClusters, "", o.name);
  if (!fc && !isNotFound(fc.error())) {
    err << "flotillactl: host: reading federatedcluster/" << o.name << ": " << fc.error().message
        << "\n";
    return 1;
  }
  if (fc && member) {  // never clean the member side of a cluster other than the registered one
    auto id = clusterId(*member);
    if (!id) {
      err << "flotillactl: " << where << ": reading namespace kube-system: " << id.error().message
          << "\n";
      return 1;
    }
    const std::string registered = str(*fc, {"metadata", "annotations", kClusterIdAnnotation});
    if (!registered.empty() && registered != *id) {
      err << "flotillactl: the --cluster-kubeconfig reaches cluster id " << *id
          << ", but FederatedCluster \"" << o.name << "\" registers cluster id " << registered
          << "; nothing was deleted\n";
      return 1;
    }
  }
  if (!fc && member) {  // not under this name: under another, the member side is still in use
    auto id = clusterId(*member);
    auto all = host.getPath("/apis/flotilla.io/v1alpha1/federatedclusters");
    if (!id || !all) {
      err << "flotillactl: cannot tell whether the member is registered under another name: "
          << (!id ? id.error().message : all.error().message) << "\n";
      return 1;
    }
    if (const auto* items = all->is_object() ? all->as_object().if_contains("items") : nullptr;
        items && items->is_array()) {
      for (const auto& item : items->as_array()) {
        if (!item.is_object() ||
            str(item.as_object(), {"metadata", "annotations", kClusterIdAnnotation}) != *id)
          continue;
        const std::string other = str(item.as_object(), {"metadata", "name"});
        err << "flotillactl: federatedcluster/" << o.name << " does not exist, and the member is "
            << "registered as \"" << other << "\" (its credentials are in use): nothing was "
            << "deleted; did you mean `flotillactl unjoin " << other << "`?\n";
        return 1;
      }
    }
  }
  std::string secretName = o.name + "-credentials";
  if (fc) {
    if (auto ref = str(*fc, {"spec", "secretRef", "name"}); !ref.empty()) secretName = ref;
    if (auto removed = host.remove(kFederatedClusters, "", o.name);
        !removed && !isNotFound(removed.error())) {
      err << "flotillactl: host: deleting federatedcluster/" << o.name << ": "
          << removed.error().message << "\n";
      return 1;
    }
    bool gone = false;
    for (int i = 0; i < o.deletePolls && !gone; ++i) {
      if (i > 0) pause();
      auto still = host.get(kFederatedClusters, "", o.name);
      gone = !still && isNotFound(still.error());
    }
    if (!gone) {
      err << "flotillactl: federatedcluster/" << o.name
          << " is still terminating: its finalizer waits for the operator to remove Flotilla's "
             "workloads from the member (is the operator running?). Run unjoin again once "
             "`kubectl get fc "
          << o.name << "` finds nothing; the credentials were kept for it\n";
      return 1;
    }
    out << "host: federatedcluster/" << o.name << " deleted\n";
  } else {
    out << "host: federatedcluster/" << o.name << " not found\n";
  }
  // The credentials Secret, when join wrote it (a hand-made one is the user's).
  auto secret = host.get(kSecrets, kSystemNamespace, secretName);
  if (secret && str(*secret, {"metadata", "labels", kManagedByLabel}) == kManagedByValue) {
    if (auto removed = host.remove(kSecrets, kSystemNamespace, secretName);
        !removed && !isNotFound(removed.error())) {
      err << "flotillactl: host: deleting secret/" << secretName << ": " << removed.error().message
          << "\n";
      return 1;
    }
    out << "host: secret/" << secretName << " deleted\n";
  }
  if (!member) {
    out << where << ": not touched (pass --cluster-kubeconfig to remove Flotilla's "
        << "ServiceAccount, ClusterRole, ClusterRoleBinding and token there)\n";
    return 0;
  }
  auto objects = memberObjects();
  for (auto it = objects.rbegin(); it != objects.rend(); ++it) {  // the token first
    const auto& resource = resourceOf(*it);
    const std::string ns = str(*it, {"metadata", "namespace"});
    const std::string name = str(*it, {"metadata", "name"});
    auto removed = member->remove(resource, ns, name);
    if (!removed && !isNotFound(removed.error())) {
      err << "flotillactl: " << where << ": deleting " << kindPath(*it) << ": "
          << removed.error().message << "\n";
      return 1;
    }
    out << where << ": " << kindPath(*it) << (removed ? " deleted" : " not found") << "\n";
  }
  auto ns = member->get(kNamespaces, "", kSystemNamespace);
  if (ns && str(*ns, {"metadata", "labels", kManagedByLabel}) == kManagedByValue) {
    if (auto removed = member->remove(kNamespaces, "", kSystemNamespace);
        !removed && !isNotFound(removed.error())) {
      err << "flotillactl: " << where << ": deleting namespace/" << kSystemNamespace << ": "
          << removed.error().message << "\n";
      return 1;
    }
    out << where << ": namespace/" << kSystemNamespace << " deleted\n";
  }
  out << "cluster \"" << o.name << "\" unjoined\n";
  return 0;
}

}  // namespace flotilla::cli
