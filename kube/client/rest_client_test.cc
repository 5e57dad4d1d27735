#include "kube/client/rest_client.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_arena.h"
#include "api/temp_dir.h"
#include "kube/client/scripted_server.h"
#include "kube/client/status_error.h"
#include "kube/net/tls.h"

namespace flotilla::kube {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;
using net::testing::IoThread;
using testing::RecordingDelayer;
using testing::ScriptedServer;

const ResourceId kDeployments{"apps", "v1", "deployments", true, "Deployment"};
const ResourceId kNamespaces{"", "v1", "namespaces", false, "Namespace"};

struct RestFixture : ::testing::Test {
  IoThread io;
  std::shared_ptr<RecordingDelayer> delayer = std::make_shared<RecordingDelayer>();

  std::unique_ptr<RestClient> client(const std::string& url, RestConfig config = {}) {
    config.server = url;
    if (config.token.empty()) config.token = "secret-token";
    RestClientOptions options;
    options.delayer = delayer;
    return RestClient::create(io.io().get_executor(), std::move(config), options).value();
  }
};

json::object obj(std::string_view text) { return json::parse(text).as_object(); }

TEST_F(RestFixture, VerbsBuildKubernetesPathsQueriesAndBodies) {
  ScriptedServer server(io, [](const net::HttpRequest& r) {
    if (r.method == "DELETE") return testing::json(200, R"({"kind":"Status","status":"Success"})");
    return testing::json(r.method == "POST" ? 201 : 200,
                         R"({"kind":"Deployment","metadata":{"name":"web"}})");
  });
  auto c = client(server.url());
  auto web = obj(R"({"apiVersion":"apps/v1","kind":"Deployment",
                     "metadata":{"name":"web","namespace":"team a","resourceVersion":"7"}})");
  ASSERT_TRUE(io.run(c->get(kDeployments, "team a", "web")));
  WriteOptions dry;
  dry.dryRun = true;
  dry.fieldManager = "flotilla";
  ASSERT_TRUE(io.run(c->create(kDeployments, "team a", web, dry)));
  ASSERT_TRUE(io.run(c->update(kDeployments, web)));
  ASSERT_TRUE(io.run(c->updateStatus(kDeployments, web)));
  ASSERT_TRUE(io.run(c->patch(kDeployments, "team a", "web", PatchType::kStrategic,
                              R"({"spec":{"replicas":3}})", {}, "scale")));
  WriteOptions apply;
  apply.fieldManager = "flotilla";
  apply.force = true;
  ASSERT_TRUE(io.run(c->apply(kDeployments, web, apply)));
  DeleteOptions foreground;
  foreground.propagationPolicy = "Foreground";
  foreground.preconditionUid = "u-1";
  ASSERT_TRUE(io.run(c->remove(kDeployments, "team a", "web", foreground)));
  ListOptions list;
  list.labelSelector = "app in (web,api),tier!=db";
  list.limit = 10;
  ASSERT_TRUE(io.run(c->listPage(kNamespaces, "ignored", list)));

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 8u);
  const auto line = [&](size_t i) { return requests[i].method + " " + requests[i].target; };
  EXPECT_EQ(line(0), "GET /apis/apps/v1/namespaces/team%20a/deployments/web");
  EXPECT_EQ(line(1),
            "POST /apis/apps/v1/namespaces/team%20a/deployments?dryRun=All&fieldManager=flotilla");
  EXPECT_EQ(line(2), "PUT /apis/apps/v1/namespaces/team%20a/deployments/web");
  EXPECT_EQ(line(3), "PUT /apis/apps/v1/namespaces/team%20a/deployments/web/status");
  EXPECT_EQ(line(4), "PATCH /apis/apps/v1/namespaces/team%20a/deployments/web/scale");
  EXPECT_EQ(requests[4].header("Content-Type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(
      line(5),
      "PATCH /apis/apps/v1/namespaces/team%20a/deployments/web?fieldManager=flotilla&force=true");
  EXPECT_EQ(requests[5].header("Content-Type"), "application/apply-patch+yaml");
  EXPECT_EQ(line(6), "DELETE /apis/apps/v1/namespaces/team%20a/deployments/web");
  auto deleteOptions = json::parse(requests[6].body).as_object();
  EXPECT_EQ(deleteOptions["propagationPolicy"], "Foreground");
  EXPECT_EQ(deleteOptions["preconditions"].as_object()["uid"], "u-1");
  EXPECT_EQ(
      line(7),
      "GET /api/v1/namespaces?labelSelector=app%20in%20%28web%2Capi%29%2Ctier%21%3Ddb&limit=10");
  for (const auto& r : requests) {
    EXPECT_EQ(r.header("Authorization"), "Bearer secret-token");
    EXPECT_EQ(r.header("Accept"), "application/json");
  }
  EXPECT_EQ(json::parse(requests[2].body).as_object()["metadata"].as_object()["resourceVersion"],
            "7");
}

