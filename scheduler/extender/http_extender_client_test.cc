// HttpExtenderClient against real HTTP(S) test servers on port 0: working, slow, erroring,
// malformed and unreachable extenders, concurrency of prioritize calls, TLS with a CA bundle.
#include "scheduler/extender/http_extender_client.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>

#include "kube/net/http_server.h"
#include "kube/net/test_server.h"
#include "scheduler/test_clusters.h"

namespace flotilla::scheduler {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;
using namespace std::chrono_literals;

// What a test extender does for a verb.
enum class Behaviour { kWork, kSlow, kHttp500, kMalformed };

// Filter passes every cluster except "member2"; prioritize gives member3 10, others 1. The server
// also counts requests and the most calls in flight at once.
struct Concurrency {
  std::atomic<int> inFlight{0};
  std::atomic<int> maxInFlight{0};
};

struct FakeExtender {
  Behaviour behaviour = Behaviour::kWork;
  std::atomic<int> calls{0};
  Concurrency* shared = nullptr;  // counts calls in flight across every fake of a test
  int waitForPeers = 0;           // hold each call (bounded) until this many were in flight
  std::string lastBody;
  std::mutex mutex;

  net::HttpHandler handler() {
    return [this](net::HttpExchange& ex) -> asio::awaitable<void> {
      ++calls;
      const int now = ++shared->inFlight;
      for (int seen = shared->maxInFlight;
           now > seen && !shared->maxInFlight.compare_exchange_weak(seen, now);) {
      }
      {
        std::lock_guard lock(mutex);
        lastBody = ex.request().body;
      }
      net::HttpResponse response{200, {{"Content-Type", "application/json"}}, ""};
      asio::steady_timer timer(ex.executor());
      if (behaviour == Behaviour::kSlow) {
        timer.expires_after(3s);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      }
      // Concurrency check: wait (bounded) until enough calls are in flight together.
      for (int i = 0; i < 1000 && shared->maxInFlight < waitForPeers; ++i) {
        timer.expires_after(2ms);
        co_await timer.async_wait(asio::as_tuple(asio::use_awaitable));
      }
      const auto args = json::parse(ex.request().body).as_object();
      const auto& names = args.at("clusterNames").as_array();
      if (behaviour == Behaviour::kHttp500) {
        response.status = 500;
        response.body = "database unavailable";
      } else if (behaviour == Behaviour::kMalformed) {
        response.body = "{\"clusterNames\": [";
      } else if (ex.request().path().ends_with("/filter")) {
        json::array passed;
        json::object failed;
        for (const auto& n : names) {
          if (n == "member2") {
            failed["member2"] = "no GPU left";
          } else {
            passed.push_back(n);
          }
        }
        response.body =
            json::serialize(json::object{{"clusterNames", passed}, {"failedClusters", failed}});
      } else {
        json::array scores;
        for (const auto& n : names)
          scores.push_back(json::object{{"cluster", n}, {"score", n == "member3" ? 10 : 1}});
        response.body = json::serialize(scores);
      }
      --shared->inFlight;
      co_await ex.respond(std::move(response));
    };
  }
};

struct ExtenderFixture : ::testing::Test {
  net::testing::IoThread io;
  Concurrency concurrency;
  std::vector<std::unique_ptr<FakeExtender>> fakes;
  std::vector<std::unique_ptr<net::HttpServer>> servers;
  std::vector<api::FederatedCluster> clusters = {
      testing::cluster("member1"), testing::cluster("member2"), testing::cluster("member3")};
  SchedulingUnit unit;

  ExtenderFixture() {
    unit.key = "default/web";
    unit.replicas = 3;
  }

  // Starts a fake extender; returns its config (plain HTTP on loopback).
  ExtenderConfig start(const std::string& name, Behaviour behaviour,
                       net::TlsContextPtr tls = nullptr) {
    auto fake = std::make_unique<FakeExtender>();
    fake->behaviour = behaviour;
    fake->shared = &concurrency;
    net::HttpServerOptions options;
    options.tls = tls;
    auto server = std::make_unique<net::HttpServer>(io.io(), options, fake->handler());
    EXPECT_TRUE(server->start());
    ExtenderConfig config;
    config.name = name;
    config.urlPrefix = server->url() + "/scheduler";
    config.filterVerb = "filter";
    config.prioritizeVerb = "prioritize";
    config.timeout = 2s;
    fakes.push_back(std::move(fake));
    servers.push_back(std::move(server));
    return config;
  }

