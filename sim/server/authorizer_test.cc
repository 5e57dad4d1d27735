#include "sim/server/authorizer.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "sim/server/authn.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;

class AuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = Store::open(StoreOptions{}).value();
    authorizer_ = std::make_unique<RbacAuthorizer>(*store_);
  }
  void put(const char* collection, std::string_view text) {
    auto object = json::parse(text).as_object();
    const auto& m = object.at("metadata").as_object();
    const std::string ns =
        m.contains("namespace") ? std::string(m.at("namespace").as_string()) : "";
    ObjectKey key{collection, ns, std::string(m.at("name").as_string())};
    if (store_->get(key)) {
      ASSERT_TRUE(store_->update(key, std::move(object), std::nullopt));
    } else {
      ASSERT_TRUE(store_->create(key, std::move(object)));
    }
  }
  bool allowed(const UserInfo& user, const RequestAttributes& a) {
    return authorizer_->authorize(user, a).allowed;
  }

  std::unique_ptr<Store> store_;
  std::unique_ptr<RbacAuthorizer> authorizer_;
};

RequestAttributes attrs(std::string verb, std::string group, std::string resource, std::string ns,
                        std::string name = "", std::string sub = "") {
  RequestAttributes a;
  a.resourceRequest = true;
  a.verb = std::move(verb);
  a.group = std::move(group);
  a.resource = std::move(resource);
  a.ns = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(sub);
  return a;
}

const UserInfo kOperator = serviceAccountUser("flotilla-system", "flotilla-operator", "u1");

TEST_F(AuthorizerTest, BindingsToUsersGroupsAndServiceAccounts) {
  EXPECT_FALSE(allowed(kOperator, attrs("list", "apps", "deployments", "")));
  put(kClusterRolesKey, R"({"metadata":{"name":"deploy-reader"},
      "rules":[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get","list","watch"]}]})");
  put(kClusterRoleBindingsKey, R"({"metadata":{"name":"operator-reads"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"deploy-reader"},
      "subjects":[{"kind":"ServiceAccount","name":"flotilla-operator","namespace":"flotilla-system"}]})");
  // The write marked the index stale: the next request sees the binding.
  auto decision = authorizer_->authorize(kOperator, attrs("list", "apps", "deployments", ""));
  EXPECT_TRUE(decision.allowed);
  EXPECT_EQ(
      decision.reason,
      "RBAC: allowed by ClusterRoleBinding \"operator-reads\" of ClusterRole \"deploy-reader\" "
      "to ServiceAccount \"flotilla-operator/flotilla-system\"");
  EXPECT_FALSE(allowed(kOperator, attrs("delete", "apps", "deployments", "x", "d")));

  // A Role through a RoleBinding: only in its namespace; ServiceAccount subjects default to the
  // binding's namespace.
  put(kRolesKey, R"({"metadata":{"name":"leases","namespace":"flotilla-system"},
      "rules":[{"apiGroups":["coordination.k8s.io"],"resources":["leases"],"verbs":["get","update"],
                "resourceNames":["flotilla-operator"]}]})");
  put(kRoleBindingsKey, R"({"metadata":{"name":"leases","namespace":"flotilla-system"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"leases"},
      "subjects":[{"kind":"ServiceAccount","name":"flotilla-operator"}]})");
  EXPECT_TRUE(allowed(kOperator, attrs("update", "coordination.k8s.io", "leases", "flotilla-system",
                                       "flotilla-operator")));
  EXPECT_FALSE(allowed(
      kOperator, attrs("update", "coordination.k8s.io", "leases", "other", "flotilla-operator")));
  EXPECT_FALSE(allowed(kOperator, attrs("update", "coordination.k8s.io", "leases",
                                        "flotilla-system", "someone-else")));

  // Users and groups.
  put(kClusterRoleBindingsKey, R"({"metadata":{"name":"people"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"deploy-reader"},
      "subjects":[{"kind":"User","name":"alice"},{"kind":"Group","name":"ops"}]})");
  EXPECT_TRUE(allowed(UserInfo{"alice", "", {}}, attrs("get", "apps", "deployments", "x", "d")));
  EXPECT_TRUE(allowed(UserInfo{"bob", "", {"ops"}}, attrs("get", "apps", "deployments", "x", "d")));
  EXPECT_FALSE(
      allowed(UserInfo{"bob", "", {"dev"}}, attrs("get", "apps", "deployments", "x", "d")));
  // system:masters needs no binding.
  EXPECT_TRUE(allowed(UserInfo{"root", "", {"system:masters"}}, attrs("delete", "", "nodes", "")));

  // Deleting the binding takes the permission away.
  ASSERT_TRUE(store_->remove({kClusterRoleBindingsKey, "", "operator-reads"}, std::nullopt));
  EXPECT_FALSE(allowed(kOperator, attrs("list", "apps", "deployments", "")));
}