TEST_F(RestFixture, EveryErrorClassIsTyped) {
  struct Case {
    int code;
    std::string reason;
    std::string body;  // empty: a Status
  };
  const std::vector<Case> cases = {
      {404, "NotFound", ""},
      {409, "AlreadyExists", ""},
      {409, "Conflict", ""},
      {410, "Gone", ""},
      {403, "Forbidden", ""},
      {401, "Unauthorized", ""},
      {504, "Timeout", ""},
      {500, "InternalError", ""},
      {400, "BadRequest", ""},
      {503, "ServiceUnavailable", "<html>upstream down</html>"},
      {413, "RequestEntityTooLarge", "too big"},
  };
  size_t next = 0;
  ScriptedServer server(io, [&](const net::HttpRequest&) {
    const Case& c = cases[next++];
    if (!c.body.empty()) return testing::Reply{net::HttpResponse{c.code, {}, c.body}, {}};
    return testing::json(c.code, testing::status(c.code, c.reason, "it went wrong: " + c.reason));
  });
  auto c = client(server.url());
  for (const auto& expected : cases) {
    auto result = io.run(c->get(kNamespaces, "", "x"));
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().reason, expected.reason);
    EXPECT_EQ(result.error().code, expected.code);
    if (expected.body.empty()) {
      EXPECT_EQ(result.error().message, "it went wrong: " + expected.reason);
    } else {
      EXPECT_NE(result.error().message.find(expected.body), std::string::npos);
    }
  }
}

TEST_F(RestFixture, InvalidCarriesFieldCauses) {
  ScriptedServer server(io, [](const net::HttpRequest&) {
    return testing::json(422,
                         testing::status(422, "Invalid", "Deployment.apps \\\"web\\\" is invalid",
                                         R"({"name":"web","kind":"Deployment","causes":[
                 {"reason":"FieldValueInvalid","message":"must be >= 0","field":"spec.replicas"}]})"));
  });
  auto c = client(server.url());
  auto result = io.run(c->create(kDeployments, "d", obj(R"({"metadata":{"name":"web"}})")));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, api::reason::kInvalid);
  ASSERT_EQ(result.error().causes.size(), 1u);
  EXPECT_EQ(result.error().causes[0].field, "spec.replicas");
  EXPECT_EQ(result.error().causes[0].message, "must be >= 0");
}

TEST_F(RestFixture, TooManyRequestsWaitsRetryAfterForAnyVerb) {
  int calls = 0;
  ScriptedServer server(io, [&](const net::HttpRequest&) {
    if (++calls <= 2)
      return testing::json(429, testing::status(429, "TooManyRequests", "slow down"),
                           {{"Retry-After", calls == 1 ? "3" : "1"}});
    return testing::json(201, R"({"metadata":{"name":"n"}})");
  });
  auto c = client(server.url());
  auto created = io.run(c->create(kNamespaces, "", obj(R"({"metadata":{"name":"n"}})")));
  ASSERT_TRUE(created) << created.error().str();
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(delayer->waits(), (std::vector<std::chrono::nanoseconds>{3s, 1s}));
  EXPECT_EQ(c->counters().retries, 2u);
}

TEST_F(RestFixture, OverloadIsRetriedForReadsOnlyAndRetriesAreBounded) {
  int calls = 0;
  ScriptedServer server(io, [&](const net::HttpRequest&) {
    ++calls;
    return testing::json(503, testing::status(503, "ServiceUnavailable", "etcd is busy"),
                         {{"Retry-After", "2"}});
  });
  auto c = client(server.url());
  auto write = io.run(c->create(kNamespaces, "", obj(R"({"metadata":{"name":"n"}})")));
  ASSERT_FALSE(write);
  EXPECT_EQ(calls, 1);  // a write the server may have started is not repeated
  auto read = io.run(c->get(kNamespaces, "", "n"));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().reason, api::reason::kServiceUnavailable);
  EXPECT_EQ(calls, 1 + 6);  // one try and five retries
}

