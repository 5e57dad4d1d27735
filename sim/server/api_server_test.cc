// The API server over real HTTP (port 0) with the client from kube/net: what kubectl and the
// operator rely on, asserted on the wire.
#include "sim/server/api_server.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/net/http_client.h"
#include "kube/net/test_server.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

struct Reply {
  int status = 0;
  json::value body;
  std::string raw;
};

class ApiFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreOptions storeOptions;
    storeOptions.eventWindow = 50;
    store_ = Store::open(storeOptions).value();
    ApiServerOptions options;
    options.tokens = {"secret-token"};
    options.bookmarkInterval = 50ms;
    options.gitVersion = gitVersion_;
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

  Reply call(std::string method, std::string target, std::string body = "",
             std::string contentType = "application/json", std::string token = "secret-token",
             std::string accept = "application/json") {
    net::HttpRequest req{std::move(method), std::move(target), {}, std::move(body)};
    if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
    req.headers.emplace_back("Content-Type", contentType);
    req.headers.emplace_back("Accept", accept);
    auto response = io_.run(client_->request(std::move(req), 10s));
    EXPECT_TRUE(response) << response.error().message;
    Reply r{response->status, nullptr, response->body};
    boost::system::error_code ec;
    r.body = json::parse(response->body, ec);
    return r;
  }
  Reply create(const std::string& collection, const std::string& object) {
    return call("POST", collection, object);
  }

  std::string gitVersion_ = "v1.32.0-flotilla-sim";
  net::testing::IoThread io_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<net::HttpServer> server_;
  std::unique_ptr<net::HttpClient> client_;
};

const char* kConfigMap = R"({"apiVersion":"v1","kind":"ConfigMap",
  "metadata":{"name":"NAME","labels":{"app":"APP"}},"data":{"k":"v"}})";

std::string configMap(const std::string& name, const std::string& app = "web") {
  std::string s = kConfigMap;
  s.replace(s.find("NAME"), 4, name);
  s.replace(s.find("APP"), 3, app);
  return s;
}

TEST_F(ApiFixture, AuthenticationIsRequired) {
  auto anonymous = call("GET", "/api/v1/namespaces", "", "application/json", "");
  EXPECT_EQ(anonymous.status, 401);
  EXPECT_EQ(anonymous.body.at("kind"), "Status");
  EXPECT_EQ(anonymous.body.at("reason"), "Unauthorized");
  EXPECT_EQ(call("GET", "/api/v1/namespaces", "", "application/json", "wrong").status, 401);
  EXPECT_EQ(call("GET", "/healthz", "", "", "").status, 200);  // probes stay open
}

TEST_F(ApiFixture, DiscoveryDescribesResources) {
  auto api = call("GET", "/api");
  EXPECT_EQ(api.body.at("versions"), json::array{"v1"});
  auto groups = call("GET", "/apis");
  bool apps = false;
  for (const auto& g : groups.body.at("groups").as_array()) apps = apps || g.at("name") == "apps";
  EXPECT_TRUE(apps);
  auto list = call("GET", "/apis/apps/v1");
  ASSERT_EQ(list.status, 200);
  bool deployments = false;
  bool status = false;
  for (const auto& r : list.body.at("resources").as_array()) {
    if (r.at("name") == "deployments") {
      deployments = true;
      EXPECT_EQ(r.at("shortNames"), json::array{"deploy"});
      EXPECT_EQ(r.at("namespaced"), true);
      EXPECT_EQ(r.at("categories"), json::array{"all"});
    }
    status = status || r.at("name") == "deployments/status";
  }
  EXPECT_TRUE(deployments && status);
  EXPECT_EQ(call("GET", "/apis/nope.example.com/v1").status, 404);
  EXPECT_EQ(call("GET", "/version").body.at("major"), "1");
}