TEST_F(AuthorizerTest, MissingRolesAreTheDenialReason) {
  put(kRoleBindingsKey, R"({"metadata":{"name":"a","namespace":"x"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"missing"},
      "subjects":[{"kind":"User","name":"u"}]})");
  auto denied = authorizer_->authorize(UserInfo{"u"}, attrs("get", "", "pods", "x", "p"));
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.reason, "RBAC: clusterrole.rbac.authorization.k8s.io \"missing\" not found");
  put(kRoleBindingsKey, R"({"metadata":{"name":"b","namespace":"x"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"missing2"},
      "subjects":[{"kind":"User","name":"u"}]})");
  EXPECT_EQ(authorizer_->authorize(UserInfo{"u"}, attrs("get", "", "pods", "x", "p")).reason,
            "RBAC: [clusterrole.rbac.authorization.k8s.io \"missing\" not found, "
            "role.rbac.authorization.k8s.io \"missing2\" not found]");
  // Not visited for other namespaces or cluster-scoped requests.
  EXPECT_EQ(authorizer_->authorize(UserInfo{"u"}, attrs("get", "", "pods", "y", "p")).reason, "");
  std::vector<std::string> errors;
  EXPECT_TRUE(authorizer_->rulesFor(UserInfo{"u"}, "x", errors).empty());
  EXPECT_EQ(errors, (std::vector<std::string>{
                        "clusterroles.rbac.authorization.k8s.io \"missing\" not found",
                        "roles.rbac.authorization.k8s.io \"missing2\" not found"}));
  auto ref = authorizer_->roleRefRules("ClusterRole", "nope", "x");
  ASSERT_FALSE(ref);
  EXPECT_EQ(ref.error().code, 404);
  EXPECT_EQ(ref.error().message, "clusterroles.rbac.authorization.k8s.io \"nope\" not found");
}

TEST_F(AuthorizerTest, AggregatedClusterRolesAndBootstrapPolicy) {
  uint64_t seq = 0;
  ASSERT_TRUE(ensureBootstrapPolicy(*store_, "2026-11-23T00:00:00Z", seq));
  aggregateClusterRoles(*store_);
  // Discovery for every authenticated user; nothing else.
  const UserInfo someone{"someone", "", {"system:authenticated"}};
  RequestAttributes api;
  api.verb = "get";
  api.path = "/apis/apps/v1";
  EXPECT_TRUE(allowed(someone, api));
  api.path = "/metrics";
  EXPECT_FALSE(allowed(someone, api));
  EXPECT_TRUE(
      allowed(someone, attrs("create", "authorization.k8s.io", "selfsubjectaccessreviews", "")));
  EXPECT_FALSE(allowed(someone, attrs("list", "", "pods", "x")));

  // view <- aggregate-to-view, edit <- view + aggregate-to-edit, admin <- edit +
  // aggregate-to-admin.
  put(kRoleBindingsKey, R"({"metadata":{"name":"viewers","namespace":"x"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
      "subjects":[{"kind":"Group","name":"system:authenticated"}]})");
  EXPECT_TRUE(allowed(someone, attrs("list", "", "pods", "x")));
  EXPECT_TRUE(allowed(someone, attrs("watch", "apps", "deployments", "x")));
  EXPECT_FALSE(allowed(someone, attrs("create", "apps", "deployments", "x")));
  EXPECT_FALSE(allowed(someone, attrs("get", "", "secrets", "x", "s")));  // view hides secrets
  EXPECT_FALSE(allowed(someone, attrs("list", "", "pods", "y")));

  // A new role labelled for aggregation shows up in view (the controller's work).
  put(kClusterRolesKey, R"({"metadata":{"name":"flotilla-view",
      "labels":{"rbac.authorization.k8s.io/aggregate-to-view":"true"}},
      "rules":[{"apiGroups":["flotilla.io"],"resources":["federateddeployments"],
                "verbs":["get","list","watch"]}]})");
  EXPECT_FALSE(allowed(someone, attrs("list", "flotilla.io", "federateddeployments", "x")));
  aggregateClusterRoles(*store_);
  EXPECT_TRUE(allowed(someone, attrs("list", "flotilla.io", "federateddeployments", "x")));
  auto admin = store_->get({kClusterRolesKey, "", "admin"});
  ASSERT_TRUE(admin);
  const auto rules = rulesOf(admin->at("rules"));
  EXPECT_NE(
      std::find(
          rules.begin(), rules.end(),
          PolicyRule{{"get", "list", "watch"}, {"flotilla.io"}, {"federateddeployments"}, {}, {}}),
      rules.end());  // through edit into admin
  const int64_t version = store_->resourceVersion();
  aggregateClusterRoles(*store_);
  EXPECT_EQ(store_->resourceVersion(), version);  // stable: nothing more to write
}

}  // namespace
}  // namespace flotilla::sim