TEST_F(RestFixture, UnreachableServerIsATransportErrorAfterBackoff) {
  uint16_t port;
  {
    ScriptedServer server(io, [](const net::HttpRequest&) { return testing::json(200, "{}"); });
    port = static_cast<uint16_t>(std::stoi(server.url().substr(server.url().rfind(':') + 1)));
  }
  auto c = client("https://127.0.0.1:" + std::to_string(port));
  auto result = io.run(c->get(kNamespaces, "", "x"));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().reason, api::reason::kTransport);
  // Backoff doubles from 100ms.
  EXPECT_EQ(delayer->waits(),
            (std::vector<std::chrono::nanoseconds>{100ms, 200ms, 400ms, 800ms, 1600ms}));
}

TEST_F(RestFixture, ListFollowsContinueAndRestartsOnExpiredToken) {
  int calls = 0;
  bool expiredOnce = false;
  ScriptedServer server(io, [&](const net::HttpRequest& r) {
    ++calls;
    const std::string q(r.query());
    if (q.find("continue=p2") != std::string::npos) {
      if (!expiredOnce) {
        expiredOnce = true;
        return testing::json(410, testing::status(410, "Expired", "continue token expired"));
      }
      return testing::json(
          200,
          R"({"kind":"NamespaceList","metadata":{"resourceVersion":"42"},"items":[{"metadata":{"name":"c"}}]})");
    }
    EXPECT_NE(q.find("limit=2"), std::string::npos);
    return testing::json(200, R"({"kind":"NamespaceList","metadata":{"resourceVersion":"41",
        "continue":"p2"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  });
  auto c = client(server.url());
  ListOptions options;
  options.limit = 2;
  auto result = io.run(c->list(kNamespaces, "", options));
  ASSERT_TRUE(result) << result.error().str();
  ASSERT_EQ(result->items.size(), 3u);  // a, b from the restarted first page, then c
  EXPECT_EQ(result->resourceVersion, "42");
  EXPECT_EQ(result->kind, "NamespaceList");
  EXPECT_EQ(calls, 4);
}

// An object the server sends back is in a sealed arena of its own (api/json_arena.h); a list's
// items are not, since each may outlive the page it came in.
TEST_F(RestFixture, AReturnedObjectIsInASealedArenaAListsItemsAreNot) {
  ScriptedServer server(io, [&](const net::HttpRequest& r) {
    if (r.target.find("/namespaces/x") != std::string::npos)
      return testing::json(200, R"({"kind":"Namespace","metadata":{"name":"x"}})");
    return testing::json(200, R"({"kind":"NamespaceList","metadata":{"resourceVersion":"4"},
        "items":[{"metadata":{"name":"a"}}]})");
  });
  auto c = client(server.url());
  auto got = io.run(c->get(kNamespaces, "", "x"));
  ASSERT_TRUE(got) << got.error().str();
  const auto* arena = api::jsonArenaOf(got->storage());
  ASSERT_NE(arena, nullptr);
  EXPECT_TRUE(arena->sealed());
  EXPECT_EQ(got->at("metadata").at("name"), "x");
  auto listed = io.run(c->list(kNamespaces, "", {}));
  ASSERT_TRUE(listed) << listed.error().str();
  ASSERT_EQ(listed->items.size(), 1u);
  EXPECT_EQ(api::jsonArenaOf(listed->items[0].storage()), nullptr);
}

// docs/security.md M4: a server paging on and on cannot make the client hold more than maxItems.
TEST_F(RestFixture, ListStopsPastMaxItems) {
  int pages = 0;
  ScriptedServer server(io, [&](const net::HttpRequest&) {
    ++pages;
    return testing::json(200, R"({"kind":"PodList","metadata":{"resourceVersion":"1",
        "continue":"more"},"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]})");
  });
  auto c = client(server.url());
  ListOptions options;
  options.limit = 2;
  options.maxItems = 5;
  auto result = io.run(c->list(kNamespaces, "", options));
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "the list of namespaces has more than 5 items, the limit");
  EXPECT_EQ(pages, 3);
}

TEST_F(RestFixture, UpdateWithRetryRereadsOnConflict) {
  int version = 1;
  int puts = 0;
  ScriptedServer server(io, [&](const net::HttpRequest& r) {
    if (r.method == "GET") {
      ++version;  // someone else writes between our read and our update, once
      return testing::json(200, R"({"metadata":{"name":"web","namespace":"d","resourceVersion":")" +
                                    std::to_string(version) + R"("},"spec":{"replicas":1}})");
    }
    ++puts;
    auto body = json::parse(r.body).as_object();
    if (body["metadata"].as_object()["resourceVersion"] != "3")
      return testing::json(409, testing::status(409, "Conflict", "the object has been modified"));
    return testing::json(200, r.body);
  });
  auto c = client(server.url());
  auto result = io.run(c->updateWithRetry(kDeployments, "d", "web", [](json::object& o) {
    o["spec"].as_object()["replicas"] = 5;
    return api::Result<bool>(true);
  }));
  ASSERT_TRUE(result) << result.error().str();
  EXPECT_EQ(result->at("spec").at("replicas"), 5);
  EXPECT_EQ(puts, 2);
}

