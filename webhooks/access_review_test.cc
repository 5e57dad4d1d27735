// The FederatedCluster access check of docs/security.md (H1): when admission asks for a review,
// how the answers decide, and the SubjectAccessReview sent for it.
#include "webhooks/access_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>

#include "webhooks/admission.h"
#include "webhooks/http_handler.h"
#include "webhooks/no_cluster.h"

namespace flotilla::webhooks {
namespace {
namespace json = boost::json;

using testing::NoCluster;

json::object cluster(const std::string& endpoint, const std::string& secret, bool insecure = false,
                     const std::string& secretNamespace = "") {
  json::object ref{{"name", secret}};
  if (!secretNamespace.empty()) ref["namespace"] = secretNamespace;
  json::object spec{{"apiEndpoint", endpoint}, {"secretRef", ref}};
  if (insecure) spec["insecureSkipTLSVerify"] = true;
  return {{"apiVersion", "flotilla.io/v1alpha1"},
          {"kind", "FederatedCluster"},
          {"metadata", json::object{{"name", "evil"}}},
          {"spec", spec}};
}

AdmissionRequest request(const std::string& operation, json::object object,
                         json::value old = nullptr) {
  AdmissionRequest r;
  r.uid = "u-1";
  r.operation = operation;
  r.kind = {"flotilla.io", "v1alpha1", "FederatedCluster"};
  r.object = std::move(object);
  r.oldObject = std::move(old);
  r.username = r.user.username = "system:serviceaccount:team-a:deployer";
  r.user.groups = {"system:serviceaccounts", "system:authenticated"};
  return r;
}

const Route kValidate{"FederatedCluster", false};
const AccessCheck kMember1Secret{.verb = "get",
                                 .group = "",
                                 .resource = "secrets",
                                 .namespace_ = "flotilla-system",
                                 .name = "member1-credentials"};

TEST(RequiredAccess, CreateAsksForTheNamedSecretInItsDefaultedNamespace) {
  auto r =
      admit(kValidate, request("CREATE", cluster("https://attacker:443", "member1-credentials")),
            NoCluster{});
  ASSERT_TRUE(r.allowed) << r.status.message;
  ASSERT_EQ(r.requiredAccess.size(), 1u);
  AccessCheck expected = kMember1Secret;
  expected.why =
      "spec.secretRef names it as the credentials the operator sends to https://attacker:443";
  expected.rule = "only someone who may read the Secret may name it";
  EXPECT_EQ(r.requiredAccess[0], expected);
}

TEST(RequiredAccess, UpdatesAskOnlyWhenWhereTheCredentialsGoChanges) {
  const auto base = cluster("https://10.0.0.1:6443", "member1-credentials");
  struct Case {
    const char* what;
    json::object updated;
    bool asks;
  };
  json::object labelled = base;
  labelled["metadata"].as_object()["labels"] = json::object{{"env", "prod"}};
  const std::vector<Case> cases = {
      {"labels only", labelled, false},
      {"the same spec", base, false},
      {"another endpoint (the attack on an existing entry)",
       cluster("https://attacker:443", "member1-credentials"), true},
      {"another Secret", cluster("https://10.0.0.1:6443", "member2-credentials"), true},
      {"another namespace", cluster("https://10.0.0.1:6443", "member1-credentials", false, "ops"),
       true},
  };
  for (const auto& c : cases) {
    auto r = admit(kValidate, request("UPDATE", c.updated, base), NoCluster{});
    ASSERT_TRUE(r.allowed) << c.what << ": " << r.status.message;
    EXPECT_EQ(!r.requiredAccess.empty(), c.asks) << c.what;
  }
  // The defaulted namespace is the same Secret as the explicit one.
  auto r = admit(
      kValidate,
      request("UPDATE",
              cluster("https://10.0.0.1:6443", "member1-credentials", false, "flotilla-system"),
              base),
      NoCluster{});
  EXPECT_TRUE(r.requiredAccess.empty());
  // insecureSkipTLSVerify is refused outright (L1).
  r = admit(kValidate,
            request("CREATE", cluster("https://10.0.0.1:6443", "member1-credentials", true)),
            NoCluster{});
  EXPECT_FALSE(r.allowed);
  EXPECT_NE(r.status.message.find("spec.insecureSkipTLSVerify"), std::string::npos);
}

// An object being deleted is ratcheted (admitted despite errors), but moving where its
// credentials go still needs the Secret's reader.
TEST(RequiredAccess, ADeletingClusterStillAsks) {
  auto old = cluster("https://10.0.0.1:6443", "member1-credentials");
  old["metadata"].as_object()["deletionTimestamp"] = "2026-11-27T00:00:00Z";
  old["metadata"].as_object()["finalizers"] = json::array{"flotilla.io/cleanup"};
  auto moved = old;
  moved["spec"].as_object()["apiEndpoint"] = "https://attacker:443";
  moved["spec"].as_object()["taints"] = json::array{json::object{{"key", "x"}, {"effect", "Bad"}}};
  auto r = admit(kValidate, request("UPDATE", moved, old), NoCluster{});
  ASSERT_TRUE(r.allowed) << r.status.message;
  EXPECT_EQ(r.requiredAccess.size(), 1u);
}

TEST(RequiredAccess, OtherKindsAndOperationsAskNothing) {
  AdmissionRequest r = request("DELETE", json::object{});
  r.object = nullptr;
  EXPECT_TRUE(admit(kValidate, r, NoCluster{}).requiredAccess.empty());
  // The mutating webhook only defaults; the validating one asks.
  EXPECT_TRUE(admit({"FederatedCluster", true},
                    request("CREATE", cluster("https://10.0.0.1:6443", "member1-credentials")),
                    NoCluster{})
                  .requiredAccess.empty());
}

std::string review(const std::string& object) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7",
    "kind":{"group":"flotilla.io","version":"v1alpha1","kind":"FederatedCluster"},
    "operation":"CREATE","name":"evil",
    "userInfo":{"username":"alice","uid":"42","groups":["team-a","system:authenticated"],
                "extra":{"scopes":["a","b"]}},
    "object":)" +
         object + "}}";
}

