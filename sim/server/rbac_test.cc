#include "sim/server/rbac.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::sim {
namespace {

namespace json = boost::json;

RequestAttributes resource(std::string verb, std::string group, std::string res,
                           std::string ns = "", std::string name = "", std::string sub = "") {
  RequestAttributes a;
  a.resourceRequest = true;
  a.verb = std::move(verb);
  a.group = std::move(group);
  a.version = "v1";
  a.resource = std::move(res);
  a.ns = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(sub);
  return a;
}

RequestAttributes path(std::string verb, std::string p) {
  RequestAttributes a;
  a.verb = std::move(verb);
  a.path = std::move(p);
  return a;
}

TEST(RbacRules, VerbsGroupsResourcesAndWildcards) {
  const PolicyRule pods{{"get", "list"}, {""}, {"pods"}, {}, {}};
  EXPECT_TRUE(ruleAllows(pods, resource("get", "", "pods", "x", "p")));
  EXPECT_TRUE(ruleAllows(pods, resource("list", "", "pods", "x")));
  EXPECT_FALSE(ruleAllows(pods, resource("watch", "", "pods", "x")));
  EXPECT_FALSE(ruleAllows(pods, resource("get", "apps", "pods", "x")));          // another group
  EXPECT_FALSE(ruleAllows(pods, resource("get", "", "pods", "x", "p", "log")));  // subresource
  const PolicyRule all{{"*"}, {"*"}, {"*"}, {}, {}};
  EXPECT_TRUE(ruleAllows(all, resource("deletecollection", "apps", "deployments", "x")));
  EXPECT_TRUE(ruleAllows(all, resource("update", "apps", "deployments", "x", "d", "status")));
  EXPECT_FALSE(ruleAllows(all, path("get", "/metrics")));  // resources never grant paths
}

TEST(RbacRules, Subresources) {
  const PolicyRule status{{"update"}, {"flotilla.io"}, {"resourcebindings/status"}, {}, {}};
  EXPECT_TRUE(
      ruleAllows(status, resource("update", "flotilla.io", "resourcebindings", "", "b", "status")));
  EXPECT_FALSE(ruleAllows(status, resource("update", "flotilla.io", "resourcebindings", "", "b")));
  const PolicyRule scale{{"get", "update"}, {"apps"}, {"*/scale"}, {}, {}};
  EXPECT_TRUE(ruleAllows(scale, resource("get", "apps", "deployments", "x", "d", "scale")));
  EXPECT_TRUE(ruleAllows(scale, resource("update", "apps", "replicasets", "x", "r", "scale")));
  EXPECT_FALSE(ruleAllows(scale, resource("get", "apps", "deployments", "x", "d")));
  EXPECT_FALSE(ruleAllows(scale, resource("get", "apps", "deployments", "x", "d", "status")));
}

TEST(RbacRules, ResourceNamesOnlyForNamedRequests) {
  const PolicyRule lease{
      {"get", "update", "list"}, {"coordination.k8s.io"}, {"leases"}, {"flotilla-operator"}, {}};
  EXPECT_TRUE(ruleAllows(lease, resource("get", "coordination.k8s.io", "leases", "flotilla-system",
                                         "flotilla-operator")));
  EXPECT_FALSE(ruleAllows(
      lease, resource("get", "coordination.k8s.io", "leases", "flotilla-system", "other")));
  EXPECT_FALSE(ruleAllows(lease, resource("list", "coordination.k8s.io", "leases",
                                          "flotilla-system")));  // a list names nothing
}

TEST(RbacRules, NonResourceUrls) {
  const PolicyRule discovery{{"get"}, {}, {}, {}, {"/api", "/api/*", "/healthz", "/version/"}};
  EXPECT_TRUE(ruleAllows(discovery, path("get", "/api")));
  EXPECT_TRUE(ruleAllows(discovery, path("get", "/api/v1")));
  EXPECT_TRUE(ruleAllows(discovery, path("get", "/api/")));
  EXPECT_FALSE(ruleAllows(discovery, path("get", "/apis")));
  EXPECT_FALSE(ruleAllows(discovery, path("post", "/api")));
  EXPECT_FALSE(ruleAllows(discovery, path("get", "/version")));  // only "/version/" listed
  EXPECT_FALSE(ruleAllows(discovery, resource("get", "", "api")));
  EXPECT_TRUE(ruleAllows(PolicyRule{{"*"}, {}, {}, {}, {"*"}}, path("delete", "/anything")));
}

TEST(RbacRules, RulesFromJson) {
  const auto rules = rulesOf(json::parse(R"([
      {"apiGroups":[""],"resources":["pods"],"verbs":["get"],"resourceNames":["a"]},
      "junk",
      {"nonResourceURLs":["/metrics"],"verbs":["get"]}])"));
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0], (PolicyRule{{"get"}, {""}, {"pods"}, {"a"}, {}}));
  EXPECT_EQ(rules[1], (PolicyRule{{"get"}, {}, {}, {}, {"/metrics"}}));
}