TEST_F(RestFixture, DiscoveryIsCachedAndRefreshedOnMiss) {
  int fetches = 0;
  ScriptedServer server(io, [&](const net::HttpRequest& r) {
    if (r.target == "/apis/flotilla.io/v1alpha1") {
      ++fetches;
      std::string extra = fetches > 1 ? R"(,{"name":"federateddeployments","namespaced":true,
          "kind":"FederatedDeployment"})"
                                      : "";
      return testing::json(200, R"({"kind":"APIResourceList","groupVersion":"flotilla.io/v1alpha1",
          "resources":[{"name":"federatedclusters","namespaced":false,"kind":"FederatedCluster"},
          {"name":"federatedclusters/status","namespaced":false,"kind":"FederatedCluster"})" +
                                    extra + "]}");
    }
    return testing::json(404, testing::status(404, "NotFound", "the server could not find it"));
  });
  auto c = client(server.url());
  auto fc = io.run(c->resourceFor("flotilla.io/v1alpha1", "FederatedCluster"));
  ASSERT_TRUE(fc) << fc.error().str();
  EXPECT_EQ(fc->resource, "federatedclusters");
  EXPECT_FALSE(fc->namespaced);
  ASSERT_TRUE(io.run(c->resourceFor("flotilla.io/v1alpha1", "FederatedCluster")));
  EXPECT_EQ(fetches, 1);
  auto fd = io.run(c->resourceFor("flotilla.io/v1alpha1", "FederatedDeployment"));  // a new CRD
  ASSERT_TRUE(fd) << fd.error().str();
  EXPECT_EQ(fd->path("team", "web"),
            "/apis/flotilla.io/v1alpha1/namespaces/team/federateddeployments/web");
  EXPECT_EQ(fetches, 2);
  auto missing = io.run(c->resourceFor("example.com/v1", "Widget"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().reason, api::reason::kNotFound);
  EXPECT_NE(missing.error().message.find("does not serve example.com/v1"), std::string::npos);
}

TEST_F(RestFixture, WatchDecodesEventsAcrossAndWithinChunks) {
  const std::string a =
      R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"5"}}})";
  const std::string b =
      R"({"type":"MODIFIED","object":{"metadata":{"name":"a","resourceVersion":"6"}}})";
  const std::string bm = R"({"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"9"}}})";
  ScriptedServer server(io, [&](const net::HttpRequest&) {
    // a split in three, then the end of a, b and the start of the bookmark in one chunk.
    return testing::stream({a.substr(0, 7), a.substr(7, 20),
                            a.substr(27) + "\n" + b + "\n" + bm.substr(0, 11),
                            bm.substr(11) + "\n"});
  });
  auto c = client(server.url());
  ListOptions options;
  options.resourceVersion = "4";
  options.allowWatchBookmarks = true;
  auto events = io.run([&]() -> asio::awaitable<api::Result<std::vector<WatchEvent>>> {
    const std::string allNamespaces;  // named: no temporaries inside co_await (GCC 12)
    auto stream = co_await c->watch(kDeployments, allNamespaces, options);
    if (!stream) co_return stream.error();
    std::vector<WatchEvent> all;
    while (true) {
      auto batch = co_await (*stream)->next(5s);
      if (!batch) co_return batch.error();
      if (batch->empty()) co_return all;
      for (auto& e : *batch) all.push_back(std::move(e));
    }
  }());
  ASSERT_TRUE(events) << events.error().str();
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].type, WatchEvent::Type::kAdded);
  EXPECT_EQ((*events)[1].type, WatchEvent::Type::kModified);
  EXPECT_EQ((*events)[2].type, WatchEvent::Type::kBookmark);
  EXPECT_EQ(server.requests()[0].target,
            "/apis/apps/v1/deployments?watch=true&resourceVersion=4&allowWatchBookmarks=true");
}

TEST_F(RestFixture, WatchOfAnExpiredVersionIsGone) {
  ScriptedServer server(io, [](const net::HttpRequest&) {
    return testing::json(410, testing::status(410, "Expired", "too old resource version: 1 (40)"));
  });
  auto c = client(server.url());
  ListOptions options;
  options.resourceVersion = "1";
  auto stream = io.run(c->watch(kDeployments, "", options));
  ASSERT_FALSE(stream);
  EXPECT_TRUE(isGone(stream.error()));
  EXPECT_NE(stream.error().message.find("too old resource version"), std::string::npos);
}

