// RBAC through a real ApiServer over HTTP: ServiceAccount tokens from the TokenRequest
// subresource, 403 Forbidden until a RoleBinding grants access, escalation prevention,
// SelfSubjectAccessReview and token-file users.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>

#include "api/base64.h"
#include "kube/net/http_client.h"
#include "kube/net/test_server.h"
#include "sim/server/api_server.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

struct Reply {
  int status = 0;
  json::value body;
};

class RbacApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = Store::open(StoreOptions{}).value();
    ApiServerOptions options;
    options.tokens = {"admin-token"};
    options.tokenFile = {{"alice-token", UserInfo{"alice", "a1", {"dev"}}}};
    options.now = [this] { return api::Clock::now() + skew_.load(); };
    api_ = std::make_unique<ApiServer>(*store_, options);
    ASSERT_TRUE(api_->bootstrap());
    net::HttpServerOptions serverOptions;
    serverOptions.errorResponse = ApiServer::errorResponse;
    server_ = std::make_unique<net::HttpServer>(io_.io(), serverOptions, api_->handler());
    ASSERT_TRUE(server_->start());
    client_ = std::make_unique<net::HttpClient>(io_.io().get_executor(),
                                                net::parseEndpoint(server_->url()).value(),
                                                net::HttpClientOptions{});
  }
  void TearDown() override {
    client_.reset();
    server_->stop();
  }

  Reply call(const std::string& token, std::string method, std::string target,
             std::string body = "") {
    net::HttpRequest req{std::move(method), std::move(target), {}, std::move(body)};
    req.headers.emplace_back("Authorization", "Bearer " + token);
    req.headers.emplace_back("Content-Type", "application/json");
    auto response = io_.run(client_->request(std::move(req), 10s));
    EXPECT_TRUE(response) << response.error().message;
    Reply r{response->status, nullptr};
    boost::system::error_code ec;
    r.body = json::parse(response->body, ec);
    return r;
  }
  Reply admin(std::string method, std::string target, std::string body = "") {
    return call("admin-token", std::move(method), std::move(target), std::move(body));
  }
  std::string tokenFor(const std::string& ns, const std::string& name) {
    auto r = admin("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts/" + name + "/token",
                   R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest"})");
    EXPECT_EQ(r.status, 201);
    return std::string(r.body.at("status").at("token").as_string());
  }

  std::atomic<std::chrono::seconds> skew_{0s};
  net::testing::IoThread io_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<net::HttpClient> client_;
};

TEST_F(RbacApiTest, ServiceAccountTokenIsForbiddenUntilARoleBindingAllows) {
  ASSERT_EQ(admin("POST", "/api/v1/namespaces",
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
                .status,
            201);
  ASSERT_EQ(admin("POST", "/api/v1/namespaces/team/serviceaccounts",
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"bot"}})")
                .status,
            201);
  auto request = admin("POST", "/api/v1/namespaces/team/serviceaccounts/bot/token",
                       R"({"spec":{"expirationSeconds":1200,"audiences":[]}})");
  ASSERT_EQ(request.status, 201);
  EXPECT_EQ(request.body.at("kind"), "TokenRequest");
  EXPECT_EQ(request.body.at("spec").at("expirationSeconds"), 1200);
  EXPECT_EQ(request.body.at("spec").at("audiences"),
            json::array{"https://kubernetes.default.svc.cluster.local"});
  const std::string token(request.body.at("status").at("token").as_string());

  // Discovery is open to every authenticated user; the resources are not.
  EXPECT_EQ(call(token, "GET", "/apis/apps/v1").status, 200);
  auto denied = call(token, "GET", "/api/v1/namespaces/team/configmaps");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body.at("reason"), "Forbidden");
  EXPECT_EQ(denied.body.at("message"),
            "configmaps is forbidden: User \"system:serviceaccount:team:bot\" cannot list resource "
            "\"configmaps\" in API group \"\" in the namespace \"team\"");
  EXPECT_EQ(denied.body.at("details"), json::parse(R"({"kind":"configmaps"})"));

  ASSERT_EQ(admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings",
                  R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                      "metadata":{"name":"bot-view"},
                      "roleRef":{"kind":"ClusterRole","name":"view"},
                      "subjects":[{"kind":"ServiceAccount","name":"bot","namespace":"team"}]})")
                .status,
            201);
  auto binding =
      admin("GET", "/apis/rbac.authorization.k8s.io/v1/namespaces/team/rolebindings/bot-view");
  EXPECT_EQ(binding.body.at("roleRef").at("apiGroup"), "rbac.authorization.k8s.io");  // defaulted
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/team/configmaps").status, 200);
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/other/configmaps").status, 403);
  EXPECT_EQ(call(token, "POST", "/api/v1/namespaces/team/configmaps",
                 R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})")
                .status,
            403);

  // can-i
  auto review = call(token, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                     R"({"spec":{"resourceAttributes":{"namespace":"team","verb":"list",
                         "resource":"pods"}}})");
  EXPECT_EQ(review.status, 201);
  EXPECT_EQ(review.body.at("status").at("allowed"), true);
  EXPECT_EQ(review.body.at("status").at("reason"),
            "RBAC: allowed by RoleBinding \"bot-view/team\" of ClusterRole \"view\" to "
            "ServiceAccount \"bot/team\"");

  // SubjectAccessReview: about spec.user and spec.groups, and only for who may create one
  // (a webhook asking about the user behind an admission request, docs/security.md).
  const std::string subjectReview =
      R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview",
          "spec":{"user":"system:serviceaccount:team:bot",
                  "groups":["system:serviceaccounts","system:authenticated"],
                  "resourceAttributes":{"namespace":"team","verb":"get","resource":"configmaps",
                                        "name":"c"}}})";
  auto subject = admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", subjectReview);
  EXPECT_EQ(subject.status, 201);
  EXPECT_EQ(subject.body.at("kind"), "SubjectAccessReview");
  EXPECT_EQ(subject.body.at("status").at("allowed"), true);
  auto other = admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                     R"({"spec":{"user":"system:serviceaccount:team:bot",
                         "resourceAttributes":{"namespace":"flotilla-system","verb":"get",
                                               "resource":"secrets","name":"member1-credentials"}}})");
  EXPECT_EQ(other.body.at("status").at("allowed"), false);
  EXPECT_EQ(call(token, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", subjectReview)
                .status,
            403);  // the bot may not ask about others
  EXPECT_EQ(admin("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
                  R"({"spec":{"resourceAttributes":{"verb":"get","resource":"pods"}}})")
                .status,
            422);

  // The token expires, and it stops working when the ServiceAccount goes.
  skew_ = 1201s;
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/team/configmaps").status, 401);
  skew_ = 0s;
  ASSERT_EQ(admin("DELETE", "/api/v1/namespaces/team/serviceaccounts/bot").status, 200);
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/team/configmaps").status, 401);
  ASSERT_EQ(admin("POST", "/api/v1/namespaces/team/serviceaccounts",
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"bot"}})")
                .status,
            201);
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/team/configmaps").status, 401);  // new uid
}