TEST(RbacAttributes, DerivedAsKubeApiserver) {
  auto a = requestAttributes("GET", "/apis/apps/v1/deployments", {});
  EXPECT_TRUE(a.resourceRequest);
  EXPECT_EQ(a.verb, "list");
  EXPECT_EQ(a.group, "apps");
  EXPECT_EQ(a.resource, "deployments");
  EXPECT_EQ(a.ns, "");

  a = requestAttributes("GET", "/api/v1/namespaces/x/pods", {{"watch", "true"}});
  EXPECT_EQ(a.verb, "watch");
  EXPECT_EQ(a.ns, "x");
  EXPECT_EQ(requestAttributes("GET", "/api/v1/pods", {{"watch", "1"}}).verb, "watch");
  EXPECT_EQ(requestAttributes("GET", "/api/v1/pods", {{"watch", "false"}}).verb, "list");

  a = requestAttributes("PUT", "/apis/apps/v1/namespaces/x/deployments/web/status", {});
  EXPECT_EQ(a.verb, "update");
  EXPECT_EQ(a.name, "web");
  EXPECT_EQ(a.subresource, "status");

  EXPECT_EQ(requestAttributes("POST", "/api/v1/namespaces/x/configmaps", {}).verb, "create");
  EXPECT_EQ(requestAttributes("PATCH", "/api/v1/namespaces/x/configmaps/c", {}).verb, "patch");
  EXPECT_EQ(requestAttributes("DELETE", "/api/v1/namespaces/x/configmaps/c", {}).verb, "delete");
  EXPECT_EQ(requestAttributes("DELETE", "/api/v1/namespaces/x/configmaps", {}).verb,
            "deletecollection");

  // A Namespace is in its own namespace; its status is a subresource.
  a = requestAttributes("GET", "/api/v1/namespaces/x", {});
  EXPECT_EQ(a.resource, "namespaces");
  EXPECT_EQ(a.name, "x");
  EXPECT_EQ(a.ns, "x");
  a = requestAttributes("PUT", "/api/v1/namespaces/x/status", {});
  EXPECT_EQ(a.resource, "namespaces");
  EXPECT_EQ(a.subresource, "status");
  EXPECT_EQ(requestAttributes("POST", "/api/v1/namespaces", {}).ns, "");

  // A metadata.name field selector names the object of a list.
  a = requestAttributes("GET", "/api/v1/namespaces/x/configmaps",
                        {{"fieldSelector", "status.phase=x,metadata.name=foo"}});
  EXPECT_EQ(a.verb, "list");
  EXPECT_EQ(a.name, "foo");

  // Non-resource requests: discovery, version, metrics.
  for (const char* p : {"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version",
                        "/openapi/v2", "/metrics", "/healthz"}) {
    a = requestAttributes("GET", p, {});
    EXPECT_FALSE(a.resourceRequest) << p;
    EXPECT_EQ(a.verb, "get") << p;
    EXPECT_EQ(a.path, p);
  }
  EXPECT_EQ(requestAttributes("POST", "/metrics", {}).verb, "post");
}

std::string message(const RequestAttributes& a, const std::string& reason = "") {
  const auto status =
      forbiddenStatus(a, UserInfo{"system:serviceaccount:flotilla-system:op"}, reason);
  EXPECT_EQ(status.at("code"), 403);
  EXPECT_EQ(status.at("reason"), "Forbidden");
  return std::string(status.at("message").as_string());
}

