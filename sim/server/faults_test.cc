// Fault injection: the rules and the generator (FaultInjector), then what a client sees on the
// wire from a server with faults (ApiServer over HTTP, port 0).
#include "sim/server/faults.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/net/http_client.h"
#include "kube/net/test_server.h"
#include "sim/server/api_server.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

FaultConfig config(const std::string& text) {
  auto parsed = parseFaultConfig(text);
  EXPECT_TRUE(parsed) << parsed.error().message;
  return parsed ? *parsed : FaultConfig{};
}

TEST(FaultConfigTest, TheDocumentedShapeRoundTrips) {
  const auto c = config(R"({"seed": 7, "rules": [{"verbs": ["create", "update"],
      "resources": ["deployments", "deployments/status"], "userAgents": ["flotilla-operator/"],
      "error": 0.02, "throttle": 0.02, "retryAfterSeconds": 2, "conflict": 0.02, "delay": 0.01,
      "delayMs": 40000, "dropAfterCommit": 0.02, "watchGone": 0.1, "watchCut": 0.01}]})");
  ASSERT_EQ(c.rules.size(), 1u);
  EXPECT_EQ(c.seed, 7u);
  EXPECT_EQ(c.rules[0].retryAfterSeconds, 2);
  EXPECT_EQ(c.rules[0].delayFor, 40s);
  EXPECT_DOUBLE_EQ(c.rules[0].watchCut, 0.01);
  const auto again = config(json::serialize(toJson(c)));
  EXPECT_EQ(json::serialize(toJson(again)), json::serialize(toJson(c)));
}

TEST(FaultConfigTest, MistakesAreNamed) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "not JSON"},
      {"[]", "must be a JSON object"},
      {R"({"seeed": 1})", "unknown field seeed"},
      {R"({"rules": [{"eror": 0.1}]})", "unknown field rules[0].eror"},
      {R"({"rules": [{"error": 1.5}]})", "rules[0].error must be between 0 and 1"},
      {R"({"rules": [{"error": "0.1"}]})", "rules[0].error must be a number"},
      {R"({"rules": [{"error": 0.6, "throttle": 0.6}]})", "add up to more than 1"},
      {R"({"rules": [{"verbs": ["post"]}]})", "unknown verb \"post\""},
      {R"({"rules": [{"delay": 0.1}]})", "delay needs delayMs"},
      {R"({"rules": [{"delayMs": -1}]})", "rules[0].delayMs must be between 0 and 600000"},
      {R"({"rules": [{"resources": "pods"}]})", "rules[0].resources must be a list of strings"},
  };
  for (const auto& [text, message] : cases) {
    auto parsed = parseFaultConfig(text);
    ASSERT_FALSE(parsed) << text;
    EXPECT_EQ(parsed.error().code, 400);
    EXPECT_NE(parsed.error().message.find(message), std::string::npos)
        << text << " -> " << parsed.error().message;
  }
}

std::vector<Fault> plans(FaultInjector& injector, int n) {
  std::vector<Fault> out;
  for (int i = 0; i < n; ++i)
    out.push_back(
        injector.plan("create", "deployments", "flotilla-operator/0.1", true, false).fault);
  return out;
}

TEST(FaultInjectorTest, TheSameSeedGivesTheSameFaultsAtTheirRates) {
  const auto c = config(R"({"seed": 11, "rules": [{"error": 0.1, "throttle": 0.1,
      "conflict": 0.1, "dropAfterCommit": 0.1}]})");
  FaultInjector a(c);
  FaultInjector b(c);
  const auto first = plans(a, 4000);
  EXPECT_EQ(first, plans(b, 4000));
  std::map<Fault, int> counts;
  for (auto f : first) ++counts[f];
  for (auto f : {Fault::kError, Fault::kThrottle, Fault::kConflict, Fault::kDropAfterCommit}) {
    EXPECT_GT(counts[f], 300) << faultName(f);  // 400 expected of each
    EXPECT_LT(counts[f], 500) << faultName(f);
  }
  EXPECT_EQ(a.injected().at("error"), static_cast<uint64_t>(counts[Fault::kError]));
  // Another seed, another sequence; configuring again restarts the sequence.
  FaultConfig other = c;
  other.seed = 12;
  FaultInjector d(other);
  EXPECT_NE(first, plans(d, 4000));
  a.configure(c);
  EXPECT_EQ(first, plans(a, 4000));
}

