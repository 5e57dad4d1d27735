#include "sim/server/admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/base64.h"
#include "kube/net/http_server.h"
#include "kube/net/test_server.h"
#include "kube/net/tls.h"

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
  std::optional<json::object> details;
  ASSERT_TRUE(runWebhooks(caller, {first, broken, second}, attributes, warnings, details));
  EXPECT_EQ(attributes.object->at("metadata").at("labels").at("second"), "1");
  EXPECT_TRUE(warnings.empty());  // Ignore: skipped silently, as kube-apiserver
  broken.failOpen = false;
  auto failed = runWebhooks(caller, {broken}, attributes, warnings, details);
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().code, 500);
  EXPECT_EQ(failed.error().reason, "InternalError");
  EXPECT_EQ(failed.error().message,
            "Internal error occurred: failed calling webhook \"broken\": connection refused");
  // kube-apiserver's details of a failed call: one cause, the message without the prefix.
  EXPECT_EQ(details, json::parse(R"({"causes":[
      {"message":"failed calling webhook \"broken\": connection refused"}]})")
                         .as_object());
}

// One denial shape: what the sim's Status will be (code, reason, message, details).
struct Denial {
  int code;
  std::string reason, message;
  std::optional<json::object> details;
  std::vector<std::string> warnings;
};

Denial deny(std::string_view response) {
  ScriptedCaller caller;
  const std::string text(response);
  caller.answer = [text](const Webhook&, const json::object& review) -> api::Result<std::string> {
    auto answer = json::parse(text).as_object();
    answer["uid"] = review.at("request").at("uid");
    return api::okString(json::serialize(json::object{{"response", answer}}));
  };
  Webhook hook;
  hook.name = "check.flotilla.io";
  auto attributes = pods("CREATE");
  Denial out;
  auto ran = runWebhooks(caller, {hook}, attributes, out.warnings, out.details);
  EXPECT_FALSE(ran);
  if (ran) return out;
  out.code = ran.error().code;
  out.reason = ran.error().reason;
  out.message = ran.error().message;
  return out;
}