TEST_F(ApiFixture, CreateGetListWithSelectorsAndPages) {
  for (const auto& [name, app] : std::vector<std::pair<std::string, std::string>>{
           {"a", "web"}, {"b", "db"}, {"c", "web"}, {"d", "web"}}) {
    auto r = create("/api/v1/namespaces/default/configmaps", configMap(name, app));
    ASSERT_EQ(r.status, 201) << r.raw;
    EXPECT_FALSE(r.body.at("metadata").at("uid").as_string().empty());
    EXPECT_FALSE(r.body.at("metadata").at("creationTimestamp").as_string().empty());
  }
  auto dup = create("/api/v1/namespaces/default/configmaps", configMap("a"));
  EXPECT_EQ(dup.status, 409);
  EXPECT_EQ(dup.body.at("reason"), "AlreadyExists");
  EXPECT_EQ(dup.body.at("message"), "configmaps \"a\" already exists");

  auto got = call("GET", "/api/v1/namespaces/default/configmaps/b");
  EXPECT_EQ(got.body.at("data").at("k"), "v");
  auto missing = call("GET", "/api/v1/namespaces/default/configmaps/zz");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body.at("message"), "configmaps \"zz\" not found");

  auto web = call("GET", "/api/v1/namespaces/default/configmaps?labelSelector=app%3Dweb");
  EXPECT_EQ(web.body.at("kind"), "ConfigMapList");
  EXPECT_EQ(web.body.at("items").as_array().size(), 3u);
  auto byName = call("GET", "/api/v1/configmaps?fieldSelector=metadata.name%3Dc");
  ASSERT_EQ(byName.body.at("items").as_array().size(), 1u);
  EXPECT_EQ(byName.body.at("items").at(0).at("metadata").at("namespace"), "default");

  std::vector<std::string> names;
  std::string next;
  int pages = 0;
  do {
    auto page = call("GET", "/api/v1/namespaces/default/configmaps?limit=3" +
                                (next.empty() ? "" : "&continue=" + next));
    for (const auto& item : page.body.at("items").as_array())
      names.emplace_back(item.at("metadata").at("name").as_string());
    const auto& meta = page.body.at("metadata").as_object();
    next = meta.contains("continue") ? std::string(meta.at("continue").as_string()) : "";
    if (!next.empty()) {
      EXPECT_EQ(meta.at("remainingItemCount"), 1);
    }
    ++pages;
  } while (!next.empty());
  EXPECT_EQ(pages, 2);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps?continue=%21%21").status, 400);
}

TEST_F(ApiFixture, BadRequestsGetSpecificStatuses) {
  auto malformed = create("/api/v1/namespaces/default/configmaps", "{\"apiVersion\": ");
  EXPECT_EQ(malformed.status, 400);
  EXPECT_EQ(malformed.body.at("reason"), "BadRequest");
  EXPECT_EQ(call("GET", "/api/v1/widgets").status, 404);
  auto noNamespace = create("/api/v1/namespaces/nowhere/configmaps", configMap("x"));
  EXPECT_EQ(noNamespace.status, 404);
  EXPECT_EQ(noNamespace.body.at("message"), "namespaces \"nowhere\" not found");
  auto wrongKind = create("/api/v1/namespaces/default/secrets", configMap("x"));
  EXPECT_EQ(wrongKind.status, 400);
  auto badName = create("/api/v1/namespaces/default/configmaps", configMap("Bad_Name"));
  EXPECT_EQ(badName.status, 422);
  EXPECT_EQ(badName.body.at("reason"), "Invalid");
  EXPECT_EQ(badName.body.at("details").at("causes").at(0).at("field"), "metadata.name");
  auto tooBig = create("/api/v1/namespaces/default/configmaps", std::string(4 << 20, ' '));
  EXPECT_EQ(tooBig.status, 413);
  EXPECT_EQ(tooBig.body.at("reason"), "RequestEntityTooLarge");
}

const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
  "metadata":{"name":"web"},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"app","image":"app:1"}]}}},
  "status":{"replicas":99}})";

TEST_F(ApiFixture, GenerationStatusSubresourceAndConflicts) {
  auto created = create("/apis/apps/v1/namespaces/default/deployments", kDeployment);
  ASSERT_EQ(created.status, 201) << created.raw;
  EXPECT_EQ(created.body.at("metadata").at("generation"), 1);
  EXPECT_FALSE(created.body.as_object().contains("status"));  // status is the controller's

  json::object next = created.body.as_object();
  next["spec"].as_object()["replicas"] = 3;
  next["status"] = json::object{{"replicas", 7}};
  auto updated =
      call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", json::serialize(next));
  ASSERT_EQ(updated.status, 200) << updated.raw;
  EXPECT_EQ(updated.body.at("metadata").at("generation"), 2);
  EXPECT_FALSE(updated.body.as_object().contains("status"));

  // The old resourceVersion is stale now: 409 Conflict in kube-apiserver's words.
  auto stale =
      call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", json::serialize(next));
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(stale.body.at("message"),
            "Operation cannot be fulfilled on deployments.apps \"web\": the object has been "
            "modified; please apply your changes to the latest version and try again");

  json::object withStatus = updated.body.as_object();
  withStatus["status"] = json::object{{"replicas", 3}, {"readyReplicas", 3}};
  withStatus["spec"].as_object()["replicas"] = 10;  // ignored by /status
  auto status = call("PUT", "/apis/apps/v1/namespaces/default/deployments/web/status",
                     json::serialize(withStatus));
  ASSERT_EQ(status.status, 200) << status.raw;
  EXPECT_EQ(status.body.at("status").at("readyReplicas"), 3);
  EXPECT_EQ(status.body.at("spec").at("replicas"), 3);
  EXPECT_EQ(status.body.at("metadata").at("generation"), 2);  // status writes never bump it

  auto scaled = call("PATCH", "/apis/apps/v1/namespaces/default/deployments/web/scale",
                     R"({"spec":{"replicas":5}})", "application/merge-patch+json");
  ASSERT_EQ(scaled.status, 200) << scaled.raw;
  EXPECT_EQ(scaled.body.at("kind"), "Scale");
  EXPECT_EQ(scaled.body.at("spec").at("replicas"), 5);
}