TEST(FaultInjectorTest, RulesChooseRequestsAndFaultsOnlyFitTheirRequests) {
  FaultInjector injector(config(R"({"rules": [
      {"resources": ["configmaps"], "userAgents": ["kubectl/"]},
      {"verbs": ["get", "watch"], "resources": ["deployments"], "conflict": 1},
      {"verbs": ["watch"], "resources": ["pods"], "watchGone": 1, "watchCut": 0.5},
      {"verbs": ["watch", "list"], "resources": ["services"], "dropAfterCommit": 1},
      {"userAgents": ["flotilla-operator/"], "error": 1}]})"));
  // The first matching rule decides: kubectl's configmap requests have no faults at all.
  EXPECT_EQ(injector.plan("create", "configmaps", "kubectl/v1.32", true, false).fault,
            Fault::kNone);
  EXPECT_EQ(injector.plan("create", "configmaps", "flotilla-operator/0.1", true, false).fault,
            Fault::kError);
  EXPECT_EQ(injector.plan("create", "secrets", "kubectl/v1.32", true, false).fault, Fault::kNone);
  // A 409 answers writes only, a 410 only a watch that resumes, a dropped answer no watch.
  EXPECT_EQ(injector.plan("get", "deployments", "", false, false).fault, Fault::kNone);
  const auto fresh = injector.plan("watch", "pods", "", false, false);
  EXPECT_EQ(fresh.fault, Fault::kNone);
  EXPECT_DOUBLE_EQ(fresh.watchCut, 0.5);
  EXPECT_EQ(injector.plan("watch", "pods", "", false, true).fault, Fault::kWatchGone);
  EXPECT_EQ(injector.plan("watch", "services", "", false, true).fault, Fault::kNone);
  EXPECT_EQ(injector.plan("list", "services", "", false, false).fault, Fault::kDropAfterCommit);
  EXPECT_EQ(injector.plan("list", "deployments/status", "", false, false).fault, Fault::kNone);
}

struct Reply {
  int status = 0;
  json::value body;
  net::HttpResponse raw;
};

// An API server with an admin token and one ordinary user, reached as the operator would reach
// it (user agent flotilla-operator/) and as kubectl would.
class FaultServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = Store::open({}).value();
    ApiServerOptions options;
    options.tokens = {"admin-token"};
    options.tokenFile = {{"user-token", {"jane", "1", {}}}};
    options.authorizationMode = "AlwaysAllow";
    options.faults = faults_;
    api_ = std::make_unique<ApiServer>(*store_, options);
    ASSERT_TRUE(api_->bootstrap());
    net::HttpServerOptions serverOptions;
    serverOptions.errorResponse = ApiServer::errorResponse;
    server_ = std::make_unique<net::HttpServer>(io_.io(), serverOptions, api_->handler());
    ASSERT_TRUE(server_->start());
    const auto endpoint = net::parseEndpoint(server_->url()).value();
    net::HttpClientOptions operatorOptions;
    operatorOptions.userAgent = "flotilla-operator/test";
    operator_ =
        std::make_unique<net::HttpClient>(io_.io().get_executor(), endpoint, operatorOptions);
    net::HttpClientOptions kubectlOptions;
    kubectlOptions.userAgent = "kubectl/v1.32.0 (linux/amd64)";
    kubectl_ = std::make_unique<net::HttpClient>(io_.io().get_executor(), endpoint, kubectlOptions);
  }
  void TearDown() override {
    operator_.reset();
    kubectl_.reset();
    server_->stop();
  }

  api::Result<Reply> call(net::HttpClient& client, std::string method, std::string target,
                          std::string body = "", std::string token = "admin-token") {
    net::HttpRequest req{std::move(method), std::move(target), {}, std::move(body)};
    req.headers.emplace_back("Authorization", "Bearer " + token);
    req.headers.emplace_back("Content-Type", "application/json");
    auto response = io_.run(client.request(std::move(req), 5s));
    if (!response) return response.error();
    Reply r{response->status, nullptr, *response};
    boost::system::error_code ec;
    r.body = json::parse(response->body, ec);
    return r;
  }
  void setFaults(const std::string& text) { faults_->configure(config(text)); }
  bool exists(const std::string& name) {
    return store_->get({"/configmaps", "default", name}).has_value();
  }

  std::shared_ptr<FaultInjector> faults_ = std::make_shared<FaultInjector>();
  net::testing::IoThread io_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<net::HttpClient> operator_;
  std::unique_ptr<net::HttpClient> kubectl_;
};

std::string configMap(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"("},"data":{"k":"v"}})";
}

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