struct TlsRestFixture : RestFixture {
  net::testing::TestPki pki = net::testing::TestPki::make();
  net::HttpServerOptions tlsOptions() {
    net::TlsServerOptions tls;
    tls.certPem = pki.server.certPem;
    tls.keyPem = pki.server.keyPem;
    tls.clientCaPem = pki.ca.certPem;
    net::HttpServerOptions options;
    options.tls = net::makeServerTlsContext(tls).value();
    return options;
  }
};

TEST_F(TlsRestFixture, CustomCaClientCertificateAndTokens) {
  ScriptedServer server(
      io,
      [](const net::HttpRequest& r) {
        if (r.header("Authorization") == "Bearer expired")
          return testing::json(401, testing::status(401, "Unauthorized", "Unauthorized"));
        return testing::json(200, R"({"kind":"Namespace","metadata":{"name":"x"}})");
      },
      tlsOptions());
  RestConfig withCert;
  withCert.caPem = pki.ca.certPem;
  withCert.certPem = pki.client.certPem;
  withCert.keyPem = pki.client.keyPem;
  auto c = client(server.url(), withCert);
  ASSERT_TRUE(io.run(c->get(kNamespaces, "", "x")));
  EXPECT_EQ(server.clientNames().back(), "alice");

  RestConfig wrongCa;
  wrongCa.caPem = pki.otherCa.certPem;
  auto untrusted = io.run(client(server.url(), wrongCa)->get(kNamespaces, "", "x"));
  ASSERT_FALSE(untrusted);
  EXPECT_EQ(untrusted.error().reason, api::reason::kTransport);
  EXPECT_NE(untrusted.error().message.find("certificate verify failed"), std::string::npos)
      << untrusted.error().message;

  RestConfig expired;
  expired.caPem = pki.ca.certPem;
  expired.token = "expired";
  auto denied = io.run(client(server.url(), expired)->get(kNamespaces, "", "x"));
  ASSERT_FALSE(denied);
  EXPECT_EQ(denied.error().reason, api::reason::kUnauthorized);
  EXPECT_EQ(denied.error().code, 401);
}

TEST_F(RestFixture, TokenFileIsReadAndBasicAuthIsEncoded) {
  api::testing::TempDir dir;
  ScriptedServer server(io, [](const net::HttpRequest&) { return testing::json(200, "{}"); });
  RestConfig fromFile;
  fromFile.token = "";
  fromFile.tokenFile = dir.write("token", "rotating\n");
  fromFile.server = server.url();
  RestClientOptions options;
  options.delayer = delayer;
  auto c = RestClient::create(io.io().get_executor(), fromFile, options).value();
  ASSERT_TRUE(io.run(c->getPath("/version")));
  RestConfig basic;
  basic.server = server.url();
  basic.username = "admin";
  basic.password = "pw";
  auto b = RestClient::create(io.io().get_executor(), basic, options).value();
  ASSERT_TRUE(io.run(b->getPath("/version")));
  const auto requests = server.requests();
  EXPECT_EQ(requests[0].header("Authorization"), "Bearer rotating");
  EXPECT_EQ(requests[1].header("Authorization"), "Basic YWRtaW46cHc=");
}

}  // namespace
}  // namespace flotilla::kube

namespace flotilla::kube {
namespace {

// A member's Status message ends up in host conditions and Events: bounded (docs/security.md L2).
TEST(ErrorFromResponse, LongMessagesAreCut) {
  const std::string huge(100'000, 'x');
  net::HttpResponse r{500,
                      {{"Content-Type", "application/json"}},
                      R"({"kind":"Status","status":"Failure","reason":"InternalError","code":500,)"
                      R"("message":")" +
                          huge + R"("})"};
  const auto e = errorFromResponse(r);
  EXPECT_LE(e.message.size(), 1100u);
  EXPECT_EQ(e.message.substr(0, 4), "xxxx");
  EXPECT_NE(e.message.find("(98976 more bytes)"), std::string::npos) << e.message.substr(1000);
  EXPECT_EQ(e.reason, "InternalError");
  // Never inside a UTF-8 sequence.
  std::string accents;
  for (int i = 0; i < 1000; ++i) accents += "\xC3\xA9";  // é
  r.body = R"({"kind":"Status","message":")" + accents + R"("})";
  const auto cut = errorFromResponse(r).message;
  const size_t kept = cut.find("...");
  ASSERT_NE(kept, std::string::npos);
  EXPECT_EQ(kept % 2, 0u) << kept;
}

}  // namespace
}  // namespace flotilla::kube