TEST_F(ApiFixture, PatchTypes) {
  ASSERT_EQ(create("/apis/apps/v1/namespaces/default/deployments", kDeployment).status, 201);
  const std::string url = "/apis/apps/v1/namespaces/default/deployments/web";
  auto merge = call("PATCH", url, R"({"metadata":{"labels":{"tier":"front"}}})",
                    "application/merge-patch+json");
  EXPECT_EQ(merge.body.at("metadata").at("labels").at("tier"), "front");
  auto jsonPatch = call("PATCH", url, R"([{"op":"replace","path":"/spec/replicas","value":4}])",
                        "application/json-patch+json");
  EXPECT_EQ(jsonPatch.body.at("spec").at("replicas"), 4);
  auto smp =
      call("PATCH", url,
           R"({"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}})",
           "application/strategic-merge-patch+json");
  ASSERT_EQ(smp.status, 200) << smp.raw;
  EXPECT_EQ(smp.body.at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "app:2");
  auto badType = call("PATCH", url, "{}", "text/plain");
  EXPECT_EQ(badType.status, 415);
  auto failing = call("PATCH", url, R"([{"op":"remove","path":"/spec/nothing"}])",
                      "application/json-patch+json");
  EXPECT_EQ(failing.status, 400);
  auto applied = call("PATCH", "/api/v1/namespaces/default/configmaps/applied?fieldManager=kubectl",
                      configMap("applied"), "application/apply-patch+yaml");
  EXPECT_EQ(applied.status, 201) << applied.raw;  // server-side apply creates
}

TEST_F(ApiFixture, FinalizersDelayDeletion) {
  auto cm = json::parse(configMap("held")).as_object();
  cm["metadata"].as_object()["finalizers"] = json::array{"example.com/hold"};
  ASSERT_EQ(create("/api/v1/namespaces/default/configmaps", json::serialize(cm)).status, 201);
  const std::string url = "/api/v1/namespaces/default/configmaps/held";
  auto deleting = call("DELETE", url);
  EXPECT_EQ(deleting.status, 200);
  EXPECT_FALSE(deleting.body.at("metadata").at("deletionTimestamp").as_string().empty());
  EXPECT_EQ(call("GET", url).status, 200);  // still there
  auto released =
      call("PATCH", url, R"({"metadata":{"finalizers":null}})", "application/merge-patch+json");
  EXPECT_EQ(released.status, 200) << released.raw;
  EXPECT_EQ(call("GET", url).status, 404);
}

TEST_F(ApiFixture, GarbageCollectionFollowsOwnerReferences) {
  auto owner = create("/api/v1/namespaces/default/configmaps", configMap("owner"));
  const std::string uid(owner.body.at("metadata").at("uid").as_string());
  for (const char* name : {"child1", "child2"}) {
    auto child = json::parse(configMap(name)).as_object();
    child["metadata"].as_object()["ownerReferences"] = json::array{
        json::object{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", uid}}};
    ASSERT_EQ(create("/api/v1/namespaces/default/configmaps", json::serialize(child)).status, 201);
  }
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/configmaps/owner").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/child1").status, 404);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/default/configmaps/child2").status, 404);

  auto owner2 = create("/api/v1/namespaces/default/configmaps", configMap("owner2"));
  auto orphan = json::parse(configMap("orphan")).as_object();
  orphan["metadata"].as_object()["ownerReferences"] =
      json::array{json::object{{"apiVersion", "v1"},
                               {"kind", "ConfigMap"},
                               {"name", "owner2"},
                               {"uid", owner2.body.at("metadata").at("uid")}}};
  ASSERT_EQ(create("/api/v1/namespaces/default/configmaps", json::serialize(orphan)).status, 201);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/default/configmaps/owner2",
                 R"({"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Orphan"})")
                .status,
            200);
  auto kept = call("GET", "/api/v1/namespaces/default/configmaps/orphan");
  ASSERT_EQ(kept.status, 200);
  EXPECT_FALSE(kept.body.at("metadata").as_object().contains("ownerReferences"));
}

TEST_F(ApiFixture, NamespaceDeletionRemovesItsContents) {
  ASSERT_EQ(create("/api/v1/namespaces",
                   R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team"}})")
                .status,
            201);
  ASSERT_EQ(create("/api/v1/namespaces/team/configmaps", configMap("x")).status, 201);
  EXPECT_EQ(call("DELETE", "/api/v1/namespaces/team").status, 200);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/team").status, 404);
  EXPECT_EQ(call("GET", "/api/v1/namespaces/team/configmaps/x").status, 404);
}

