#include "sim/server/admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/base64.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;

json::object config(const std::string& name, std::string_view webhooks) {
  return json::object{{"metadata", json::object{{"name", name}}},
                      {"webhooks", json::parse(webhooks)}};
}

AdmissionAttributes pods(const std::string& op, const std::string& sub = "") {
  AdmissionAttributes a;
  a.operation = op;
  a.version = "v1";
  a.resource = "pods";
  a.subresource = sub;
  a.kind = "Pod";
  a.ns = "team";
  a.name = "p";
  a.object = json::parse(R"({"metadata":{"name":"p","labels":{"app":"web"}}})").as_object();
  return a;
}

std::vector<std::string> names(const std::vector<Webhook>& hooks) {
  std::vector<std::string> out;
  for (const auto& h : hooks) out.push_back(h.name);
  return out;
}

TEST(Admission, RulesWildcardsSubresourcesScopeAndOrder) {
  const std::vector<json::object> configs = {
      config("b-config", R"([{"name":"all","rules":[{"operations":["*"],"apiGroups":["*"],
          "apiVersions":["*"],"resources":["*"]}]}])"),
      config("a-config", R"([
        {"name":"status-only","rules":[{"operations":["UPDATE"],"apiGroups":[""],
          "apiVersions":["v1"],"resources":["pods/status"]}]},
        {"name":"any-sub","rules":[{"operations":["UPDATE"],"apiGroups":[""],
          "apiVersions":["v1"],"resources":["*/*"]}]},
        {"name":"cluster-only","rules":[{"operations":["*"],"apiGroups":["*"],
          "apiVersions":["*"],"resources":["*"],"scope":"Cluster"}]},
        {"name":"creates","rules":[{"operations":["CREATE"],"apiGroups":[""],
          "apiVersions":["v1"],"resources":["pods"]}],
          "clientConfig":{"service":{"namespace":"ns","name":"svc","path":"/v","port":9443}},
          "timeoutSeconds":3,"failurePolicy":"Ignore"}])")};
  const std::map<std::string, std::string> noLabels;
  auto create = matchingWebhooks(configs, false, pods("CREATE"), noLabels);
  // Sorted by configuration name; "*" does not match subresources, "*/*" matches the main one too.
  EXPECT_EQ(names(create), (std::vector<std::string>{"creates", "all"}));
  EXPECT_EQ(create[0].url, "https://127.0.0.1:9443/v");
  EXPECT_EQ(create[0].serverName, "svc.ns.svc");
  EXPECT_EQ(create[0].timeout, std::chrono::seconds(3));
  EXPECT_TRUE(create[0].failOpen);
  EXPECT_FALSE(create[1].failOpen);  // failurePolicy defaults to Fail
  auto status = matchingWebhooks(configs, false, pods("UPDATE", "status"), noLabels);
  EXPECT_EQ(names(status), (std::vector<std::string>{"status-only", "any-sub"}));
}

