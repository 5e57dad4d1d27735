// A federated object's template is written on the members with the operator's credentials: its
// author must be allowed to write it on the host (docs/security.md, "FederatedObject templates").
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "webhooks/admission.h"
#include "webhooks/http_handler.h"
#include "webhooks/no_cluster.h"

namespace flotilla::webhooks {
namespace {
namespace json = boost::json;

using testing::NoCluster;

json::object federated(const std::string& kind, const std::string& ns, const char* tmpl) {
  json::object metadata{{"name", "x"}};
  if (!ns.empty()) metadata["namespace"] = ns;
  return {{"apiVersion", "flotilla.io/v1alpha1"},
          {"kind", kind},
          {"metadata", std::move(metadata)},
          {"spec", json::object{{"template", json::parse(tmpl)}}}};
}

AdmissionResponse admitAs(const std::string& operation, const json::object& object,
                          json::value old = nullptr) {
  AdmissionRequest r;
  r.uid = "u-1";
  r.operation = operation;
  r.kind = {"flotilla.io", "v1alpha1", std::string(object.at("kind").as_string())};
  r.namespace_ = json::value_to<std::string>(object.at("metadata").as_object().contains("namespace")
                                                 ? object.at("metadata").at("namespace")
                                                 : json::value(""));
  r.object = object;
  r.oldObject = std::move(old);
  r.username = r.user.username = "alice";
  return admit({r.kind.kind, false}, r, NoCluster{});
}

const char* kConfigMap =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},"data":{"k":"v"}})";

TEST(TemplateAccess, CreatingAFederatedObjectAsksToCreateItsTemplateOnTheHost) {
  const auto r = admitAs("CREATE", federated("FederatedObject", "shop", kConfigMap));
  ASSERT_TRUE(r.allowed) << r.status.message;
  ASSERT_EQ(r.requiredAccess.size(), 1u);
  const AccessCheck& c = r.requiredAccess[0];
  EXPECT_EQ(c.verb, "create");
  EXPECT_EQ(c.resource, "");  // found from the kind by the host's discovery
  EXPECT_EQ(c.apiVersion, "v1");
  EXPECT_EQ(c.kind, "ConfigMap");
  EXPECT_EQ(c.namespace_, "shop");
  EXPECT_EQ(c.name, "cfg");
  EXPECT_EQ(c.namespaced, true);
  EXPECT_EQ(c.rule, "a FederatedObject may hold only what its author may write on the host");
}

TEST(TemplateAccess, UpdatesAskOnlyWhenTheTemplateChanges) {
  const json::object before = federated("FederatedObject", "shop", kConfigMap);
  json::object same = before;
  same["metadata"].as_object()["labels"] = json::object{{"a", "b"}};
  EXPECT_TRUE(admitAs("UPDATE", same, before).requiredAccess.empty());
  json::object changed = before;
  changed["spec"].as_object()["template"].as_object()["data"] = json::object{{"k", "v2"}};
  const auto r = admitAs("UPDATE", changed, before);
  ASSERT_EQ(r.requiredAccess.size(), 1u);
  EXPECT_EQ(r.requiredAccess[0].verb, "update");
}

TEST(TemplateAccess, RbacKindsAlsoAskToEscalateOrToBind) {
  const auto role = admitAs(
      "CREATE", federated("ClusterFederatedObject", "",
                          R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
                              "metadata":{"name":"all"},"rules":[]})"));
  ASSERT_EQ(role.requiredAccess.size(), 2u) << role.status.message;
  EXPECT_EQ(role.requiredAccess[0].namespaced, false);
  EXPECT_EQ(role.requiredAccess[1].verb, "escalate");
  EXPECT_EQ(role.requiredAccess[1].resource, "clusterroles");
  EXPECT_EQ(role.requiredAccess[1].name, "all");

  const auto binding = admitAs(
      "CREATE", federated("FederatedObject", "shop",
                          R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                              "metadata":{"name":"me-admin"},
                              "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},
                              "subjects":[{"kind":"User","name":"alice"}]})"));
  ASSERT_EQ(binding.requiredAccess.size(), 2u) << binding.status.message;
  const AccessCheck& bind = binding.requiredAccess[1];
  EXPECT_EQ(bind.verb, "bind");
  EXPECT_EQ(bind.group, "rbac.authorization.k8s.io");
  EXPECT_EQ(bind.resource, "clusterroles");
  EXPECT_EQ(bind.name, "cluster-admin");
  EXPECT_EQ(bind.namespace_, "shop");
}

// An override can change what a cluster's copy grants: every cluster's object is asked for,
// also when only the overrides change.
TEST(TemplateAccess, OverridesAreAskedForAsWhatTheirClusterReceives) {
  json::object before = federated(
      "FederatedObject", "shop",
      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"view"},
          "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"view"},
          "subjects":[{"kind":"User","name":"alice"}]})");
  json::object after = before;
  after["spec"].as_object()["overrides"] = json::parse(
      R"([{"clusterName":"member2","patches":[{"op":"replace","path":"/roleRef/name","value":"admin"}]}])");
  const auto r = admitAs("UPDATE", after, before);
  ASSERT_TRUE(r.allowed) << r.status.message;
  bool asksAdmin = false;
  for (const auto& c : r.requiredAccess)
    asksAdmin = asksAdmin || (c.verb == "bind" && c.name == "admin");
  EXPECT_TRUE(asksAdmin) << "member2's copy binds admin";
}

TEST(TemplateAccess, ARefusalNamesTheKindAndTheRule) {
  const json::object fo = federated("FederatedObject", "shop", kConfigMap);
  const std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7",
      "kind":{"group":"flotilla.io","version":"v1alpha1","kind":"FederatedObject"},
      "operation":"CREATE","name":"x","namespace":"shop","userInfo":{"username":"alice"},
      "object":)" +
      json::serialize(fo) + "}}";
  net::HttpRequest http{"POST",
                        "/validate-flotilla-io-v1alpha1-federatedobject",
                        {{"Content-Type", "application/json"}},
                        body};
  HandledAdmission h = handleAdmission(http, NoCluster{});
  ASSERT_EQ(h.pendingAccess.size(), 1u);
  completeAdmission(h, {false});
  EXPECT_FALSE(h.allowed);
  EXPECT_EQ(json::parse(h.response.body).at("response").at("status").at("message"),
            "user \"alice\" cannot create ConfigMap \"cfg\" in namespace \"shop\", and "
            "spec.template holds it, which the operator writes on the members: a FederatedObject "
            "may hold only what its author may write on the host (docs/security.md)");
  // The operator's own requests (a trusted user) are answered at once, without a review: its
  // federate controller makes federated objects of kinds it may only read.
  HandledAdmission trusted = handleAdmission(http, NoCluster{}, {"alice"});
  EXPECT_TRUE(trusted.pendingAccess.empty());
  EXPECT_TRUE(trusted.allowed);
  EXPECT_EQ(trusted.response.status, 200);
}

}  // namespace
}  // namespace flotilla::webhooks