const char* kCrd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
  "metadata":{"name":"widgets.example.com"},
  "spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"],"categories":["all"]},
    "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
      "additionalPrinterColumns":[{"name":"Size","type":"integer","jsonPath":".spec.size"}],
      "schema":{"openAPIV3Schema":{"type":"object","properties":{
        "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1,"default":1}}},
        "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}})";

TEST_F(ApiFixture, CustomResourceDefinitionsServeTheirResource) {
  auto crd = create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", kCrd);
  ASSERT_EQ(crd.status, 201) << crd.raw;
  bool established = false;
  for (const auto& c : crd.body.at("status").at("conditions").as_array())
    established = established || (c.at("type") == "Established" && c.at("status") == "True");
  EXPECT_TRUE(established);
  auto discovery = call("GET", "/apis/example.com/v1");
  ASSERT_EQ(discovery.status, 200);
  EXPECT_EQ(discovery.body.at("resources").at(0).at("shortNames"), json::array{"wd"});
  auto widget = create(
      "/apis/example.com/v1/namespaces/default/widgets",
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}})");
  ASSERT_EQ(widget.status, 201) << widget.raw;
  auto table =
      call("GET", "/apis/example.com/v1/namespaces/default/widgets", "", "application/json",
           "secret-token", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json");
  EXPECT_EQ(table.body.at("kind"), "Table");
  EXPECT_EQ(table.body.at("columnDefinitions").at(1).at("name"), "Size");
  EXPECT_EQ(table.body.at("rows").at(0).at("cells").at(1), 3);
  // Schema: defaults, unknown fields (Strict rejects, Warn prunes with a warning), validation.
  auto defaulted = create(
      "/apis/example.com/v1/namespaces/default/widgets",
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{}})");
  EXPECT_EQ(defaulted.body.at("spec").at("size"), 1);
  auto strict = create(
      "/apis/example.com/v1/namespaces/default/widgets?fieldValidation=Strict",
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w3"},"spec":{"colour":"red"}})");
  EXPECT_EQ(strict.status, 400);
  EXPECT_EQ(strict.body.at("message"),
            "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: "
            "unknown field \"spec.colour\"");
  auto pruned = create(
      "/apis/example.com/v1/namespaces/default/widgets",
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w4"},"spec":{"colour":"red"}})");
  EXPECT_EQ(pruned.status, 201);
  EXPECT_FALSE(pruned.body.at("spec").as_object().contains("colour"));
  auto invalid = create(
      "/apis/example.com/v1/namespaces/default/widgets",
      R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w5"},"spec":{"size":0}})");
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(invalid.body.at("message"),
            "Widget.example.com \"w5\" is invalid: spec.size: Invalid value: 0: spec.size in body "
            "should be greater than or equal to 1");
  auto openapi = call("GET", "/openapi/v3");
  const std::string docUrl(
      openapi.body.at("paths").at("apis/example.com/v1").at("serverRelativeURL").as_string());
  auto doc = call("GET", docUrl);
  const auto& patchOp = doc.body.at("paths")
                            .at("/apis/example.com/v1/namespaces/{namespace}/widgets/{name}")
                            .at("patch");
  EXPECT_EQ(patchOp.at("x-kubernetes-group-version-kind").at("kind"), "Widget");
  EXPECT_EQ(patchOp.at("parameters").at(2).at("name"), "fieldValidation");
  EXPECT_EQ(doc.body.at("components")
                .at("schemas")
                .at("com.example.v1.Widget")
                .at("properties")
                .at("spec")
                .at("properties")
                .at("size")
                .at("minimum"),
            1);
  EXPECT_EQ(call("PATCH", "/apis/example.com/v1/namespaces/default/widgets/w1", "{}",
                 "application/strategic-merge-patch+json")
                .status,
            415);  // as kube-apiserver: no strategic merge for custom resources
  EXPECT_EQ(
      call("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com")
          .status,
      200);
  EXPECT_EQ(call("GET", "/apis/example.com/v1/namespaces/default/widgets").status, 404);
  ASSERT_EQ(create("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", kCrd).status, 201);
  EXPECT_TRUE(call("GET", "/apis/example.com/v1/namespaces/default/widgets")
                  .body.at("items")
                  .as_array()
                  .empty());
}

// Reads watch events until `count` events other than BOOKMARKs arrived (or the stream ended).
std::vector<json::value> readEvents(net::testing::IoThread& io, net::HttpClient& client,
                                    const std::string& target, size_t count,
                                    bool untilBookmark = false) {
  return io.run([&]() -> boost::asio::awaitable<std::vector<json::value>> {
    net::HttpRequest req{"GET", target, {{"Authorization", "Bearer secret-token"}}, ""};
    auto opened = co_await client.openStream(std::move(req), 5s);
    std::vector<json::value> events;
    if (!opened || !opened->stream) co_return events;
    std::string buffer;
    size_t changes = 0;
    bool bookmarked = false;
    while (changes < count || (untilBookmark && !bookmarked)) {
      auto part = co_await opened->stream->next(5s);
      if (!part || part->empty()) break;
      buffer += *part;
      size_t nl;
      while ((nl = buffer.find('\n')) != std::string::npos) {
        events.push_back(json::parse(buffer.substr(0, nl)));
        buffer.erase(0, nl + 1);
        if (events.back().at("type") != "BOOKMARK") {
          ++changes;
        } else if (changes >= count) {
          bookmarked = true;
        }
      }
    }
    opened->stream->close();
    co_return events;
  }());
}

TEST_F(ApiFixture, WatchFromAVersionSeesLaterChangesAndBookmarks) {
  ASSERT_EQ(create("/api/v1/namespaces/default/configmaps", configMap("before")).status, 201);
  auto listed = call("GET", "/api/v1/namespaces/default/configmaps");
  const std::string rv(listed.body.at("metadata").at("resourceVersion").as_string());
  // Changes after the list, made from another thread while the watch runs.
  std::thread writer([&] {
    net::HttpClient other(io_.io().get_executor(), net::parseEndpoint(server_->url()).value(), {});
    for (const char* name : {"after1", "after2"}) {
      net::HttpRequest req{
          "POST",
          "/api/v1/namespaces/default/configmaps",
          {{"Authorization", "Bearer secret-token"}, {"Content-Type", "application/json"}},
          configMap(name)};
      EXPECT_TRUE(io_.run(other.request(std::move(req), 5s)));
    }
  });
  auto events = readEvents(
      io_, *client_,
      "/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true&resourceVersion=" +
          rv,
      2, /*untilBookmark=*/true);
  writer.join();
  std::vector<std::string> seen;
  int64_t lastVersion = 0;
  for (const auto& e : events) {
    const std::string type(e.at("type").as_string());
    const int64_t version =
        std::stoll(std::string(e.at("object").at("metadata").at("resourceVersion").as_string()));
    if (type == "BOOKMARK") {
      EXPECT_GE(version, lastVersion);  // a bookmark never goes back
      continue;
    }
    lastVersion = version;
    seen.push_back(type + " " + std::string(e.at("object").at("metadata").at("name").as_string()));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"ADDED after1", "ADDED after2"}));
  EXPECT_EQ(events.back().at("type"), "BOOKMARK");
}

