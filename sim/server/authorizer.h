// kube-apiserver's RBAC authorizer over the store's Roles, ClusterRoles, RoleBindings and
// ClusterRoleBindings. Bindings are indexed by subject (users, groups; a ServiceAccount subject is
// its user name) with their roles' rules resolved; the index is rebuilt lazily after any write to
// rbac.authorization.k8s.io (the store's write observer marks it stale before the write is
// acknowledged), so a request costs a few hash lookups and the rules of the user's bindings.
//
// Also: the bootstrap policy kube-apiserver installs, and the clusterrole-aggregation controller.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/result.h"
#include "sim/server/rbac.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

inline constexpr const char* kRolesKey = "rbac.authorization.k8s.io/roles";
inline constexpr const char* kClusterRolesKey = "rbac.authorization.k8s.io/clusterroles";
inline constexpr const char* kRoleBindingsKey = "rbac.authorization.k8s.io/rolebindings";
inline constexpr const char* kClusterRoleBindingsKey =
    "rbac.authorization.k8s.io/clusterrolebindings";

class RbacAuthorizer {
 public:
  // Registers itself as the store's write observer.
  explicit RbacAuthorizer(Store& store);
  ~RbacAuthorizer();

  struct Decision {
    bool allowed = false;
    // Allowed: `RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to Group "g"`
    // (empty for system:masters). Denied: "RBAC: <error>" or "RBAC: [<error>, ...]" for bindings
    // whose role is missing, as kube-apiserver appends to the Forbidden message; else empty.
    std::string reason;
  };
  // system:masters is always allowed (kube-apiserver's privileged-group authorizer).
  Decision authorize(const UserInfo& user, const RequestAttributes& attributes);

  // Every rule `user` holds in `ns` (cluster-wide through ClusterRoleBindings, plus the
  // RoleBindings of `ns`); `errors` gets the roles that could not be resolved, worded as the
  // registry words them (`clusterroles.rbac.authorization.k8s.io "x" not found`).
  std::vector<PolicyRule> rulesFor(const UserInfo& user, const std::string& ns,
                                   std::vector<std::string>& errors);
  // The rules of the role a binding in `ns` ("" for a ClusterRoleBinding) refers to; NotFound
  // (kube's message and details) when it does not exist.
  api::Result<std::vector<PolicyRule>> roleRefRules(const std::string& kind,
                                                    const std::string& name, const std::string& ns);

  struct Index;

 private:
  std::shared_ptr<const Index> index();

  Store& store_;
  std::atomic<bool> stale_{true};
  std::mutex mutex_;
  std::shared_ptr<const Index> index_;
};

// Creates the bootstrap ClusterRoles and ClusterRoleBindings kube-apiserver installs that are
// missing (cluster-admin, system:discovery, system:basic-user, system:public-info-viewer, admin,
// edit, view and the system:aggregate-to-* roles). `seq` gets the last write.
api::Result<void> ensureBootstrapPolicy(Store& store, const std::string& now, uint64_t& seq);

// The clusterrole-aggregation controller: every ClusterRole with an aggregationRule gets the
// rules of the ClusterRoles its selectors match (by name, each rule once). Returns the last
// write's commit sequence (0 when nothing changed).
uint64_t aggregateClusterRoles(Store& store);

}  // namespace flotilla::sim