// kube-controller-manager's token controller: a kubernetes.io/service-account-token Secret is
// answered empty, then filled (or deleted without its account); its token is the account's until
// the Secret goes, and never expires (the long-lived credential flotillactl join gives a member).
TEST_F(RbacApiTest, TokenSecretIsFilledAndLivesAsLongAsTheSecret) {
  ASSERT_EQ(admin("POST", "/api/v1/namespaces",
                  R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
                .status,
            201);
  const std::string secret =
      R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token",)"
      R"("metadata":{"name":"bot-token","annotations":{"kubernetes.io/service-account.name":"bot"}}})";
  // No ServiceAccount: kube's controller deletes such a Secret (its token could never work).
  ASSERT_EQ(admin("POST", "/api/v1/namespaces/team/secrets", secret).status, 201);
  EXPECT_EQ(admin("GET", "/api/v1/namespaces/team/secrets/bot-token").status, 404);
  auto account = admin("POST", "/api/v1/namespaces/team/serviceaccounts",
                       R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"bot"}})");
  ASSERT_EQ(account.status, 201);
  auto created = admin("POST", "/api/v1/namespaces/team/secrets", secret);
  ASSERT_EQ(created.status, 201);
  EXPECT_FALSE(created.body.as_object().contains("data"));  // as kube: the controller fills it
  auto filled = admin("GET", "/api/v1/namespaces/team/secrets/bot-token");
  ASSERT_TRUE(filled.body.at("data").as_object().contains("token"));
  EXPECT_EQ(filled.body.at("data").at("namespace").as_string(), api::base64Encode("team"));
  EXPECT_EQ(filled.body.at("metadata").at("annotations").at("kubernetes.io/service-account.uid"),
            account.body.at("metadata").at("uid"));
  const std::string token =
      api::base64Decode(filled.body.at("data").at("token").as_string()).value();
  auto denied = call(token, "GET", "/api/v1/namespaces/team/configmaps");
  EXPECT_EQ(denied.status, 403);
  EXPECT_EQ(denied.body.at("message"),
            "configmaps is forbidden: User \"system:serviceaccount:team:bot\" cannot list resource "
            "\"configmaps\" in API group \"\" in the namespace \"team\"");
  skew_ = std::chrono::hours(24 * 365 * 10);
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/team/configmaps").status, 403);  // no expiry
  skew_ = 0s;
  ASSERT_EQ(admin("DELETE", "/api/v1/namespaces/team/secrets/bot-token").status, 200);
  EXPECT_EQ(call(token, "GET", "/api/v1/namespaces/team/configmaps").status, 401);  // revoked
  // The account goes: so do its token Secrets.
  ASSERT_EQ(admin("POST", "/api/v1/namespaces/team/secrets", secret).status, 201);
  ASSERT_EQ(admin("GET", "/api/v1/namespaces/team/secrets/bot-token").status, 200);
  ASSERT_EQ(admin("DELETE", "/api/v1/namespaces/team/serviceaccounts/bot").status, 200);
  EXPECT_EQ(admin("GET", "/api/v1/namespaces/team/secrets/bot-token").status, 404);
}