TEST_F(ApiFixture, WatchWithoutVersionStartsWithTheCurrentState) {
  ASSERT_EQ(create("/api/v1/namespaces/default/configmaps", configMap("one")).status, 201);
  auto events = readEvents(io_, *client_,
                           "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", 10);
  ASSERT_EQ(events.size(), 1u);  // the synthetic ADDED, then the stream ends after 1s
  EXPECT_EQ(events[0].at("type"), "ADDED");
}

TEST_F(ApiFixture, WatchFromATooOldVersionIsGone) {
  for (int i = 0; i < 60; ++i)  // more than the 50-event window
    ASSERT_EQ(
        create("/api/v1/namespaces/default/configmaps", configMap("cm" + std::to_string(i))).status,
        201);
  auto events = readEvents(io_, *client_,
                           "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=2", 1);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].at("type"), "ERROR");
  EXPECT_EQ(events[0].at("object").at("code"), 410);
  EXPECT_EQ(events[0].at("object").at("reason"), "Expired");
}

// Defaults arrive on create; writing back the object without them (PUT, merge patch, apply)
// changes nothing and keeps the resourceVersion; an apply does not own the defaults.
TEST_F(ApiFixture, BuiltinDefaultsAndSteadyWrites) {
  const std::string desired = R"({"apiVersion":"apps/v1","kind":"Deployment",
    "metadata":{"name":"web","namespace":"default"},"spec":{"selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"web",
    "image":"nginx:1.25","ports":[{"containerPort":80}]}]}}}})";
  const std::string path = "/apis/apps/v1/namespaces/default/deployments";
  auto created = create(path, desired);
  ASSERT_EQ(created.status, 201) << created.raw;
  const auto& spec = created.body.at("spec");
  EXPECT_EQ(spec.at("replicas"), 1);
  EXPECT_EQ(spec.at("strategy").at("rollingUpdate").at("maxSurge"), "25%");
  EXPECT_EQ(spec.at("progressDeadlineSeconds"), 600);
  const auto& container = spec.at("template").at("spec").at("containers").at(0);
  EXPECT_EQ(container.at("imagePullPolicy"), "IfNotPresent");
  EXPECT_EQ(container.at("ports").at(0).at("protocol"), "TCP");
  const auto version = created.body.at("metadata").at("resourceVersion");

  auto put = call("PUT", path + "/web", desired);
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.body.at("metadata").at("resourceVersion"), version);
  EXPECT_EQ(put.body.at("metadata").at("generation"), 1);
  auto merge =
      call("PATCH", path + "/web", R"({"spec":{"replicas":1}})", "application/merge-patch+json");
  EXPECT_EQ(merge.body.at("metadata").at("resourceVersion"), version);
  // A Deployment's annotations count as spec for its generation (not a ConfigMap's labels).
  auto annotated = call("PATCH", path + "/web", R"({"metadata":{"annotations":{"a":"b"}}})",
                        "application/merge-patch+json");
  EXPECT_EQ(annotated.body.at("metadata").at("generation"), 2);
  auto labelled = call("PATCH", path + "/web", R"({"metadata":{"labels":{"a":"b"}}})",
                       "application/merge-patch+json");
  EXPECT_EQ(labelled.body.at("metadata").at("generation"), 2);

  // Server-side apply: the manager owns what it applied; dropping a field it had set brings the
  // default back.
  const std::string applyPath = "/apis/apps/v1/namespaces/default/deployments/ssa?fieldManager=me";
  std::string config = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"ssa"},
    "spec":{"selector":{"matchLabels":{"app":"ssa"}},"template":{"metadata":{"labels":{"app":"ssa"}},
    "spec":{"containers":[{"name":"web","image":"nginx:1.25","imagePullPolicy":"Never"}]}}}})";
  auto applied = call("PATCH", applyPath, config, "application/apply-patch+yaml");
  ASSERT_EQ(applied.status, 201) << applied.raw;
  const std::string fields = json::serialize(applied.body.at("metadata").at("managedFields"));
  EXPECT_NE(fields.find("f:imagePullPolicy"), std::string::npos);
  EXPECT_EQ(fields.find("f:terminationMessagePath"), std::string::npos);
  EXPECT_EQ(fields.find("f:strategy"), std::string::npos);
  config.replace(config.find(R"(,"imagePullPolicy":"Never")"), 26, "");
  auto reapplied = call("PATCH", applyPath, config, "application/apply-patch+yaml");
  ASSERT_EQ(reapplied.status, 200) << reapplied.raw;
  EXPECT_EQ(reapplied.body.at("spec")
                .at("template")
                .at("spec")
                .at("containers")
                .at(0)
                .at("imagePullPolicy"),
            "IfNotPresent");
  auto again = call("PATCH", applyPath, config, "application/apply-patch+yaml");
  EXPECT_EQ(again.body.at("metadata").at("resourceVersion"),
            reapplied.body.at("metadata").at("resourceVersion"));
}