TEST(RbacForbidden, MessagesAndDetailsAsKubeApiserver) {
  const std::string user = "User \"system:serviceaccount:flotilla-system:op\"";
  EXPECT_EQ(message(resource("list", "apps", "deployments")),
            "deployments.apps is forbidden: " + user +
                " cannot list resource \"deployments\" in API group \"apps\" at the cluster scope");
  EXPECT_EQ(message(resource("list", "apps", "deployments", "x")),
            "deployments.apps is forbidden: " + user +
                " cannot list resource \"deployments\" in API group \"apps\" in the namespace "
                "\"x\"");
  EXPECT_EQ(message(resource("get", "coordination.k8s.io", "leases", "flotilla-system", "l")),
            "leases.coordination.k8s.io \"l\" is forbidden: " + user +
                " cannot get resource \"leases\" in API group \"coordination.k8s.io\" in the "
                "namespace \"flotilla-system\"");
  EXPECT_EQ(message(resource("update", "flotilla.io", "resourcebindings", "", "b", "status")),
            "resourcebindings.flotilla.io \"b\" is forbidden: " + user +
                " cannot update resource \"resourcebindings/status\" in API group \"flotilla.io\" "
                "at the cluster scope");
  EXPECT_EQ(message(resource("get", "", "namespaces", "x", "x")),
            "namespaces \"x\" is forbidden: " + user +
                " cannot get resource \"namespaces\" in API group \"\" in the namespace \"x\"");
  EXPECT_EQ(message(path("get", "/metrics")),
            "forbidden: " + user + " cannot get path \"/metrics\"");
  EXPECT_EQ(message(resource("list", "x.io", "widgets", "x"),
                    "RBAC: role.rbac.authorization.k8s.io "
                    "\"gone\" not found"),
            "widgets.x.io is forbidden: " + user +
                " cannot list resource \"widgets\" in API group \"x.io\" in the namespace \"x\": "
                "RBAC: role.rbac.authorization.k8s.io \"gone\" not found");

  const auto named = forbiddenStatus(resource("get", "apps", "deployments", "x", "web", "scale"),
                                     UserInfo{"u"}, "");
  EXPECT_EQ(named.at("details"),
            json::parse(R"({"name":"web","group":"apps","kind":"deployments"})"));
  const auto core = forbiddenStatus(resource("list", "", "configmaps", "x"), UserInfo{"u"}, "");
  EXPECT_EQ(core.at("details"), json::parse(R"({"kind":"configmaps"})"));
  EXPECT_EQ(forbiddenStatus(path("get", "/metrics"), UserInfo{"u"}, "").at("details"),
            json::object{});
}

TEST(RbacEscalation, UncoveredRulesBrokenDownCompactedAndSorted) {
  const std::vector<PolicyRule> owner = {
      {{"get", "list", "watch"}, {"", "apps"}, {"pods", "deployments"}, {}, {}},
      {{"*"}, {"apps"}, {"deployments/status"}, {"a"}, {}},
      {{"get"}, {}, {}, {}, {"/healthz", "/api/*"}}};
  EXPECT_TRUE(uncoveredRules(owner, {{{"get"}, {""}, {"pods"}, {"p"}, {}},
                                     {{"update"}, {"apps"}, {"deployments/status"}, {"a"}, {}},
                                     {{"get"}, {}, {}, {}, {"/api/v1"}}})
                  .empty());
  const auto missing =
      uncoveredRules(owner, {{{"get", "create"}, {""}, {"pods", "nodes"}, {}, {}},
                             {{"update"}, {"apps"}, {"deployments/status"}, {"a", "b"}, {}},
                             {{"get", "post"}, {}, {}, {}, {"/metrics"}}});
  EXPECT_EQ(missing, (std::vector<std::string>{
                         R"({APIGroups:[""], Resources:["nodes"], Verbs:["get" "create"]})",
                         R"({APIGroups:[""], Resources:["pods"], Verbs:["create"]})",
                         R"({APIGroups:["apps"], Resources:["deployments/status"], )"
                         R"(ResourceNames:["b"], Verbs:["update"]})",
                         R"({NonResourceURLs:["/metrics"], Verbs:["get"]})",
                         R"({NonResourceURLs:["/metrics"], Verbs:["post"]})"}));
  // "*/scale" in the owner covers any resource's scale.
  EXPECT_TRUE(uncoveredRules({{{"*"}, {"apps"}, {"*/scale"}, {}, {}}},
                             {{{"get"}, {"apps"}, {"deployments/scale"}, {}, {}}})
                  .empty());
  EXPECT_EQ(escalationMessage(UserInfo{"u", "", {"g1", "g2"}}, {"{A}", "{B}"},
                              {"clusterroles.rbac.authorization.k8s.io \"x\" not found"}),
            "user \"u\" (groups=[\"g1\" \"g2\"]) is attempting to grant RBAC permissions not "
            "currently held:\n{A}\n{B}; resolution errors: [clusterroles.rbac.authorization.k8s.io "
            "\"x\" not found]");
}

}  // namespace
}  // namespace flotilla::sim
