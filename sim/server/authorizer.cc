#include "sim/server/authorizer.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "sim/server/admission.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {
namespace json = boost::json;

extern const std::string_view kBootstrapPolicyJson;

namespace {

std::string str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::string metaString(const json::object& o, std::string_view key) {
  const auto* m = o.if_contains("metadata");
  return m && m->is_object() ? str(m->as_object(), key) : std::string();
}

using Rules = std::shared_ptr<const std::vector<PolicyRule>>;

}  // namespace

// One binding as the index keeps it, with its role's rules resolved.
struct Grant {
  bool cluster = false;  // a ClusterRoleBinding: every namespace and cluster-scoped requests
  std::string ns;        // a RoleBinding's namespace
  std::string name;      // the binding's name
  Rules rules;           // null when the role does not exist
  std::string roleKind, roleName;
};

// A binding reached through one of its subjects.
struct SubjectGrant {
  std::shared_ptr<const Grant> grant;
  std::string subject;  // as the allow reason names it: User "u", Group "g", ServiceAccount "n/ns"
};

struct RbacAuthorizer::Index {
  // "u:<user name>" (also ServiceAccount subjects) and "g:<group>" -> bindings.
  std::unordered_map<std::string, std::vector<SubjectGrant>> bySubject;
};

RbacAuthorizer::RbacAuthorizer(Store& store) : store_(store) {
  store_.setWriteObserver([this](const std::string& resource) {
    if (resource.compare(0, kRbacGroup.size() + 1, std::string(kRbacGroup) + "/") == 0)
      stale_.store(true);
  });
}

RbacAuthorizer::~RbacAuthorizer() { store_.setWriteObserver(nullptr); }

std::shared_ptr<const RbacAuthorizer::Index> RbacAuthorizer::index() {
  std::lock_guard lock(mutex_);
  if (!stale_.exchange(false) && index_) return index_;
  auto built = std::make_shared<Index>();
  std::map<std::string, Rules> clusterRoles;
  for (const auto& role : store_.list(kClusterRolesKey, "").items) {
    const auto* rules = role.if_contains("rules");
    clusterRoles[metaString(role, "name")] = std::make_shared<const std::vector<PolicyRule>>(
        rules ? rulesOf(*rules) : std::vector<PolicyRule>{});
  }
  std::map<std::string, Rules> roles;  // "ns/name"
  for (const auto& role : store_.list(kRolesKey, "").items) {
    const auto* rules = role.if_contains("rules");
    roles[metaString(role, "namespace") + "/" + metaString(role, "name")] =
        std::make_shared<const std::vector<PolicyRule>>(rules ? rulesOf(*rules)
                                                              : std::vector<PolicyRule>{});
  }
  auto add = [&](const json::object& binding, bool cluster) {
    auto grant = std::make_shared<Grant>();
    grant->cluster = cluster;
    grant->ns = cluster ? "" : metaString(binding, "namespace");
    grant->name = metaString(binding, "name");
    const auto* ref = binding.if_contains("roleRef");
    if (!ref || !ref->is_object()) return;
    grant->roleKind = str(ref->as_object(), "kind");
    grant->roleName = str(ref->as_object(), "name");
    if (grant->roleKind == "ClusterRole") {
      if (auto it = clusterRoles.find(grant->roleName); it != clusterRoles.end())
        grant->rules = it->second;
    } else if (grant->roleKind == "Role" && !cluster) {
      if (auto it = roles.find(grant->ns + "/" + grant->roleName); it != roles.end())
        grant->rules = it->second;
    }
    std::shared_ptr<const Grant> shared = std::move(grant);
    const auto* subjects = binding.if_contains("subjects");
    if (!subjects || !subjects->is_array()) return;
    std::unordered_set<std::string> keys;
    for (const auto& s : subjects->as_array()) {
      if (!s.is_object()) continue;
      const auto& subject = s.as_object();
      const std::string kind = str(subject, "kind");
      const std::string name = str(subject, "name");
      std::string key;
      std::string description;
      if (kind == "User") {
        key = "u:" + name;
        description = "User \"" + name + "\"";
      } else if (kind == "Group") {
        key = "g:" + name;
        description = "Group \"" + name + "\"";
      } else if (kind == "ServiceAccount") {
        std::string ns = str(subject, "namespace");
        if (ns.empty()) ns = shared->ns;
        key = "u:system:serviceaccount:" + ns + ":" + name;
        description = "ServiceAccount \"" + name + "/" + ns + "\"";
      } else {
        continue;
      }
      if (keys.insert(key).second)
        built->bySubject[key].push_back(SubjectGrant{shared, std::move(description)});
    }
  };
  for (const auto& b : store_.list(kClusterRoleBindingsKey, "").items) add(b, true);
  for (const auto& b : store_.list(kRoleBindingsKey, "").items) add(b, false);
  index_ = std::move(built);
  return index_;
}