HandledAdmission pending() {
  net::HttpRequest http{
      "POST",
      "/validate-flotilla-io-v1alpha1-federatedcluster",
      {{"Content-Type", "application/json"}},
      review(json::serialize(cluster("https://attacker:443", "member1-credentials")))};
  return handleAdmission(http, NoCluster{});
}

TEST(CompleteAdmission, TheUserMustBeAllowedAndAnErrorFailsClosed) {
  HandledAdmission h = pending();
  ASSERT_EQ(h.pendingAccess.size(), 1u);
  EXPECT_TRUE(h.response.body.empty());  // nothing written before the review
  EXPECT_EQ(h.user.username, "alice");
  EXPECT_EQ(h.user.uid, "42");
  EXPECT_EQ(h.user.groups, (std::vector<std::string>{"team-a", "system:authenticated"}));
  EXPECT_EQ(h.user.extra.at("scopes"), (std::vector<std::string>{"a", "b"}));

  HandledAdmission yes = h;
  completeAdmission(yes, {true});
  EXPECT_TRUE(yes.allowed);
  EXPECT_EQ(json::parse(yes.response.body).at("response").at("allowed"), true);

  HandledAdmission no = h;
  completeAdmission(no, {false});
  EXPECT_FALSE(no.allowed);
  const auto status = json::parse(no.response.body).at("response").at("status");
  EXPECT_EQ(status.at("code"), 403);
  EXPECT_EQ(status.at("message"),
            "user \"alice\" cannot get secrets \"member1-credentials\" in namespace "
            "\"flotilla-system\", and spec.secretRef names it as the credentials the operator "
            "sends to https://attacker:443: only someone who may read the Secret may name it "
            "(docs/security.md)");

  HandledAdmission broken = h;
  completeAdmission(broken, {api::Error{api::reason::kForbidden, 403, "no rights", {}}});
  EXPECT_FALSE(broken.allowed);
  EXPECT_EQ(json::parse(broken.response.body).at("response").at("status").at("code"), 500);

  HandledAdmission missing = h;
  completeAdmission(missing, {});
  EXPECT_FALSE(missing.allowed);
}

// Property: over random answers, a request is admitted exactly when every review said yes.
TEST(CompleteAdmission, AdmittedIffEveryReviewAllows) {
  std::mt19937 random(7);
  for (int i = 0; i < 200; ++i) {
    HandledAdmission h = pending();
    const size_t checks = 1 + random() % 3;
    h.pendingAccess.assign(checks, kMember1Secret);
    std::vector<api::Result<bool>> answers;
    bool all = true;
    const size_t given = random() % 5 == 0 ? checks - 1 : checks;
    for (size_t c = 0; c < given; ++c) {
      switch (random() % 3) {
        case 0:
          answers.emplace_back(true);
          break;
        case 1:
          answers.emplace_back(false);
          all = false;
          break;
        default:
          answers.emplace_back(api::Error{api::reason::kTimeout, 504, "timeout", {}});
          all = false;
      }
    }
    if (given < checks) all = false;
    completeAdmission(h, answers);
    EXPECT_EQ(h.allowed, all) << i;
    EXPECT_EQ(json::parse(h.response.body).at("response").at("allowed").as_bool(), all) << i;
  }
}

TEST(SubjectAccessReview, AsksAsTheRequestingUser) {
  UserInfo user{
      .username = "alice", .uid = "42", .groups = {"team-a"}, .extra = {{"scopes", {"a"}}}};
  const auto body = subjectAccessReview(user, kMember1Secret);
  EXPECT_EQ(json::serialize(body),
            R"({"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{)"
            R"("user":"alice","groups":["team-a"],"resourceAttributes":{"verb":"get","group":"",)"
            R"("version":"*","resource":"secrets","namespace":"flotilla-system",)"
            R"("name":"member1-credentials"},"uid":"42","extra":{"scopes":["a"]}}})");
  auto yes = accessAllowed(json::parse(R"({"status":{"allowed":true}})").as_object());
  ASSERT_TRUE(yes);
  EXPECT_TRUE(*yes);
  auto no = accessAllowed(json::parse(R"({"status":{"allowed":false,"denied":true}})").as_object());
  ASSERT_TRUE(no);
  EXPECT_FALSE(*no);
  for (const char* bad :
       {R"({})", R"({"status":{}})", R"({"status":{"allowed":"true"}})", R"({"status":[]})"}) {
    EXPECT_FALSE(accessAllowed(json::parse(bad).as_object())) << bad;
  }
}

}  // namespace
}  // namespace flotilla::webhooks
