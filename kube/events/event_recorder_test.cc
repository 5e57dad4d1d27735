#include "kube/events/event_recorder.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::kube {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;

class MemorySink final : public EventSink {
 public:
  api::Result<json::object> create(const std::string& ns, const json::object& event) override {
    std::lock_guard lock(mutex);
    const std::string name(event.at("metadata").at("name").as_string());
    if (events.count(ns + "/" + name))
      return api::Error{api::reason::kAlreadyExists, 409, "already exists", {}};
    // Scripted failures: stored-then-unanswered ("lost") or refused (any other Error).
    if (!failures.empty()) {
      auto failure = failures.front();
      failures.erase(failures.begin());
      if (failure.reason == "lost") events[ns + "/" + name] = event;
      return failure;
    }
    events[ns + "/" + name] = event;
    return event;
  }
  api::Result<json::object> patch(const std::string& ns, const std::string& name,
                                  const std::string& mergePatch) override {
    std::lock_guard lock(mutex);
    auto it = events.find(ns + "/" + name);
    if (it == events.end()) return api::Error{api::reason::kNotFound, 404, "gone", {}};
    const json::value parsed = json::parse(mergePatch);
    for (const auto& [k, v] : parsed.as_object()) it->second[k] = v;
    return it->second;
  }
  std::vector<json::object> all() {
    std::lock_guard lock(mutex);
    std::vector<json::object> out;
    for (auto& [k, v] : events) out.push_back(v);
    return out;
  }
  std::mutex mutex;
  std::map<std::string, json::object> events;
  std::vector<api::Error> failures;
};

json::object deployment(const char* ns, const char* name) {
  json::object metadata{{"name", name}, {"uid", std::string("uid-") + name}};
  if (*ns) metadata["namespace"] = ns;
  return json::object{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", metadata}};
}

struct RecorderFixture : ::testing::Test {
  api::FakeSteadyClock clock;
  MemorySink sink;
  std::chrono::system_clock::time_point wall{std::chrono::seconds(1'800'000'000)};
  EventRecorderOptions options() {
    EventRecorderOptions o;
    o.clock = &clock;
    o.wallClock = [this] { return wall; };
    return o;
  }
};

TEST_F(RecorderFixture, RepeatsAreAggregatedIntoOneEventWithACount) {
  AggregatingEventRecorder recorder(sink, options());
  const auto web = deployment("team", "web");
  recorder.event(web, "Warning", "FailedScheduling", "0/3 clusters are available");
  recorder.flush();
  wall += 10s;
  recorder.event(web, "Warning", "FailedScheduling", "0/3 clusters are available");
  recorder.event(web, "Warning", "FailedScheduling", "0/3 clusters are available");
  recorder.event(web, "Normal", "Scheduled", "member1: 2, member2: 1");
  recorder.flush();
  auto events = sink.all();
  ASSERT_EQ(events.size(), 2u);
  const auto& failed = events[0].at("reason") == "FailedScheduling" ? events[0] : events[1];
  EXPECT_EQ(failed.at("count"), 3);
  EXPECT_EQ(failed.at("firstTimestamp"), "2027-01-15T08:00:00Z");
  EXPECT_EQ(failed.at("lastTimestamp"), "2027-01-15T08:00:10Z");
  EXPECT_EQ(failed.at("involvedObject").at("uid"), "uid-web");
  EXPECT_EQ(failed.at("involvedObject").at("namespace"), "team");
  EXPECT_EQ(failed.at("source").at("component"), "flotilla-controller-manager");
  EXPECT_EQ(failed.at("metadata").at("namespace"), "team");
  EXPECT_EQ(recorder.stats().created, 2u);
  EXPECT_EQ(recorder.stats().aggregated, 2u);
}

TEST_F(RecorderFixture, AHotLoopIsRateLimitedPerObject) {
  AggregatingEventRecorder recorder(sink, options());
  const auto web = deployment("team", "web");
  for (int i = 0; i < 100; ++i)
    recorder.event(web, "Normal", "Sync", "attempt " + std::to_string(i));
  recorder.event(deployment("team", "api"), "Normal", "Sync", "other objects are not affected");
  recorder.flush();
  EXPECT_EQ(sink.all().size(), 26u);  // burst of 25 for web, 1 for api
  EXPECT_EQ(recorder.stats().droppedByRateLimit, 75u);
  clock.advance(300s);  // one more token per 5 minutes
  recorder.event(web, "Normal", "Sync", "later");
  recorder.event(web, "Normal", "Sync", "too soon");
  recorder.flush();
  EXPECT_EQ(sink.all().size(), 27u);
}

TEST_F(RecorderFixture, ClusterScopedObjectsAndExpiredEvents) {
  AggregatingEventRecorder recorder(sink, options());
  json::object cluster{{"apiVersion", "flotilla.io/v1alpha1"},
                       {"kind", "FederatedCluster"},
                       {"metadata", json::object{{"name", "member1"}}}};
  recorder.event(cluster, "Warning", "ClusterNotReachable", "dial tcp: connection refused");
  recorder.flush();
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(sink.all()[0].at("metadata").at("namespace"), "default");
  {
    std::lock_guard lock(sink.mutex);
    sink.events.clear();
  }  // the Event's TTL passed
  recorder.event(cluster, "Warning", "ClusterNotReachable", "dial tcp: connection refused");
  recorder.flush();
  ASSERT_EQ(sink.all().size(), 1u);
  EXPECT_EQ(sink.all()[0].at("count"), 1);
}

TEST_F(RecorderFixture, AnOverloadedServerGetsTheEventOnALaterTry) {
  auto o = options();
  o.retryDelay = 0ms;
  {
    AggregatingEventRecorder recorder(sink, o);
    sink.failures = {{api::reason::kInternalError, 500, "injected", {}},
                     {api::reason::kTooManyRequests, 429, "slow down", {}}};
    recorder.event(deployment("team", "web"), "Warning", "CreationFailed", "member2: conflict");
    recorder.flush();
    EXPECT_EQ(sink.all().size(), 1u);
    EXPECT_EQ(recorder.stats().created, 1u);
    // The answer lost after the server stored it: the retry finds its own event, not a second.
    sink.failures = {{"lost", 0, "connection closed", {}}};
    recorder.event(deployment("team", "db"), "Normal", "Scheduled", "member1: 1");
    recorder.flush();
    EXPECT_EQ(sink.all().size(), 2u);
    EXPECT_EQ(recorder.stats().created, 2u);
    // What the server refuses for good is not retried; what keeps failing is given up.
    sink.failures = {{api::reason::kForbidden, 403, "forbidden", {}},
                     {api::reason::kInternalError, 500, "1", {}}};
    recorder.event(deployment("team", "x"), "Normal", "A", "a");
    recorder.flush();
    EXPECT_EQ(sink.failures.size(), 1u);  // the 403 was the only try
    sink.failures.assign(4, {api::reason::kInternalError, 500, "down", {}});
    recorder.event(deployment("team", "y"), "Normal", "B", "b");
    recorder.flush();
    EXPECT_TRUE(sink.failures.empty());  // 1 try + 3 retries
    EXPECT_EQ(recorder.stats().failed, 2u);
    EXPECT_EQ(sink.all().size(), 2u);
  }
}

}  // namespace
}  // namespace flotilla::kube