TEST_F(ApiFixture, PodsGetAdmissionDefaultsAndQosClass) {
  auto pod = create("/api/v1/namespaces/default/pods", R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx",
    "resources":{"limits":{"cpu":"0.5","memory":"1Gi"}}}]}})");
  ASSERT_EQ(pod.status, 201) << pod.raw;
  const auto& spec = pod.body.at("spec");
  EXPECT_EQ(spec.at("tolerations").as_array().size(), 2u);
  EXPECT_EQ(spec.at("priority"), 0);
  EXPECT_EQ(spec.at("enableServiceLinks"), true);
  EXPECT_EQ(spec.at("serviceAccountName"), "default");
  EXPECT_EQ(spec.at("containers").at(0).at("resources").at("requests").at("cpu"), "500m");
  EXPECT_EQ(pod.body.at("status"), json::parse(R"({"phase":"Pending","qosClass":"Guaranteed"})"));

  auto table = call("GET", "/api/v1/namespaces/default/pods", "", "application/json",
                    "secret-token", "application/json;as=Table;v=v1;g=meta.k8s.io");
  ASSERT_EQ(table.status, 200);
  EXPECT_EQ(table.body.at("columnDefinitions").at(1).at("name"), "Ready");
  const auto& cells = table.body.at("rows").at(0).at("cells").as_array();
  EXPECT_EQ(cells.at(1), "0/1");
  EXPECT_EQ(cells.at(2), "Pending");
  EXPECT_EQ(cells.at(3), "0");
}