TEST_F(RbacApiTest, TokenRequestErrors) {
  auto missing = admin("POST", "/api/v1/namespaces/default/serviceaccounts/nope/token", "{}");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body.at("message"), "serviceaccounts \"nope\" not found");
  admin("POST", "/api/v1/namespaces/default/serviceaccounts",
        R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"sa"}})");
  auto shortLived = admin("POST", "/api/v1/namespaces/default/serviceaccounts/sa/token",
                          R"({"spec":{"expirationSeconds":5}})");
  EXPECT_EQ(shortLived.status, 422);
  EXPECT_EQ(shortLived.body.at("message"),
            "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
            "value: 5: may not specify a duration less than 10 minutes");
  EXPECT_EQ(shortLived.body.at("details"),
            json::parse(R"({"group":"authentication.k8s.io","kind":"TokenRequest","causes":[
                {"reason":"FieldValueInvalid","field":"spec.expirationSeconds",
                 "message":"Invalid value: 5: may not specify a duration less than 10 minutes"}]})"));
  // A token for another audience does not authenticate here.
  auto other = admin("POST", "/api/v1/namespaces/default/serviceaccounts/sa/token",
                     R"({"spec":{"audiences":["vault"]}})");
  EXPECT_EQ(
      call(std::string(other.body.at("status").at("token").as_string()), "GET", "/api").status,
      401);
}

TEST_F(RbacApiTest, EscalationIsForbiddenAndTokenFileUsersAuthenticate) {
  EXPECT_EQ(call("alice-token", "GET", "/api").status, 200);
  EXPECT_EQ(call("wrong", "GET", "/api").status, 401);
  // alice may manage RBAC in "default" (admin), but not grant what she does not hold.
  ASSERT_EQ(admin("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
                  R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                      "metadata":{"name":"alice-admin"},
                      "roleRef":{"kind":"ClusterRole","name":"admin"},
                      "subjects":[{"kind":"User","name":"alice"}]})")
                .status,
            201);
  auto role =
      call("alice-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles",
           R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
                       "metadata":{"name":"nodes"},
                       "rules":[{"apiGroups":[""],"resources":["nodes"],"verbs":["get","list"]},
                                {"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
  EXPECT_EQ(role.status, 403);
  EXPECT_EQ(role.body.at("message"),
            "roles.rbac.authorization.k8s.io \"nodes\" is forbidden: user \"alice\" "
            "(groups=[\"dev\" \"system:authenticated\"]) is attempting to grant RBAC permissions "
            "not currently held:\n{APIGroups:[\"\"], Resources:[\"nodes\"], Verbs:[\"get\" "
            "\"list\"]}");
  EXPECT_EQ(role.body.at("details"),
            json::parse(R"({"name":"nodes","group":"rbac.authorization.k8s.io","kind":"roles"})"));
  auto binding = call("alice-token", "POST",
                      "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
                      R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                          "metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"nope"},
                          "subjects":[{"kind":"User","name":"bob"}]})");
  EXPECT_EQ(binding.status, 404);
  EXPECT_EQ(
      binding.body.at("details"),
      json::parse(R"({"name":"nope","group":"rbac.authorization.k8s.io","kind":"clusterroles"})"));
  // What she holds she may grant.
  EXPECT_EQ(call("alice-token", "POST",
                 "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings",
                 R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
                     "metadata":{"name":"bob-view"},"roleRef":{"kind":"ClusterRole","name":"view"},
                     "subjects":[{"kind":"User","name":"bob"}]})")
                .status,
            201);
}

TEST_F(RbacApiTest, DiscoveryListsTheRbacResourcesAndTheTokenSubresource) {
  auto rbac = admin("GET", "/apis/rbac.authorization.k8s.io/v1");
  ASSERT_EQ(rbac.status, 200);
  std::vector<std::string> names;
  for (const auto& r : rbac.body.at("resources").as_array())
    names.emplace_back(r.at("name").as_string());
  EXPECT_EQ(names, (std::vector<std::string>{"clusterrolebindings", "clusterroles", "rolebindings",
                                             "roles"}));
  bool token = false;
  const auto core = admin("GET", "/api/v1");
  for (const auto& r : core.body.at("resources").as_array())
    if (r.at("name") == "serviceaccounts/token") {
      token = true;
      EXPECT_EQ(r.at("kind"), "TokenRequest");
      EXPECT_EQ(r.at("verbs"), json::array{"create"});
    }
  EXPECT_TRUE(token);
}

}  // namespace
}  // namespace flotilla::sim