TEST_F(FaultServerTest, InjectedErrorsAreStatusesAndChangeNothing) {
  setFaults(R"({"rules": [{"verbs": ["create"], "userAgents": ["flotilla-operator/"],
      "error": 1}, {"verbs": ["update"], "throttle": 1, "retryAfterSeconds": 3},
      {"verbs": ["delete"], "conflict": 1}]})");
  auto failed = call(*operator_, "POST", kConfigMaps, configMap("a"));
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->status, 500);
  EXPECT_EQ(failed->body.at("kind"), "Status");
  EXPECT_EQ(failed->body.at("reason"), "InternalError");
  EXPECT_FALSE(exists("a"));
  // kubectl is not chosen by the create rule.
  ASSERT_EQ(call(*kubectl_, "POST", kConfigMaps, configMap("a"))->status, 201);

  auto throttled = call(*operator_, "PUT", std::string(kConfigMaps) + "/a",
                        R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},
                            "data":{"k":"changed"}})");
  ASSERT_TRUE(throttled);
  EXPECT_EQ(throttled->status, 429);
  EXPECT_EQ(throttled->raw.header("Retry-After"), "3");
  EXPECT_EQ(throttled->body.at("reason"), "TooManyRequests");
  EXPECT_EQ(throttled->body.at("details").at("retryAfterSeconds"), 3);
  EXPECT_EQ(store_->get({"/configmaps", "default", "a"})->at("data").at("k"), "v");

  auto conflicted = call(*operator_, "DELETE", std::string(kConfigMaps) + "/a");
  ASSERT_TRUE(conflicted);
  EXPECT_EQ(conflicted->status, 409);
  EXPECT_EQ(conflicted->body.at("reason"), "Conflict");
  EXPECT_EQ(conflicted->body.at("details").at("name"), "a");
  EXPECT_TRUE(exists("a"));

  // Counted as kube-apiserver counts requests, and as injected faults.
  auto metrics = call(*kubectl_, "GET", "/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->raw.body.find("code=\"500\""), std::string::npos);
  EXPECT_NE(metrics->raw.body.find("flotilla_sim_injected_faults_total{fault=\"throttle\"} 1"),
            std::string::npos);
}

TEST_F(FaultServerTest, ADroppedAnswerLeavesTheWriteCommitted) {
  setFaults(R"({"rules": [{"verbs": ["create"], "dropAfterCommit": 1}]})");
  auto dropped = call(*operator_, "POST", kConfigMaps, configMap("b"));
  EXPECT_FALSE(dropped);  // the connection closed before any answer
  EXPECT_TRUE(exists("b"));
  // The client learns the outcome the way a real client must: by reading, then retrying.
  auto again = call(*operator_, "POST", kConfigMaps, configMap("b"));
  EXPECT_FALSE(again);
  setFaults("{}");
  auto existing = call(*operator_, "POST", kConfigMaps, configMap("b"));
  ASSERT_TRUE(existing);
  EXPECT_EQ(existing->status, 409);
  EXPECT_EQ(existing->body.at("reason"), "AlreadyExists");
}