// core/v1 and events.k8s.io/v1 Events are one collection.
TEST_F(ApiFixture, EventsAreOneCollectionThroughBothApis) {
  const std::string core = "/api/v1/namespaces/default/events";
  const std::string v1 = "/apis/events.k8s.io/v1/namespaces/default/events";
  auto written = create(v1, R"({"apiVersion":"events.k8s.io/v1","kind":"Event",
    "metadata":{"name":"new"},"regarding":{"kind":"Pod","name":"p","namespace":"default",
    "uid":"u-1"},"reason":"Started","note":"started","type":"Normal","action":"Start",
    "reportingController":"kubelet","reportingInstance":"n1",
    "eventTime":"2026-11-22T10:00:00.000000Z"})");
  ASSERT_EQ(written.status, 201) << written.raw;
  EXPECT_EQ(written.body.at("apiVersion"), "events.k8s.io/v1");
  EXPECT_EQ(written.body.at("note"), "started");
  auto asCore = call("GET", core + "/new");
  ASSERT_EQ(asCore.status, 200);
  EXPECT_EQ(asCore.body.at("apiVersion"), "v1");
  EXPECT_EQ(asCore.body.at("message"), "started");
  EXPECT_EQ(asCore.body.at("involvedObject").at("uid"), "u-1");
  EXPECT_EQ(asCore.body.at("reportingComponent"), "kubelet");

  ASSERT_EQ(create(core, R"({"apiVersion":"v1","kind":"Event","metadata":{"name":"old"},
    "involvedObject":{"kind":"Deployment","name":"web","namespace":"default"},"reason":"Scaled",
    "message":"scaled","type":"Warning","source":{"component":"deployment-controller"},
    "count":2})")
                .status,
            201);
  auto asNew = call("GET", v1 + "/old");
  EXPECT_EQ(asNew.body.at("regarding").at("name"), "web");
  EXPECT_EQ(asNew.body.at("deprecatedCount"), 2);
  EXPECT_EQ(asNew.body.at("deprecatedSource").at("component"), "deployment-controller");
  EXPECT_EQ(call("GET", core).body.at("items").as_array().size(), 2u);
  EXPECT_EQ(call("GET", v1).body.at("items").as_array().size(), 2u);

  auto names = [&](const std::string& url) {
    std::vector<std::string> out;
    const auto listed = call("GET", url);
    for (const auto& item : listed.body.at("items").as_array())
      out.emplace_back(item.at("metadata").at("name").as_string());
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(core + "?fieldSelector=involvedObject.name%3Dp"), Names{"new"});
  EXPECT_EQ(names(core + "?fieldSelector=involvedObject.uid%3Du-1,involvedObject.kind%3DPod"),
            Names{"new"});
  EXPECT_EQ(names(core + "?fieldSelector=reason%3DScaled,type%3DWarning"), Names{"old"});
  EXPECT_EQ(names(core + "?fieldSelector=involvedObject.namespace%3Ddefault").size(), 2u);
  EXPECT_EQ(names(core + "?fieldSelector=source%3Dkubelet"), Names{"new"});
  EXPECT_EQ(names(v1 + "?fieldSelector=regarding.name%3Dweb"), Names{"old"});
  EXPECT_EQ(names(v1 + "?fieldSelector=reportingController%3Dkubelet"), Names{"new"});

  // Writing back what was read, through either API, is no change.
  auto put = call("PUT", v1 + "/old", json::serialize(asNew.body));
  ASSERT_EQ(put.status, 200) << put.raw;
  EXPECT_EQ(put.body.at("metadata").at("resourceVersion"),
            asNew.body.at("metadata").at("resourceVersion"));
  auto patched =
      call("PATCH", v1 + "/new", R"({"note":"started again"})", "application/merge-patch+json");
  ASSERT_EQ(patched.status, 200) << patched.raw;
  EXPECT_EQ(call("GET", core + "/new").body.at("message"), "started again");
  EXPECT_EQ(call("DELETE", core + "/new").status, 200);
  EXPECT_EQ(call("GET", v1 + "/new").status, 404);
}

TEST_F(ApiFixture, RequestMetricsCountRequestsAsKubeApiserver) {
  ASSERT_EQ(create("/api/v1/namespaces/default/configmaps", configMap("m1")).status, 201);
  EXPECT_EQ(create("/api/v1/namespaces/default/configmaps", configMap("m1")).status, 409);
  call("GET", "/api/v1/namespaces/default/configmaps/m1");
  call("GET", "/api/v1/configmaps");
  call("PATCH", "/api/v1/namespaces/default/configmaps/m1", R"({"data":{"k":"w"}})",
       "application/merge-patch+json");
  call("PATCH", "/api/v1/namespaces/default/configmaps/m2?fieldManager=me",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m2"}})",
       "application/apply-patch+yaml");
  call("DELETE", "/api/v1/namespaces/default/configmaps/m1?dryRun=All");
  call("DELETE", "/api/v1/namespaces/default/configmaps");
  const auto& metrics = api_->metrics();
  auto count = [&](const char* verb, const char* scope, int code, const char* dryRun = "") {
    return metrics.count({verb, dryRun, "", "v1", "configmaps", "", scope, "apiserver", code});
  };
  EXPECT_EQ(count("POST", "resource", 201), 1u);
  EXPECT_EQ(count("POST", "resource", 409), 1u);
  EXPECT_EQ(count("GET", "resource", 200), 1u);
  EXPECT_EQ(count("LIST", "cluster", 200), 1u);
  EXPECT_EQ(count("PATCH", "resource", 200), 1u);
  EXPECT_EQ(count("APPLY", "resource", 201), 1u);
  EXPECT_EQ(count("DELETE", "resource", 200, "All"), 1u);
  EXPECT_EQ(count("DELETE", "namespace", 200), 1u);

  auto text = call("GET", "/metrics");
  ASSERT_EQ(text.status, 200);
  EXPECT_NE(text.raw.find("# TYPE apiserver_request_total counter\n"), std::string::npos);
  EXPECT_NE(text.raw.find("apiserver_request_total{code=\"201\",component=\"apiserver\","
                          "dry_run=\"\",group=\"\",resource=\"configmaps\",scope=\"resource\","
                          "subresource=\"\",verb=\"POST\",version=\"v1\"} 1\n"),
            std::string::npos);
  EXPECT_EQ(call("GET", "/metrics", "", "application/json", "").status, 401);
}

}  // namespace
}  // namespace flotilla::sim