// Each shape compared with kube-apiserver v1.24 (docs/sim.md, "Admission webhooks").
TEST(Admission, DenialsPassTheWebhookStatusThroughAsKubeApiserver) {
  const std::string deniedBy = "admission webhook \"check.flotilla.io\" denied the request";
  // 422 Invalid with details: code, reason and details (kind, name, causes) kept as sent.
  auto invalid = deny(R"({"allowed":false,"status":{"code":422,"reason":"Invalid",
      "message":"ConfigMap \"c\" is invalid: data.k: Invalid value: \"v\": must be x",
      "details":{"name":"c","kind":"ConfigMap","causes":[{"reason":"FieldValueInvalid",
        "message":"Invalid value: \"v\": must be x","field":"data.k"}]}}})");
  EXPECT_EQ(invalid.code, 422);
  EXPECT_EQ(invalid.reason, "Invalid");
  EXPECT_EQ(invalid.message,
            deniedBy + ": ConfigMap \"c\" is invalid: data.k: Invalid value: \"v\": must be x");
  EXPECT_EQ(invalid.details, json::parse(R"({"name":"c","kind":"ConfigMap","causes":[
      {"reason":"FieldValueInvalid","message":"Invalid value: \"v\": must be x",
       "field":"data.k"}]})")
                                 .as_object());
  // Without kind and name: only what was sent.
  auto causesOnly = deny(R"({"allowed":false,"status":{"code":422,"reason":"Invalid",
      "message":"data.k: must be x","details":{"causes":[{"reason":"FieldValueInvalid",
      "message":"must be x","field":"data.k"}]}}})");
  EXPECT_EQ(causesOnly.code, 422);
  EXPECT_EQ(causesOnly.details, json::parse(R"({"causes":[{"reason":"FieldValueInvalid",
      "message":"must be x","field":"data.k"}]})")
                                    .as_object());
  // 403 Forbidden, no details: none in the Status either.
  auto forbidden = deny(
      R"({"allowed":false,"status":{"code":403,"reason":"Forbidden","message":"need an owner"}})");
  EXPECT_EQ(forbidden.code, 403);
  EXPECT_EQ(forbidden.reason, "Forbidden");
  EXPECT_EQ(forbidden.message, deniedBy + ": need an owner");
  EXPECT_EQ(forbidden.details, json::object{});  // empty: the Status has no details
  // 403 without a reason: no reason (kube-apiserver does not invent one), warnings kept.
  auto bare403 = deny(R"({"allowed":false,"warnings":["careful"],
      "status":{"code":403,"message":"no"}})");
  EXPECT_EQ(bare403.code, 403);
  EXPECT_EQ(bare403.reason, "");
  EXPECT_EQ(bare403.warnings, std::vector<std::string>{"careful"});
  // No status at all, or an empty one: 400 without explanation.
  for (const char* response : {R"({"allowed":false})", R"({"allowed":false,"status":{}})"}) {
    auto none = deny(response);
    EXPECT_EQ(none.code, 400);
    EXPECT_EQ(none.reason, "");
    EXPECT_EQ(none.message, deniedBy + " without explanation");
  }
  // Only a reason: the message is the reason; a code below 400 becomes 400.
  auto reasonOnly = deny(R"({"allowed":false,"status":{"reason":"NotAllowedHere"}})");
  EXPECT_EQ(reasonOnly.code, 400);
  EXPECT_EQ(reasonOnly.reason, "NotAllowedHere");
  EXPECT_EQ(reasonOnly.message, deniedBy + ": NotAllowedHere");
  auto lowCode =
      deny(R"({"allowed":false,"status":{"code":200,"message":"low code","status":"Success"}})");
  EXPECT_EQ(lowCode.code, 400);
  EXPECT_EQ(lowCode.message, deniedBy + ": low code");
  // 500 from the webhook is the webhook's 500.
  auto internal = deny(R"({"allowed":false,"status":{"code":500,"reason":"InternalError",
      "message":"internal trouble"}})");
  EXPECT_EQ(internal.code, 500);
  EXPECT_EQ(internal.message, deniedBy + ": internal trouble");
}

TEST(Admission, AllowedAnswersCarryWarnings) {
  ScriptedCaller caller;
  caller.answer = [](const Webhook&, const json::object& review) -> api::Result<std::string> {
    return api::okString(json::serialize(json::object{
        {"response", json::object{{"uid", review.at("request").at("uid")},
                                  {"allowed", true},
                                  {"warnings", json::array{"first", "second \"quoted\""}}}}}));
  };
  Webhook hook;
  hook.name = "warn";
  auto attributes = pods("CREATE");
  std::vector<std::string> warnings;
  std::optional<json::object> details;
  ASSERT_TRUE(runWebhooks(caller, {hook}, attributes, warnings, details));
  EXPECT_EQ(warnings, (std::vector<std::string>{"first", "second \"quoted\""}));
}

TEST(Admission, FailedCallsWordedAsGoReportsThem) {
  EXPECT_EQ(webhookStatusError(500, "oops"),
            "an error on the server (\"oops\") has prevented the request from succeeding");
  EXPECT_EQ(webhookStatusError(502, "oops"),
            "an error on the server (\"oops\") has prevented the request from succeeding");
  EXPECT_EQ(webhookStatusError(404, "oops"), "the server could not find the requested resource");
  EXPECT_EQ(webhookStatusError(400, ""), "the server rejected our request for an unknown reason");
  EXPECT_EQ(webhookStatusError(401, ""),
            "the server has asked for the client to provide credentials");
  EXPECT_EQ(webhookStatusError(403, "oops"), "oops");
  EXPECT_EQ(webhookStatusError(409, ""), "the server reported a conflict");
  EXPECT_EQ(webhookStatusError(429, ""),
            "the server has received too many requests and has asked us to try again later");
  EXPECT_EQ(webhookStatusError(503, ""), "the server is currently unable to handle the request");
  EXPECT_EQ(webhookStatusError(504, ""),
            "the server was unable to return a response in the time allotted, but may still be "
            "processing the request");
  EXPECT_EQ(webhookStatusError(418, ""),
            "the server responded with the status code 418 but did not return more information");
  Webhook hook;
  hook.name = "w";
  auto garbage = parseAdmissionResponse(hook, "not json", "u");
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().message,
            "Internal error occurred: failed calling webhook \"w\": failed to call webhook: "
            "couldn't get version/kind; json parse error: json: cannot unmarshal string into Go "
            "value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
            "Kind string \"json:\\\"kind,omitempty\\\"\" }");
}

