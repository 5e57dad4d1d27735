#include "kube/client/watch_decoder.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/json_arena.h"
#include "kube/client/rate_limiter.h"
#include "kube/client/resource.h"

namespace flotilla::kube {
namespace {

using namespace std::chrono_literals;

const std::string kThreeEvents =
    R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"1"},"data":{"k":"x\ny"}}})"
    "\n"
    R"({"type":"DELETED","object":{"metadata":{"name":"a","resourceVersion":"2"}}})"
    "\n\n"
    R"j({"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"too old resource version: 1 (5)"}})j"
    "\n";

TEST(WatchDecoder, AnEventsObjectLivesInASealedArenaOfItsOwn) {
  // Parsed into an arena of about its size (api/json_arena.h), sealed before anyone sees it,
  // whether the event came in one chunk or in several.
  for (size_t split : {kThreeEvents.size(), size_t{20}}) {
    WatchDecoder decoder;
    std::vector<WatchEvent> events;
    for (auto part : {kThreeEvents.substr(0, split), kThreeEvents.substr(split)}) {
      auto got = decoder.feed(part);
      ASSERT_TRUE(got) << got.error().message;
      for (auto& e : *got) events.push_back(std::move(e));
    }
    ASSERT_EQ(events.size(), 3u);
    const auto* first = api::jsonArenaOf(events[0].object.storage());
    const auto* second = api::jsonArenaOf(events[1].object.storage());
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    EXPECT_NE(first, second);
    EXPECT_TRUE(first->sealed());
    EXPECT_EQ(events[0].object.at("data").at("k"), "x\ny");
  }
}

TEST(WatchDecoder, EverySplitPointGivesTheSameEvents) {
  // Split the stream in two at every byte (and in three at every pair of bytes for a stride):
  // events straddling chunks and several events in one chunk must decode identically.
  for (size_t i = 0; i <= kThreeEvents.size(); ++i) {
    for (size_t j = i; j <= kThreeEvents.size(); j += 7) {
      WatchDecoder decoder;
      std::vector<WatchEvent> events;
      for (auto part :
           {kThreeEvents.substr(0, i), kThreeEvents.substr(i, j - i), kThreeEvents.substr(j)}) {
        auto got = decoder.feed(part);
        ASSERT_TRUE(got) << got.error().message << " split at " << i << "," << j;
        for (auto& e : *got) events.push_back(std::move(e));
      }
      ASSERT_EQ(events.size(), 3u) << "split at " << i << "," << j;
      EXPECT_EQ(events[0].type, WatchEvent::Type::kAdded);
      EXPECT_EQ(events[0].object.at("data").at("k"), "x\ny");
      EXPECT_EQ(events[1].type, WatchEvent::Type::kDeleted);
      EXPECT_EQ(events[2].type, WatchEvent::Type::kError);
      EXPECT_FALSE(decoder.midEvent());
      const auto error = errorFromWatchEvent(events[2]);
      EXPECT_EQ(error.code, 410);
      EXPECT_EQ(error.reason, "Expired");
    }
  }
}

TEST(WatchDecoder, MalformedOversizedAndUnfinishedEvents) {
  WatchDecoder partial;
  ASSERT_TRUE(partial.feed(R"({"type":"ADDED","obj)"));
  EXPECT_TRUE(partial.midEvent());

  WatchDecoder bad;
  auto malformed = bad.feed("{\"type\": nope}\n");
  ASSERT_FALSE(malformed);
  EXPECT_NE(malformed.error().message.find("malformed JSON"), std::string::npos);

  WatchDecoder unknown;
  auto weird = unknown.feed(R"({"type":"RENAMED","object":{}})");
  ASSERT_FALSE(weird);
  EXPECT_NE(weird.error().message.find("unknown event type RENAMED"), std::string::npos);

  WatchDecoder small(64);
  auto big = small.feed(R"({"type":"ADDED","object":{"data":")" + std::string(100, 'x'));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("larger than 64 bytes"), std::string::npos);
}

TEST(TokenBucket, BurstThenSteadyRateWithQueuedReservations) {
  api::FakeSteadyClock clock;
  TokenBucket bucket(10, 3, clock);  // 10 qps, burst 3
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 0ns);
  EXPECT_EQ(bucket.reserve(), 100ms);  // the fourth waits one token's time
  EXPECT_EQ(bucket.reserve(), 200ms);  // and the fifth behind it
  EXPECT_FALSE(bucket.tryTake());
  clock.advance(1s);  // refills 10 tokens, capped at the burst: -2 + 10 → 3
  EXPECT_TRUE(bucket.tryTake());
  EXPECT_TRUE(bucket.tryTake());
  EXPECT_TRUE(bucket.tryTake());
  EXPECT_FALSE(bucket.tryTake());
  TokenBucket unlimited(0, 1, clock);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(unlimited.reserve(), 0ns);
}

TEST(Resource, PathsAndQueries) {
  const ResourceId pods{"", "v1", "pods", true, "Pod"};
  EXPECT_EQ(pods.path(), "/api/v1/pods");
  EXPECT_EQ(pods.path("ns", "p", "status"), "/api/v1/namespaces/ns/pods/p/status");
  EXPECT_EQ(pods.str(), "pods.v1");
  const ResourceId nodes{"", "v1", "nodes", false, "Node"};
  EXPECT_EQ(nodes.path("ns", "n1"), "/api/v1/nodes/n1");
  ListOptions o;
  o.fieldSelector = "spec.nodeName=n1";
  o.resourceVersion = "10";
  o.allowWatchBookmarks = true;
  o.timeoutSeconds = 300;
  o.limit = 5;
  EXPECT_EQ(listQuery(o, true),
            "?watch=true&fieldSelector=spec.nodeName%3Dn1&resourceVersion=10&"
            "allowWatchBookmarks=true&timeoutSeconds=300");
  EXPECT_EQ(listQuery(o, false), "?fieldSelector=spec.nodeName%3Dn1&limit=5&resourceVersion=10");
  EXPECT_EQ(listQuery({}, false), "");
}

}  // namespace
}  // namespace flotilla::kube
