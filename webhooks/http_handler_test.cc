#include "webhooks/http_handler.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "webhooks/no_cluster.h"

namespace flotilla::webhooks {
namespace {
namespace json = boost::json;

using testing::NoCluster;

const char* kPath = "/mutate-flotilla-io-v1alpha1-propagationpolicy";

net::HttpRequest post(std::string target, std::string body, std::string type = "application/json") {
  return net::HttpRequest{
      "POST", std::move(target), {{"Content-Type", std::move(type)}}, std::move(body)};
}

std::string review(const std::string& object) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-9",
    "kind":{"group":"flotilla.io","version":"v1alpha1","kind":"PropagationPolicy"},
    "operation":"CREATE","namespace":"demo","name":"p","object":)" +
         object + "}}";
}

TEST(HttpHandler, AnswersAReviewWithItsUid) {
  auto h = handleAdmission(
      post(kPath, review(R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
                             "metadata":{"name":"p","namespace":"demo"},"spec":{}})")),
      NoCluster{});
  EXPECT_EQ(h.response.status, 200);
  EXPECT_EQ(h.response.header("Content-Type"), "application/json");
  EXPECT_EQ(h.path, kPath);
  EXPECT_TRUE(h.allowed);
  json::value v = json::parse(h.response.body);
  EXPECT_EQ(v.at("response").at("uid"), "u-9");
  EXPECT_EQ(v.at("response").at("patchType"), "JSONPatch");
}

TEST(HttpHandler, BadRequestsGetCleanAnswers) {
  NoCluster none;
  EXPECT_EQ(handleAdmission(post("/validate-flotilla-io-v1alpha1-pod", "{}"), none).response.status,
            404);
  auto get = post(kPath, "");
  get.method = "GET";
  auto h = handleAdmission(get, none);
  EXPECT_EQ(h.response.status, 405);
  EXPECT_EQ(h.response.header("Allow"), "POST");
  EXPECT_EQ(handleAdmission(post(kPath, "{}", "application/yaml"), none).response.status, 415);
  EXPECT_EQ(
      handleAdmission(post(kPath, "{}", "application/json; charset=utf-8"), none).response.status,
      400);  // the type is fine; an empty object is not a review

  for (std::string body : {std::string("garbage"), std::string("{}"),
                           std::string(R"({"apiVersion":"admission.k8s.io/v1beta1",
                                           "kind":"AdmissionReview","request":{"uid":"x"}})")}) {
    auto bad = handleAdmission(post(kPath, body), none);
    EXPECT_EQ(bad.response.status, 400) << body;
    EXPECT_FALSE(bad.allowed);
    json::value v = json::parse(bad.response.body);
    EXPECT_EQ(v.at("response").at("allowed"), false);
    EXPECT_EQ(v.at("response").at("status").at("code"), 400);
    EXPECT_NE(std::string(v.at("response").at("status").at("message").as_string())
                  .find("invalid AdmissionReview"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace flotilla::webhooks