// The HTTPS caller against a real server: the URL carries ?timeout=, a refused connection and an
// unknown CA are worded as Go words them.
TEST(Admission, HttpCallerFailuresAsKubeApiserver) {
  net::testing::IoThread io;
  const auto pki = net::testing::TestPki::make();
  net::HttpServerOptions options;
  options.tls = net::makeServerTlsContext({pki.server.certPem, pki.server.keyPem, ""}).value();
  std::string target;
  net::HttpServer server(io.io(), options,
                         [&target](net::HttpExchange& ex) -> boost::asio::awaitable<void> {
                           target = ex.request().target;
                           net::HttpResponse reply{503, {}, "busy"};
                           co_await ex.respond(std::move(reply));
                         });
  const uint16_t port = server.start().value();
  auto caller = makeHttpWebhookCaller();
  Webhook hook;
  hook.name = "w";
  hook.url = "https://127.0.0.1:" + std::to_string(port) + "/validate";
  hook.caPem = pki.ca.certPem;
  hook.timeout = std::chrono::seconds(3);
  auto busy = caller->call(hook, "{}");
  ASSERT_FALSE(busy);
  EXPECT_EQ(busy.error().message,
            "failed to call webhook: the server is currently unable to handle the request");
  EXPECT_EQ(target, "/validate?timeout=3s");

  hook.caPem = pki.otherCa.certPem;
  auto unknownCa = caller->call(hook, "{}");
  ASSERT_FALSE(unknownCa);
  EXPECT_EQ(unknownCa.error().message, "failed to call webhook: Post \"" + hook.url +
                                           "?timeout=3s\": x509: certificate signed by unknown "
                                           "authority");
  server.stop();
  hook.caPem = pki.ca.certPem;
  auto refused = caller->call(hook, "{}");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "failed to call webhook: Post \"" + hook.url +
                                         "?timeout=3s\": dial tcp 127.0.0.1:" +
                                         std::to_string(port) + ": connect: connection refused");
}

}  // namespace
namespace {

TEST(WebhookConfigurationValidation, AsKubeApiserver) {
  auto config = json::parse(R"({"webhooks":[
    {"name":"ok","clientConfig":{"url":"https://127.0.0.1/x"},"sideEffects":"None","admissionReviewVersions":["v1"]},
    {"name":"both","clientConfig":{"url":"https://a/x","service":{"name":"s","namespace":"n"}},
     "sideEffects":"None","admissionReviewVersions":["v1"]},
    {"name":"http","clientConfig":{"url":"http://a/x"},"sideEffects":"None","admissionReviewVersions":["v1"]},
    {"name":"bare","clientConfig":{}}]})")
                    .as_object();
  auto errors = validateWebhookConfiguration(config);
  std::vector<std::string> got;
  for (const auto& e : errors) got.push_back(e.str());
  EXPECT_EQ(
      got,
      (std::vector<std::string>{
          "webhooks[1].clientConfig: Required value: exactly one of url or service is required",
          "webhooks[2].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed "
          "URL scheme; desired format: https://host[/path]",
          "webhooks[3].sideEffects: Required value: must specify one of None, NoneOnDryRun",
          "webhooks[3].clientConfig: Required value: exactly one of url or service is required",
          "webhooks[3].admissionReviewVersions: Required value: must specify one of v1, v1beta1"}));
}

}  // namespace
}  // namespace flotilla::sim