  std::vector<const api::FederatedCluster*> all() {
    return {&clusters[0], &clusters[1], &clusters[2]};
  }
};

TEST_F(ExtenderFixture, FilterAndPrioritizeOverHttp) {
  auto config = start("gpu", Behaviour::kWork);
  config.weight = 2;
  auto client = HttpExtenderClient::create({config}).value();
  auto filtered = client->filter(unit, all());
  EXPECT_EQ(filtered.error, "");
  ASSERT_EQ(filtered.rejected.size(), 1u);
  EXPECT_EQ(filtered.rejected[0].cluster, "member2");
  EXPECT_EQ(filtered.rejected[0].plugin, "extender/gpu");
  EXPECT_EQ(filtered.rejected[0].reason, "no GPU left");

  auto scored = client->prioritize(unit, all());
  ASSERT_EQ(scored.scores.size(), 1u);
  EXPECT_EQ(scored.scores[0].weighted.at("member3"), 200);  // 10 -> 100, weight 2
  EXPECT_EQ(scored.scores[0].weighted.at("member1"), 20);
  EXPECT_EQ(fakes[0]->calls, 2);
  // The request carried full cluster objects (not nodeCacheCapable).
  EXPECT_NE(fakes[0]->lastBody.find("\"items\""), std::string::npos);
}

TEST_F(ExtenderFixture, FilterExtendersRunInOrderOnSurvivors) {
  auto first = start("first", Behaviour::kWork);
  auto second = start("second", Behaviour::kWork);
  second.nodeCacheCapable = true;
  auto client = HttpExtenderClient::create({first, second}).value();
  auto filtered = client->filter(unit, all());
  EXPECT_EQ(filtered.rejected.size(), 1u);
  const auto args = json::parse(fakes[1]->lastBody).as_object();
  EXPECT_EQ(args.at("clusterNames"), (json::array{"member1", "member3"}));  // member2 gone
  EXPECT_FALSE(args.contains("clusters"));                                  // names only
}

TEST_F(ExtenderFixture, PrioritizeCallsRunConcurrently) {
  auto a = start("a", Behaviour::kWork);
  auto b = start("b", Behaviour::kWork);
  a.filterVerb = b.filterVerb = "";
  // Each call is held until two calls were in flight at once (at most 2s): calls made one after
  // the other would never see two, so this passes only when the calls overlap.
  fakes[0]->waitForPeers = 2;
  fakes[1]->waitForPeers = 2;
  auto client = HttpExtenderClient::create({a, b}).value();
  auto scored = client->prioritize(unit, all());
  ASSERT_EQ(scored.scores.size(), 2u);
  EXPECT_TRUE(scored.warnings.empty());
  EXPECT_EQ(concurrency.maxInFlight, 2);
}

TEST_F(ExtenderFixture, SlowNonIgnorableFilterFailsWithTimeout) {
  auto config = start("slow", Behaviour::kSlow);
  config.timeout = 100ms;
  auto client = HttpExtenderClient::create({config}).value();
  auto filtered = client->filter(unit, all());
  EXPECT_NE(filtered.error.find("extender slow filter:"), std::string::npos) << filtered.error;
  EXPECT_NE(filtered.error.find("timed out after 100ms"), std::string::npos) << filtered.error;
}

TEST_F(ExtenderFixture, IgnorableFailuresAreSkippedWithAWarning) {
  auto broken = start("broken", Behaviour::kHttp500);
  broken.ignorable = true;
  auto working = start("working", Behaviour::kWork);
  auto client = HttpExtenderClient::create({broken, working}).value();
  auto filtered = client->filter(unit, all());
  EXPECT_EQ(filtered.error, "");
  ASSERT_EQ(filtered.warnings.size(), 1u);
  EXPECT_NE(filtered.warnings[0].find("HTTP 500: database unavailable"), std::string::npos)
      << filtered.warnings[0];
  EXPECT_EQ(filtered.rejected.size(), 1u);  // the working extender still filtered
}

TEST_F(ExtenderFixture, ErrorsAndMalformedJsonFailNonIgnorableFilters) {
  auto http500 = start("e500", Behaviour::kHttp500);
  auto e = HttpExtenderClient::create({http500}).value()->filter(unit, all());
  EXPECT_NE(e.error.find("extender e500 filter: HTTP 500"), std::string::npos) << e.error;

  auto malformed = start("garbled", Behaviour::kMalformed);
  auto m = HttpExtenderClient::create({malformed}).value()->filter(unit, all());
  EXPECT_NE(m.error.find("invalid extender response"), std::string::npos) << m.error;
}

TEST_F(ExtenderFixture, PrioritizeFailuresAreIgnored) {
  auto slow = start("slow", Behaviour::kSlow);
  slow.timeout = 100ms;
  auto garbled = start("garbled", Behaviour::kMalformed);
  auto working = start("working", Behaviour::kWork);
  auto client = HttpExtenderClient::create({slow, garbled, working}).value();
  auto scored = client->prioritize(unit, all());
  ASSERT_EQ(scored.scores.size(), 1u);
  EXPECT_EQ(scored.scores[0].plugin, "extender/working");
  EXPECT_EQ(scored.warnings.size(), 2u);
}

TEST_F(ExtenderFixture, UnreachableExtender) {
  auto config = start("gone", Behaviour::kWork);
  servers[0]->stop();
  servers[0].reset();
  auto client = HttpExtenderClient::create({config}).value();
  auto filtered = client->filter(unit, all());
  EXPECT_NE(filtered.error.find("extender gone filter: connecting to"), std::string::npos)
      << filtered.error;
  config.ignorable = true;
  auto ignorable = HttpExtenderClient::create({config}).value()->filter(unit, all());
  EXPECT_EQ(ignorable.error, "");
  EXPECT_TRUE(ignorable.rejected.empty());
  EXPECT_EQ(ignorable.warnings.size(), 1u);
}

TEST_F(ExtenderFixture, HttpsWithACaBundle) {
  auto pki = net::testing::TestPki::make();
  auto tls = net::makeServerTlsContext({pki.server.certPem, pki.server.keyPem, ""}).value();
  auto config = start("secure", Behaviour::kWork, tls);
  ASSERT_EQ(config.urlPrefix.rfind("https://", 0), 0u);
  config.caPem = pki.ca.certPem;
  auto ok = HttpExtenderClient::create({config}).value()->filter(unit, all());
  EXPECT_EQ(ok.error, "");
  EXPECT_EQ(ok.rejected.size(), 1u);

  config.caPem = pki.otherCa.certPem;  // a CA that did not sign the server
  auto bad = HttpExtenderClient::create({config}).value()->filter(unit, all());
  EXPECT_NE(bad.error.find("certificate verify failed"), std::string::npos) << bad.error;

  config.caPem = "garbage";
  auto create = HttpExtenderClient::create({config});
  ASSERT_FALSE(create);
  EXPECT_NE(create.error().message.find("extender secure: certificate authority"),
            std::string::npos);
}

}  // namespace
}  // namespace flotilla::scheduler