namespace flotilla::sim {
namespace {

TEST_F(ApiFixture, WorkloadKindsAreServedWithTheirSubresources) {
  auto apps = call("GET", "/apis/apps/v1");
  std::string names;
  for (const auto& r : apps.body.at("resources").as_array())
    names += std::string(r.at("name").as_string()) + " ";
  EXPECT_NE(names.find("statefulsets statefulsets/status statefulsets/scale"), std::string::npos)
      << names;
  EXPECT_NE(names.find("daemonsets daemonsets/status"), std::string::npos) << names;
  EXPECT_EQ(call("GET", "/apis/batch/v1").status, 200);
  EXPECT_EQ(call("GET", "/apis/autoscaling/v2").status, 200);
  EXPECT_EQ(call("GET", "/apis/networking.k8s.io/v1").status, 200);
  auto version = call("GET", "/version");
  EXPECT_EQ(version.body.at("minor"), "32");

  auto sts = create("/apis/apps/v1/namespaces/default/statefulsets", R"({"apiVersion":"apps/v1",
    "kind":"StatefulSet","metadata":{"name":"db"},"spec":{"replicas":2,"ordinals":{"start":3},
    "selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},
    "spec":{"containers":[{"name":"db","image":"postgres:16"}]}}}})");
  ASSERT_EQ(sts.status, 201) << sts.raw;
  EXPECT_EQ(sts.body.at("spec").at("ordinals").at("start"), 3);
  EXPECT_EQ(sts.body.at("spec").at("podManagementPolicy"), "OrderedReady");
  auto scaled = call("PATCH", "/apis/apps/v1/namespaces/default/statefulsets/db/scale",
                     R"({"spec":{"replicas":4}})", "application/merge-patch+json");
  EXPECT_EQ(scaled.status, 200) << scaled.raw;
  EXPECT_EQ(call("GET", "/apis/apps/v1/namespaces/default/statefulsets/db")
                .body.at("spec")
                .at("replicas"),
            4);

  auto job = create("/apis/batch/v1/namespaces/default/jobs", R"({"apiVersion":"batch/v1",
    "kind":"Job","metadata":{"name":"pi"},"spec":{"template":{"spec":{"restartPolicy":"Never",
    "containers":[{"name":"pi","image":"perl:5"}]}}}})");
  ASSERT_EQ(job.status, 201) << job.raw;
  const json::value uid = job.body.at("metadata").at("uid");
  EXPECT_EQ(
      job.body.at("spec").at("selector").at("matchLabels").at("batch.kubernetes.io/controller-uid"),
      uid);
  EXPECT_EQ(job.body.at("metadata").at("labels").at("job-name"), "pi");
  // A merge patch leaves the generated selector alone.
  auto patched = call("PATCH", "/apis/batch/v1/namespaces/default/jobs/pi",
                      R"({"metadata":{"annotations":{"a":"b"}}})", "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.raw;
  EXPECT_EQ(patched.body.at("spec").at("selector"), job.body.at("spec").at("selector"));
}

class OldApiFixture : public ApiFixture {
 protected:
  OldApiFixture() { gitVersion_ = "v1.26.3"; }
};

TEST_F(OldApiFixture, AV126ServerDropsStatefulSetOrdinals) {
  auto version = call("GET", "/version");
  EXPECT_EQ(version.body.at("major"), "1");
  EXPECT_EQ(version.body.at("minor"), "26");
  EXPECT_EQ(version.body.at("gitVersion"), "v1.26.3");
  auto sts = create("/apis/apps/v1/namespaces/default/statefulsets", R"({"apiVersion":"apps/v1",
    "kind":"StatefulSet","metadata":{"name":"db"},"spec":{"replicas":2,"ordinals":{"start":3},
    "selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},
    "spec":{"containers":[{"name":"db","image":"postgres:16"}]}}}})");
  ASSERT_EQ(sts.status, 201) << sts.raw;
  EXPECT_FALSE(sts.body.at("spec").as_object().contains("ordinals"));
  auto patched = call("PATCH", "/apis/apps/v1/namespaces/default/statefulsets/db",
                      R"({"spec":{"ordinals":{"start":1}}})", "application/merge-patch+json");
  EXPECT_EQ(patched.status, 200) << patched.raw;
  EXPECT_FALSE(patched.body.at("spec").as_object().contains("ordinals"));
}

}  // namespace
}  // namespace flotilla::sim
