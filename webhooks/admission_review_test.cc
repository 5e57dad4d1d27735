#include "webhooks/admission_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/base64.h"

namespace flotilla::webhooks {
namespace {
namespace json = boost::json;

const char* kReview = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
  "request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
    "kind":{"group":"flotilla.io","version":"v1alpha1","kind":"PropagationPolicy"},
    "resource":{"group":"flotilla.io","version":"v1alpha1","resource":"propagationpolicies"},
    "requestKind":{"group":"flotilla.io","version":"v1alpha1","kind":"PropagationPolicy"},
    "name":"spread","namespace":"demo","operation":"UPDATE",
    "userInfo":{"username":"admin","groups":["system:masters"]},
    "object":{"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy"},
    "oldObject":{"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy"},
    "dryRun":true,"options":{"apiVersion":"meta.k8s.io/v1","kind":"UpdateOptions"}}})";

TEST(AdmissionReview, DecodesEveryFieldTheWebhookUses) {
  auto r = decodeAdmissionReview(kReview);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(r->kind.group, "flotilla.io");
  EXPECT_EQ(r->kind.kind, "PropagationPolicy");
  EXPECT_EQ(r->resource, "propagationpolicies");
  EXPECT_EQ(r->operation, "UPDATE");
  EXPECT_EQ(r->namespace_, "demo");
  EXPECT_EQ(r->name, "spread");
  EXPECT_EQ(r->username, "admin");
  EXPECT_TRUE(r->object.is_object());
  EXPECT_TRUE(r->oldObject.is_object());
  EXPECT_TRUE(r->dryRun);
}

TEST(AdmissionReview, BadRequestsAreClearErrors) {
  struct Case {
    std::string body, expected;
  };
  const std::string gvk = R"("kind":{"group":"flotilla.io","version":"v1alpha1","kind":"X"})";
  std::vector<Case> cases = {
      {"not json", "the body is not JSON"},
      {"[1,2]", "not a JSON object"},
      {R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}})",
       "this webhook speaks only admission.k8s.io/v1"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"Pod"})", "expected \"AdmissionReview\""},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "request is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"operation":"CREATE",)" +
           gvk + "}}",
       "request.uid is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}})",
       "request.uid must be a string"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE"}})",
       "request.kind is missing"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE",)" +
           gvk + R"(,"object":"x"}})",
       "request.object must be an object"},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE",)" +
           gvk + R"(,"dryRun":"yes"}})",
       "request.dryRun must be a boolean"},
      {std::string(1, '\0'), "not JSON"},
  };
  for (const auto& c : cases) {
    auto r = decodeAdmissionReview(c.body);
    ASSERT_FALSE(r) << c.body;
    EXPECT_EQ(r.error().code, 400);
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos)
        << c.body << " → " << r.error().message;
  }
}

TEST(AdmissionReview, EncodesAllowedWithPatchAndWarnings) {
  AdmissionResponse response;
  response.uid = "u1";
  response.patch = json::array{json::object{{"op", "add"}, {"path", "/a"}, {"value", 1}}};
  response.warnings = {"careful"};
  json::value v = json::parse(encodeAdmissionReview(response));
  EXPECT_EQ(v.at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(v.at("kind"), "AdmissionReview");
  const auto& r = v.at("response");
  EXPECT_EQ(r.at("uid"), "u1");
  EXPECT_EQ(r.at("allowed"), true);
  EXPECT_EQ(r.at("patchType"), "JSONPatch");
  auto patch = api::base64Decode(std::string(r.at("patch").as_string()));
  ASSERT_TRUE(patch);
  EXPECT_EQ(json::parse(*patch), json::parse(R"([{"op":"add","path":"/a","value":1}])"));
  EXPECT_EQ(r.at("warnings"), json::parse(R"(["careful"])"));
  EXPECT_EQ(r.as_object().if_contains("status"), nullptr);
}

TEST(AdmissionReview, EncodesDenialAsAStatusWithCauses) {
  auto response = denied("u2", api::Error{api::reason::kForbidden,
                                          403,
                                          "bad",
                                          {{"spec.a", "Required value"},
                                           {"spec.b", "Unsupported value: \"x\""},
                                           {"spec.c", "must be >= minGroups"}}});
  json::value v = json::parse(encodeAdmissionReview(response));
  const auto& r = v.at("response");
  EXPECT_EQ(r.at("allowed"), false);
  const auto& s = r.at("status");
  EXPECT_EQ(s.at("status"), "Failure");
  EXPECT_EQ(s.at("code"), 403);
  EXPECT_EQ(s.at("reason"), "Forbidden");
  EXPECT_EQ(s.at("message"), "bad");
  const auto& causes = s.at("details").at("causes").as_array();
  ASSERT_EQ(causes.size(), 3u);
  EXPECT_EQ(causes[0].at("reason"), "FieldValueRequired");
  EXPECT_EQ(causes[0].at("field"), "spec.a");
  EXPECT_EQ(causes[1].at("reason"), "FieldValueNotSupported");
  EXPECT_EQ(causes[2].at("reason"), "FieldValueInvalid");
  EXPECT_EQ(causes[2].at("message"), "must be >= minGroups");
  EXPECT_EQ(r.as_object().if_contains("patch"), nullptr);
}

}  // namespace
}  // namespace flotilla::webhooks