TEST(Admission, NamespaceAndObjectSelectors) {
  const std::vector<json::object> configs = {config("c", R"([
      {"name":"labelled-ns","namespaceSelector":{"matchLabels":{"admission":"on"}},
       "rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}]},
      {"name":"web-objects","objectSelector":{"matchExpressions":[
         {"key":"app","operator":"In","values":["web"]}]},
       "rules":[{"operations":["*"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}]}])")};
  EXPECT_EQ(names(matchingWebhooks(configs, false, pods("CREATE"), {{"admission", "on"}})),
            (std::vector<std::string>{"labelled-ns", "web-objects"}));
  EXPECT_EQ(names(matchingWebhooks(configs, false, pods("CREATE"), {})),
            (std::vector<std::string>{"web-objects"}));
  auto deletion = pods("DELETE");
  deletion.oldObject = deletion.object;  // DELETE: only the old object carries labels
  deletion.object.reset();
  EXPECT_EQ(names(matchingWebhooks(configs, false, deletion, {})),
            (std::vector<std::string>{"web-objects"}));
  auto other = pods("CREATE");
  other.object = json::parse(R"({"metadata":{"name":"p","labels":{"app":"db"}}})").as_object();
  EXPECT_TRUE(matchingWebhooks(configs, false, other, {}).empty());
}

TEST(Admission, ReviewAndResponses) {
  auto attributes = pods("CREATE");
  const auto review = admissionReview(attributes, "uid-1");
  EXPECT_EQ(review.at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(review.at("request").at("uid"), "uid-1");
  EXPECT_EQ(review.at("request").at("namespace"), "team");
  EXPECT_EQ(review.at("request").at("resource").at("resource"), "pods");
  EXPECT_TRUE(review.at("request").at("oldObject").is_null());

  Webhook hook;
  hook.name = "deny.test";
  auto denied = parseAdmissionResponse(
      hook, R"({"response":{"uid":"uid-1","allowed":false,"status":{"message":"no"}}})", "uid-1");
  ASSERT_TRUE(denied);
  EXPECT_FALSE(denied->allowed);
  EXPECT_EQ(denied->denial.code, 400);
  EXPECT_EQ(denied->denial.message, "admission webhook \"deny.test\" denied the request: no");
  auto bare = parseAdmissionResponse(hook, R"({"response":{"uid":"u","allowed":false}})", "u");
  EXPECT_EQ(bare->denial.message,
            "admission webhook \"deny.test\" denied the request without explanation");
  auto wrongUid = parseAdmissionResponse(hook, R"({"response":{"uid":"x","allowed":true}})", "u");
  ASSERT_FALSE(wrongUid);
  EXPECT_EQ(wrongUid.error().code, 500);
  EXPECT_NE(wrongUid.error().message.find("failed calling webhook \"deny.test\""),
            std::string::npos);
  const std::string patch = api::base64Encode(R"([{"op":"add","path":"/spec","value":{}}])");
  auto validatingPatch = parseAdmissionResponse(
      hook,
      R"({"response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":")" + patch +
          R"("}})",
      "u");
  EXPECT_FALSE(validatingPatch);  // only mutating webhooks may patch
}

class ScriptedCaller final : public WebhookCaller {
 public:
  std::function<api::Result<std::string>(const Webhook&, const json::object&)> answer;
  api::Result<std::string> call(const Webhook& w, const std::string& body) override {
    return answer(w, json::parse(body).as_object());
  }
};

TEST(Admission, RunAppliesPatchesInOrderAndHonoursFailurePolicy) {
  ScriptedCaller caller;
  caller.answer = [](const Webhook& w, const json::object& review) -> api::Result<std::string> {
    const std::string uid(review.at("request").at("uid").as_string());
    if (w.name == "broken") return api::Error{api::reason::kTransport, 0, "connection refused", {}};
    const std::string op =
        w.name == "first"
            ? R"([{"op":"add","path":"/metadata/labels/first","value":"1"}])"
            // the second sees the first's patch applied
            : R"([{"op":"copy","from":"/metadata/labels/first","path":"/metadata/labels/second"}])";
    return api::okString(json::serialize(
        json::object{{"response", json::object{{"uid", uid},
                                               {"allowed", true},
                                               {"patchType", "JSONPatch"},
                                               {"patch", api::base64Encode(op)}}}}));
  };
  Webhook first, second, broken;
  first.name = "first";
  second.name = "second";
  broken.name = "broken";
  first.mutating = second.mutating = broken.mutating = true;
  broken.failOpen = true;
  auto attributes = pods("CREATE");
  std::vector<std::string> warnings;
  ASSERT_TRUE(runWebhooks(caller, {first, broken, second}, attributes, warnings));
  EXPECT_EQ(attributes.object->at("metadata").at("labels").at("second"), "1");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("failurePolicy Ignore"), std::string::npos);
  broken.failOpen = false;
  auto failed = runWebhooks(caller, {broken}, attributes, warnings);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message,
            "Internal error occurred: failed calling webhook \"broken\": connection refused");
}

}  // namespace
}  // namespace flotilla::sim