TEST_F(FaultServerTest, ADelayedRequestIsServedAfterTheDelay) {
  setFaults(R"({"rules": [{"verbs": ["create"], "delay": 1, "delayMs": 300}]})");
  net::HttpRequest req{
      "POST",
      kConfigMaps,
      {{"Authorization", "Bearer admin-token"}, {"Content-Type", "application/json"}},
      configMap("late")};
  auto timedOut = io_.run(operator_->request(std::move(req), 50ms));
  ASSERT_FALSE(timedOut);
  EXPECT_EQ(timedOut.error().reason, api::reason::kTimeout);
  // The server still serves it: poll for the object with a deadline.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!exists("late") && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(exists("late"));
  // ... and finishes (its last step counts it): the fixture must not tear the server down under
  // a handler still running (ASan caught a use after free there).
  auto counted = [&] {
    const std::string text = api_->metrics().exposition();
    return text.find(R"(code="201")") != std::string::npos &&
           text.find(R"(resource="configmaps")") != std::string::npos;
  };
  while (!counted() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(counted());
}

// The events of a watch and how it ended: "end" (last chunk), "cut" (connection dropped) or
// "timeout".
struct Watched {
  std::vector<json::value> events;
  std::string ending;
};

Watched watch(net::testing::IoThread& io, net::HttpClient& client, const std::string& target) {
  return io.run([&]() -> boost::asio::awaitable<Watched> {
    net::HttpRequest req{"GET", target, {{"Authorization", "Bearer admin-token"}}, ""};
    auto opened = co_await client.openStream(std::move(req), 5s);
    Watched out;
    if (!opened || !opened->stream) {
      out.ending = "no stream";
      co_return out;
    }
    std::string buffer;
    while (true) {
      auto part = co_await opened->stream->next(2s);
      if (!part) {
        out.ending = part.error().reason == api::reason::kTimeout ? "timeout" : "cut";
        break;
      }
      if (part->empty()) {
        out.ending = "end";
        break;
      }
      buffer += *part;
      for (size_t nl; (nl = buffer.find('\n')) != std::string::npos; buffer.erase(0, nl + 1))
        out.events.push_back(json::parse(buffer.substr(0, nl)));
    }
    opened->stream->close();
    co_return out;
  }());
}

TEST_F(FaultServerTest, WatchesAreCutAndResumesAnsweredGone) {
  for (const char* name : {"w1", "w2", "w3"})
    ASSERT_EQ(call(*kubectl_, "POST", kConfigMaps, configMap(name))->status, 201);
  setFaults(R"({"rules": [{"verbs": ["watch"], "watchCut": 1, "watchGone": 1}]})");
  // From the current state: three ADDED events due, cut after the first.
  auto cut = watch(io_, *operator_, std::string(kConfigMaps) + "?watch=true&timeoutSeconds=1");
  EXPECT_EQ(cut.ending, "cut");
  ASSERT_EQ(cut.events.size(), 1u);
  EXPECT_EQ(cut.events[0].at("type"), "ADDED");
  // A resume from a version: 200, then one ERROR event with the 410, as a compacted version.
  auto gone = watch(io_, *operator_, std::string(kConfigMaps) + "?watch=true&resourceVersion=2");
  EXPECT_EQ(gone.ending, "end");
  ASSERT_EQ(gone.events.size(), 1u);
  EXPECT_EQ(gone.events[0].at("type"), "ERROR");
  EXPECT_EQ(gone.events[0].at("object").at("code"), 410);
  EXPECT_EQ(gone.events[0].at("object").at("reason"), "Expired");
  // Faults off: the same watch is whole again.
  setFaults("{}");
  auto whole = watch(io_, *operator_, std::string(kConfigMaps) + "?watch=true&timeoutSeconds=1");
  EXPECT_EQ(whole.ending, "end");
  EXPECT_EQ(whole.events.size(), 3u);
}

TEST_F(FaultServerTest, OnlyAnAdminConfiguresFaultsAtRunTime) {
  auto forbidden =
      call(*kubectl_, "PUT", "/flotilla-sim/faults", R"({"rules": [{"error": 1}]})", "user-token");
  ASSERT_TRUE(forbidden);
  EXPECT_EQ(forbidden->status, 403);
  EXPECT_NE(forbidden->body.at("message").as_string().find("system:masters"), std::string::npos);
  EXPECT_EQ(call(*kubectl_, "GET", "/flotilla-sim/faults", "", "no-such-token")->status, 401);
  EXPECT_FALSE(faults_->enabled());

  auto invalid = call(*kubectl_, "PUT", "/flotilla-sim/faults", R"({"rules": [{"error": 2}]})");
  ASSERT_TRUE(invalid);
  EXPECT_EQ(invalid->status, 400);
  EXPECT_EQ(invalid->body.at("reason"), "BadRequest");
  EXPECT_FALSE(faults_->enabled());

  auto set = call(*kubectl_, "PUT", "/flotilla-sim/faults",
                  R"({"seed": 5, "rules": [{"verbs": ["list"], "error": 1}]})");
  ASSERT_TRUE(set);
  ASSERT_EQ(set->status, 200);
  EXPECT_EQ(set->body.at("config").at("seed"), 5);
  EXPECT_EQ(call(*operator_, "GET", kConfigMaps)->status, 500);
  auto described = call(*kubectl_, "GET", "/flotilla-sim/faults");
  EXPECT_EQ(described->body.at("injected").at("error"), 1);

  ASSERT_EQ(call(*kubectl_, "DELETE", "/flotilla-sim/faults")->status, 200);
  EXPECT_EQ(call(*operator_, "GET", kConfigMaps)->status, 200);
  EXPECT_EQ(call(*kubectl_, "POST", "/flotilla-sim/faults", "x")->status, 400);
  EXPECT_EQ(call(*kubectl_, "PATCH", "/flotilla-sim/faults", "{}")->status, 405);
}

}  // namespace
}  // namespace flotilla::sim