namespace {

bool hasGroup(const UserInfo& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

// The bindings that apply to `user` in `ns`: ClusterRoleBindings first, then the RoleBindings of
// `ns`, each by name, each once.
std::vector<const SubjectGrant*> applicable(const RbacAuthorizer::Index& index,
                                            const UserInfo& user, const std::string& ns) {
  std::vector<const SubjectGrant*> out;
  auto collect = [&](const std::string& key) {
    auto it = index.bySubject.find(key);
    if (it == index.bySubject.end()) return;
    for (const auto& g : it->second)
      if (g.grant->cluster || (!ns.empty() && g.grant->ns == ns)) out.push_back(&g);
  };
  collect("u:" + user.name);
  for (const auto& group : user.groups) collect("g:" + group);
  std::stable_sort(out.begin(), out.end(), [](const SubjectGrant* a, const SubjectGrant* b) {
    return std::make_tuple(!a->grant->cluster, std::cref(a->grant->name)) <
           std::make_tuple(!b->grant->cluster, std::cref(b->grant->name));
  });
  out.erase(std::unique(
                out.begin(), out.end(),
                [](const SubjectGrant* a, const SubjectGrant* b) { return a->grant == b->grant; }),
            out.end());
  return out;
}

std::string roleNotFound(const Grant& g, bool registryWording) {
  const bool cluster = g.roleKind == "ClusterRole";
  std::string resource = cluster ? "clusterrole" : "role";
  if (registryWording) resource += "s";
  return resource + ".rbac.authorization.k8s.io \"" + g.roleName + "\" not found";
}

}  // namespace

RbacAuthorizer::Decision RbacAuthorizer::authorize(const UserInfo& user,
                                                   const RequestAttributes& attributes) {
  if (hasGroup(user, kSystemMasters)) return {true, ""};
  const auto snapshot = index();
  std::vector<std::string> errors;
  for (const SubjectGrant* entry : applicable(*snapshot, user, attributes.ns)) {
    const Grant& grant = *entry->grant;
    if (!grant.rules) {
      errors.push_back(roleNotFound(grant, false));
      continue;
    }
    for (const auto& rule : *grant.rules) {
      if (!ruleAllows(rule, attributes)) continue;
      return {true,
              "RBAC: allowed by " +
                  std::string(grant.cluster ? "ClusterRoleBinding \"" + grant.name
                                            : "RoleBinding \"" + grant.name + "/" + grant.ns) +
                  "\" of " + grant.roleKind + " \"" + grant.roleName + "\" to " + entry->subject};
    }
  }
  Decision denied;
  if (errors.size() == 1) denied.reason = "RBAC: " + errors.front();
  if (errors.size() > 1) {
    denied.reason = "RBAC: [";
    for (size_t i = 0; i < errors.size(); ++i) denied.reason += (i ? ", " : "") + errors[i];
    denied.reason += "]";
  }
  return denied;
}

std::vector<PolicyRule> RbacAuthorizer::rulesFor(const UserInfo& user, const std::string& ns,
                                                 std::vector<std::string>& errors) {
  const auto snapshot = index();
  std::vector<PolicyRule> out;
  for (const SubjectGrant* entry : applicable(*snapshot, user, ns)) {
    const Grant& grant = *entry->grant;
    if (!grant.rules) {
      errors.push_back(roleNotFound(grant, true));
      continue;
    }
    out.insert(out.end(), grant.rules->begin(), grant.rules->end());
  }
  return out;
}

api::Result<std::vector<PolicyRule>> RbacAuthorizer::roleRefRules(const std::string& kind,
                                                                  const std::string& name,
                                                                  const std::string& ns) {
  const bool cluster = kind == "ClusterRole";
  auto found = store_.get({cluster ? kClusterRolesKey : kRolesKey, cluster ? "" : ns, name});
  if (!found)
    return api::Error{api::reason::kNotFound,
                      404,
                      std::string(cluster ? "clusterroles" : "roles") +
                          ".rbac.authorization.k8s.io \"" + name + "\" not found",
                      {}};
  const auto* rules = found->if_contains("rules");
  return rules ? rulesOf(*rules) : std::vector<PolicyRule>{};
}

api::Result<void> ensureBootstrapPolicy(Store& store, const std::string& now, uint64_t& seq) {
  const json::value policy = json::parse(kBootstrapPolicyJson);
  for (const auto& item : policy.as_array()) {
    json::object object = item.as_object();
    const bool role = str(object, "kind") == "ClusterRole";
    const ObjectKey key{role ? kClusterRolesKey : kClusterRoleBindingsKey, "",
                        metaString(object, "name")};
    if (store.get(key)) continue;
    auto& metadata = object["metadata"].as_object();
    metadata["uid"] = newUid();
    metadata["creationTimestamp"] = now;
    auto created = store.create(key, std::move(object));
    if (!created) return created.error();
    seq = std::max(seq, created->commitSeq);
  }
  return {};
}

namespace {

// One pass of the aggregation; true when a role changed.
bool aggregateOnce(Store& store, uint64_t& seq) {
  const auto all = store.list(kClusterRolesKey, "").items;  // sorted by name
  bool changed = false;
  for (const auto& role : all) {
    const auto* rule = role.if_contains("aggregationRule");
    if (!rule || !rule->is_object()) continue;
    const auto* selectors = rule->as_object().if_contains("clusterRoleSelectors");
    if (!selectors || !selectors->is_array()) continue;
    const std::string name = metaString(role, "name");
    json::array rules;
    for (const auto& s : selectors->as_array()) {
      auto selector = labelSelectorFromJson(&s);
      if (!selector) continue;
      for (const auto& other : all) {
        if (metaString(other, "name") == name) continue;
        api::Labels labels;
        if (const auto* m = other.if_contains("metadata"); m && m->is_object())
          if (const auto* l = m->as_object().if_contains("labels"); l && l->is_object())
            for (const auto& [k, v] : l->as_object())
              if (v.is_string()) labels[std::string(k)] = std::string(v.as_string());
        if (!selector->matches(labels)) continue;
        if (const auto* r = other.if_contains("rules"); r && r->is_array())
          for (const auto& entry : r->as_array())
            if (std::find(rules.begin(), rules.end(), entry) == rules.end()) rules.push_back(entry);
      }
    }
    const auto* current = role.if_contains("rules");
    const bool same = current ? *current == json::value(rules) : rules.empty();
    if (same) continue;
    json::object next = role;
    next["rules"] = std::move(rules);
    if (auto written = store.update({kClusterRolesKey, "", name}, std::move(next), std::nullopt)) {
      seq = std::max(seq, written->commitSeq);
      changed = true;
    }
  }
  return changed;
}

}  // namespace

uint64_t aggregateClusterRoles(Store& store) {
  // Aggregated roles can be aggregated in turn (view into edit into admin): repeat until stable.
  uint64_t seq = 0;
  for (int pass = 0; pass < 8 && aggregateOnce(store, seq); ++pass) {
  }
  return seq;
}

}  // namespace flotilla::sim
