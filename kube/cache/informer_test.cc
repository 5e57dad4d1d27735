#include "kube/cache/informer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <random>
#include <set>
#include <stdexcept>

#include "api/json_arena.h"
#include "kube/client/delayer_recorder.h"
#include "kube/client/scripted_server.h"

namespace flotilla::kube {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using net::testing::eventually;
using net::testing::IoThread;

const ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};

// The server's truth: objects with versions, an event log with a compaction point (older versions
// get 410), and a watch that sends what happened since the client's version in randomly split
// chunks and then ends, sometimes in the middle of an event, to force every reconnect path.
class TruthServer {
 public:
  explicit TruthServer(uint32_t seed) : rng_(seed) {}

  void put(const std::string& name, const std::string& value) {
    std::lock_guard lock(mutex_);
    const bool exists = objects_.count(name) > 0;
    json::object o{{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata", json::object{{"name", name},
                                             {"namespace", "d"},
                                             {"resourceVersion", std::to_string(++rv_)}}},
                   {"data", json::object{{"v", value}}}};
    objects_[name] = o;
    log_.push_back({rv_, exists ? "MODIFIED" : "ADDED", o});
  }
  void remove(const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(name);
    if (it == objects_.end()) return;
    json::object o = it->second;
    o["metadata"].as_object()["resourceVersion"] = std::to_string(++rv_);
    objects_.erase(it);
    log_.push_back({rv_, "DELETED", o});
  }
  // Forgets the event log: watches from any version up to now get 410 and must relist, and the
  // relist's diff must produce what the lost events would have said.
  void compact(bool asErrorEvent) {
    std::lock_guard lock(mutex_);
    compactedThrough_ = rv_;
    goneAsEvent_ = asErrorEvent;
  }
  std::map<std::string, std::string> truth() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::string> out;
    for (const auto& [name, o] : objects_)
      out[name] = std::string(o.at("metadata").at("resourceVersion").as_string());
    return out;
  }

  std::atomic<bool> cutStreams{true};  // some watch streams end mid-event (a failure)

  testing::Reply answer(const net::HttpRequest& r) {
    std::lock_guard lock(mutex_);
    const std::string query(r.query());
    if (query.find("watch=true") == std::string::npos) {
      json::array items;
      for (const auto& [name, o] : objects_) items.push_back(o);
      json::object list{{"kind", "ConfigMapList"},
                        {"metadata", json::object{{"resourceVersion", std::to_string(rv_)}}},
                        {"items", std::move(items)}};
      return testing::json(200, json::serialize(list));
    }
    const auto at = query.find("resourceVersion=");
    const int64_t from = std::stoll(query.substr(at + 16));
    if (from <= compactedThrough_) {
      const std::string status = testing::status(410, "Expired", "too old resource version");
      if (goneAsEvent_) return testing::stream({R"({"type":"ERROR","object":)" + status + "}\n"});
      return testing::json(410, status);
    }
    std::string bytes;
    for (const auto& e : log_) {
      if (e.rv <= from) continue;
      bytes += json::serialize(json::object{{"type", e.type}, {"object", e.object}}) + "\n";
    }
    bytes += R"({"type":"BOOKMARK","object":{"kind":"ConfigMap","metadata":{"resourceVersion":")" +
             std::to_string(rv_) + "\"}}}\n";
    if (cutStreams && rng_() % 4 == 0 && bytes.size() > 10)
      bytes.resize(bytes.size() - 5);  // cut mid-event
    std::vector<std::string> chunks;
    for (size_t i = 0; i < bytes.size();) {
      const size_t n = 1 + rng_() % 90;
      chunks.push_back(bytes.substr(i, n));
      i += n;
    }
    return testing::stream(std::move(chunks));
  }

 private:
  struct Event {
    int64_t rv;
    std::string type;
    json::object object;
  };
  mutable std::mutex mutex_;
  std::minstd_rand rng_;
  int64_t rv_ = 100;
  int64_t compactedThrough_ = 0;
  bool goneAsEvent_ = false;
  std::map<std::string, json::object> objects_;
  std::vector<Event> log_;
};

// What the handlers were told, checked for impossible sequences as they arrive.
struct HandlerView {
  std::mutex mutex;
  std::map<std::string, std::string> objects;  // name → resourceVersion
  std::vector<std::string> violations;
  int adds = 0, updates = 0, deletes = 0, inferredDeletes = 0;

  EventHandler handler() {
    auto name = [](const ObjectPtr& o) {
      return std::string(o->at("metadata").at("name").as_string());
    };
    return EventHandler{
        [this, name](const ObjectPtr& o) {
          std::lock_guard lock(mutex);
          ++adds;
          if (!objects.emplace(name(o), resourceVersionOf(*o)).second)
            violations.push_back("duplicate add " + name(o));
        },
        [this, name](const ObjectPtr& before, const ObjectPtr& after) {
          std::lock_guard lock(mutex);
          ++updates;
          auto it = objects.find(name(after));
          if (it == objects.end())
            violations.push_back("update of unknown " + name(after));
          else if (it->second != resourceVersionOf(*before))
            violations.push_back("update from a version we never had " + name(after));
          else if (resourceVersionOf(*before) == resourceVersionOf(*after))
            violations.push_back("duplicate update " + name(after));
          objects[name(after)] = resourceVersionOf(*after);
        },
        [this, name](const ObjectPtr& last, bool inferred) {
          std::lock_guard lock(mutex);
          ++deletes;
          inferredDeletes += inferred;
          if (objects.erase(name(last)) == 0)
            violations.push_back("delete of unknown " + name(last));
        }};
  }
  std::map<std::string, std::string> snapshot() {
    std::lock_guard lock(mutex);
    return objects;
  }
};

// A TruthServer behind a scripted HTTP server, and a client of it whose backoffs are recorded,
// not slept (every informer test's setting).
struct Served {
  explicit Served(uint32_t seed)
      : truth(seed),
        server(io, [this](const net::HttpRequest& r) { return truth.answer(r); }),
        delayer(std::make_shared<testing::RecordingDelayer>()),
        client(makeClient()) {}
  std::unique_ptr<RestClient> makeClient() {
    RestConfig config;
    config.server = server.url();
    RestClientOptions clientOptions;
    clientOptions.delayer = delayer;
    return RestClient::create(io.io().get_executor(), config, clientOptions).value();
  }
  auto parts() { return std::tie(io, truth, delayer, client); }

  IoThread io;
  TruthServer truth;
  testing::ScriptedServer server;
  std::shared_ptr<testing::RecordingDelayer> delayer;
  std::unique_ptr<RestClient> client;
};

class InformerTruth : public ::testing::TestWithParam<uint32_t> {};

TEST_P(InformerTruth, HandlersMatchTheServerAcrossDropsAndRelists) {
  Served served(GetParam());
  auto [io, truth, delayer, client] = served.parts();

  for (int i = 0; i < 20; ++i) truth.put("cm-" + std::to_string(i), "v0");
  InformerOptions options;
  options.delayer = delayer;  // backoffs are recorded, not slept
  SharedInformer informer(*client, kConfigMaps, options);
  HandlerView view;
  informer.addHandler(view.handler());
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));

  std::minstd_rand rng(GetParam());
  for (int round = 0; round < 6; ++round) {
    for (int i = 0; i < 30; ++i) {
      const std::string name = "cm-" + std::to_string(rng() % 40);
      if (rng() % 3 == 0)
        truth.remove(name);
      else
        truth.put(name, "r" + std::to_string(round));
    }
    if (round % 2 == 1) {
      truth.compact(round % 4 == 1);
      // Changes after the compaction (the relist's version is newer than the compaction point).
      truth.remove("cm-" + std::to_string(rng() % 40));
      truth.put("silent-" + std::to_string(round), "s");
    }
    ASSERT_TRUE(eventually([&] { return view.snapshot() == truth.truth(); }))
        << "round " << round << ": " << view.snapshot().size() << " vs " << truth.truth().size();
  }
  informer.stop();
  std::lock_guard lock(view.mutex);
  EXPECT_TRUE(view.violations.empty()) << view.violations.front();
  EXPECT_GE(informer.stats().relistsAfterGone, 3u);
  EXPECT_GT(view.inferredDeletes + view.adds, 0);
  EXPECT_EQ(informer.store().size(), truth.truth().size());
}

INSTANTIATE_TEST_SUITE_P(Seeds, InformerTruth, ::testing::Values(1u, 7u, 42u));

// docs/security.md M4: a 410 that comes soon after the last list backs off; after a quiet while
// (quietRelist) a 410 relists at once, as after an etcd compaction.
TEST(Informer, GoneSoonAfterAListBacksOffAndAfterAQuietWhileDoesNot) {
  for (const bool quiet : {false, true}) {
    Served served(5);
    auto [io, truth, delayer, client] = served.parts();
    truth.cutStreams = false;  // every wait is then a 410's
    truth.put("cm-0", "v0");
    InformerOptions options;
    options.delayer = delayer;
    if (quiet) options.quietRelist = std::chrono::milliseconds(0);
    SharedInformer informer(*client, kConfigMaps, options);
    HandlerView view;
    informer.addHandler(view.handler());
    informer.start(io.io().get_executor());
    ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));
    for (int round = 1; round <= 3; ++round) {
      truth.put("cm-" + std::to_string(round), "v");
      truth.compact(false);
      truth.put("after-" + std::to_string(round), "v");
      ASSERT_TRUE(eventually([&] { return view.snapshot() == truth.truth(); })) << round;
      ASSERT_TRUE(eventually([&] { return informer.stats().relistsAfterGone >= uint64_t(round); }));
    }
    informer.stop();
    std::chrono::nanoseconds waited{0};
    for (auto wait : delayer->waits()) waited += wait;
    if (quiet) {
      EXPECT_EQ(waited.count(), 0) << "a 410 after a quiet while relists at once";
    } else {  // 200 ms, 400 ms, 800 ms: this server also ends every watch, which does not
              // reset the doubling within quietRelist of the last list
      EXPECT_GE(waited, 7 * options.initialBackoff);
    }
  }
}

// A handler that throws is a bug, but it must not end the informer: the other handlers and the
// cache keep following the server.
TEST(Informer, AThrowingHandlerDoesNotStopTheCache) {
  Served served(3);
  auto [io, truth, delayer, client] = served.parts();
  truth.put("a", "v0");
  InformerOptions options;
  options.delayer = delayer;
  SharedInformer informer(*client, kConfigMaps, options);
  std::atomic<int> thrown{0};
  EventHandler bad;
  bad.onAdd = [&](const ObjectPtr&) {
    ++thrown;
    throw std::runtime_error("handler bug");
  };
  bad.onUpdate = [&](const ObjectPtr&, const ObjectPtr&) {
    ++thrown;
    throw std::runtime_error("handler bug");
  };
  informer.addHandler(bad);
  HandlerView view;
  informer.addHandler(view.handler());
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));
  truth.put("b", "v1");
  truth.put("a", "v2");
  ASSERT_TRUE(eventually([&] { return view.snapshot() == truth.truth(); }));
  EXPECT_GE(thrown.load(), 3);
  EXPECT_EQ(informer.store().size(), 2u);
  informer.stop();
}

// The transform shapes what is cached, from the list and from watch events alike.
TEST(Informer, TransformAppliesToListedAndWatchedObjects) {
  Served served(5);
  auto [io, truth, delayer, client] = served.parts();
  truth.put("listed", "big");
  InformerOptions options;
  options.delayer = delayer;
  options.transform = [](json::object& o) { o.erase("data"); };
  SharedInformer informer(*client, kConfigMaps, options);
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));
  truth.put("watched", "big");
  ASSERT_TRUE(eventually([&] { return informer.store().size() == 2; }));
  for (const auto& o : informer.store().list()) {
    EXPECT_EQ(o->if_contains("data"), nullptr) << json::serialize(*o);
    EXPECT_NE(o->at("metadata").as_object().if_contains("resourceVersion"), nullptr);
  }
  informer.stop();
}

// Each cached object is in a sealed arena of its own (api/json_arena.h), listed or watched,
// trimmed or not, so that one object's memory goes with it and threads may copy it.
TEST(Informer, CachedObjectsLiveInSealedArenasOfTheirOwn) {
  for (bool trimmed : {false, true}) {
    Served served(5);
    auto [io, truth, delayer, client] = served.parts();
    truth.put("listed", "v");
    InformerOptions options;
    options.delayer = delayer;
    if (trimmed) options.transform = [](json::object& o) { o.erase("data"); };
    SharedInformer informer(*client, kConfigMaps, options);
    informer.start(io.io().get_executor());
    ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));
    truth.put("watched", "v");
    ASSERT_TRUE(eventually([&] { return informer.store().size() == 2; }));
    std::set<const api::JsonArena*> arenas;
    for (const auto& o : informer.store().list()) {
      const auto* arena = api::jsonArenaOf(o->storage());
      ASSERT_NE(arena, nullptr) << json::serialize(*o);
      EXPECT_TRUE(arena->sealed());
      EXPECT_LE(arena->used(), arena->reserved());
      EXPECT_FALSE(arena->slack()) << arena->used() << " of " << arena->reserved();
      arenas.insert(arena);
    }
    EXPECT_EQ(arenas.size(), 2u);
    informer.stop();
  }
}

// docs/security.md M4: a source cannot make the cache hold more than maxObjects: a list over it
// fails (the cache never syncs), and a watch that grows past it stops and relists.
TEST(Informer, MaxObjectsBoundsTheCache) {
  Served served(5);
  auto [io, truth, delayer, client] = served.parts();
  for (int i = 0; i < 4; ++i) truth.put("c" + std::to_string(i), "v");
  InformerOptions options;
  options.delayer = delayer;
  options.pageSize = 2;
  options.maxObjects = 3;
  SharedInformer tooMany(*client, kConfigMaps, options);
  tooMany.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return tooMany.stats().failures.load() >= 1; }));
  EXPECT_FALSE(tooMany.hasSynced());
  EXPECT_EQ(tooMany.store().size(), 0u);
  tooMany.stop();

  truth.remove("c3");
  truth.remove("c2");
  SharedInformer growing(*client, kConfigMaps, options);
  growing.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return growing.hasSynced(); }));
  const uint64_t failuresBefore = growing.stats().failures.load();
  truth.put("c2", "v");
  truth.put("c3", "v");
  truth.put("c4", "v");
  // A watch that ends for another reason is a failure too: wait until the informer has seen the
  // three new objects' events (and failed), then the cache holds the limit and no more.
  const uint64_t eventsBefore = growing.stats().events.load();
  ASSERT_TRUE(eventually([&] {
    return growing.stats().failures.load() > failuresBefore &&
           growing.stats().events.load() >= eventsBefore + 3;
  }));
  EXPECT_EQ(growing.store().size(), 3u);  // the objects past the limit are not cached
  growing.stop();
}

TEST(Indexer, IndexesFollowUpdatesAndDeletes) {
  Indexer indexer;
  indexer.addIndex("labels", labelIndexValues);
  auto make = [](const char* ns, const char* name, const char* rv, const char* app) {
    return std::make_shared<json::object>(
        json::object{{"metadata", json::object{{"namespace", ns},
                                               {"name", name},
                                               {"resourceVersion", rv},
                                               {"labels", json::object{{"app", app}}}}}});
  };
  ASSERT_EQ(indexer.upsert(make("a", "x", "1", "web"))->type, Change::Type::kAdded);
  ASSERT_EQ(indexer.upsert(make("b", "y", "2", "web"))->type, Change::Type::kAdded);
  EXPECT_FALSE(indexer.upsert(make("a", "x", "1", "web")));  // same version: a duplicate
  EXPECT_EQ(indexer.byIndex("labels", "app=web").size(), 2u);
  EXPECT_EQ(indexer.countInIndex("labels", "app=web"), 2u);
  EXPECT_EQ(indexer.countInIndex("labels", "app=none"), 0u);
  EXPECT_EQ(indexer.countInIndex("no-such-index", "app=web"), 0u);
  ASSERT_EQ(indexer.upsert(make("a", "x", "3", "api"))->type, Change::Type::kUpdated);
  EXPECT_EQ(indexer.byIndex("labels", "app=web").size(), 1u);
  EXPECT_EQ(indexer.byIndex("labels", "app=api").size(), 1u);
  EXPECT_EQ(indexer.byIndex(kNamespaceIndex, "b").size(), 1u);
  EXPECT_EQ(indexer.get("a/x")->at("metadata").at("resourceVersion"), "3");
  auto changes = indexer.replace({make("b", "y", "2", "web"), make("c", "z", "4", "db")});
  ASSERT_EQ(changes.size(), 2u);  // z added, x deleted (final state unknown), y unchanged
  EXPECT_EQ(changes[0].type, Change::Type::kAdded);
  EXPECT_EQ(changes[1].type, Change::Type::kDeleted);
  EXPECT_TRUE(changes[1].finalStateUnknown);
  EXPECT_TRUE(indexer.byIndex("labels", "app=api").empty());
  EXPECT_EQ(indexer.countInIndex("labels", "app=web"), 1u);
  EXPECT_EQ(indexer.keys(), (std::vector<std::string>{"b/y", "c/z"}));
}

// An update keeps the values it still has, drops the ones it lost and adds the new ones, for an
// index of several values per object.
TEST(Indexer, AnUpdateMovesOnlyTheValuesThatChanged) {
  Indexer indexer;
  indexer.addIndex("clusters", [](const json::object& o) {
    std::vector<std::string> out;
    for (const auto& c : o.at("clusters").as_array()) out.emplace_back(c.as_string());
    return out;
  });
  auto make = [](const char* name, const char* rv, json::array clusters) {
    return std::make_shared<json::object>(json::object{
        {"metadata", json::object{{"namespace", "a"}, {"name", name}, {"resourceVersion", rv}}},
        {"clusters", std::move(clusters)}});
  };
  ASSERT_TRUE(indexer.upsert(make("x", "1", {"m1", "m2"})));
  ASSERT_TRUE(indexer.upsert(make("y", "2", {"m2"})));
  ASSERT_TRUE(indexer.upsert(make("x", "3", {"m2", "m3", "m3"})));
  EXPECT_EQ(indexer.countInIndex("clusters", "m1"), 0u);
  EXPECT_EQ(indexer.countInIndex("clusters", "m2"), 2u);
  EXPECT_EQ(indexer.countInIndex("clusters", "m3"), 1u);
  ASSERT_TRUE(indexer.upsert(make("x", "4", {"m3"})));  // (an unchanged value's key stays)
  ASSERT_TRUE(indexer.upsert(make("x", "5", {"m3"})));
  EXPECT_EQ(indexer.countInIndex("clusters", "m2"), 1u);
  EXPECT_EQ(indexer.byIndex("clusters", "m3").at(0)->at("metadata").at("resourceVersion"), "5");
  ASSERT_TRUE(indexer.remove(*make("x", "6", {})));
  EXPECT_EQ(indexer.countInIndex("clusters", "m3"), 0u);
  EXPECT_EQ(indexer.countInIndex(kNamespaceIndex, "a"), 1u);
}

// An index function that throws on an object it did not expect leaves that object stored (under
// no value of that index) and every other index consistent.
TEST(Indexer, AThrowingIndexFunctionLeavesTheStoreConsistent) {
  Indexer indexer;
  indexer.addIndex("app", [](const json::object& o) {
    return std::vector<std::string>{std::string(
        o.at("metadata").at("labels").at("app").as_string())};  // throws without the label
  });
  json::object good{{"metadata", json::object{{"namespace", "a"},
                                              {"name", "x"},
                                              {"resourceVersion", "1"},
                                              {"labels", json::object{{"app", "web"}}}}}};
  json::object bad{
      {"metadata", json::object{{"namespace", "a"}, {"name", "y"}, {"resourceVersion", "2"}}}};
  ASSERT_TRUE(indexer.upsert(std::make_shared<json::object>(good)));
  ASSERT_TRUE(indexer.upsert(std::make_shared<json::object>(bad)));
  EXPECT_EQ(indexer.size(), 2u);
  EXPECT_EQ(indexer.byIndex("app", "web").size(), 1u);
  EXPECT_EQ(indexer.byIndex(kNamespaceIndex, "a").size(), 2u);
  ASSERT_TRUE(indexer.remove(bad));
  ASSERT_TRUE(indexer.remove(good));
  EXPECT_EQ(indexer.size(), 0u);
  EXPECT_TRUE(indexer.byIndex(kNamespaceIndex, "a").empty());
  EXPECT_TRUE(indexer.byIndex("app", "web").empty());
}

// stop() ends a backoff wait at once: removing a member cluster joins its informers, and a
// member that failed for a while waits up to maxBackoff between lists (30 s by default).
// A cache is trusted only while it follows the server: synced with a watch open. A role with
// list but not watch (a member joined before the verb was granted) syncs a cache that would
// otherwise freeze at its list.
TEST(Informer, WatchingOnlyWhileAWatchIsOpen) {
  Served served(5);
  auto [io, truth, delayer, client] = served.parts();
  InformerOptions options;
  options.delayer = delayer;
  SharedInformer informer(*client, kConfigMaps, options);
  EXPECT_FALSE(informer.watching());
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.watching(); }));
  informer.stop();
}

TEST(Informer, ARefusedWatchLeavesASyncedCacheThatIsNotWatching) {
  IoThread io;
  testing::ScriptedServer server(io, [&](const net::HttpRequest& request) {
    if (request.target.find("watch=") != std::string::npos)
      return testing::json(403, testing::status(403, "Forbidden", "cannot watch configmaps"));
    return testing::json(
        200, R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"5"},)"
             R"("items":[]})");
  });
  RestConfig config;
  config.server = server.url();
  RestClientOptions clientOptions;
  clientOptions.maxRetries = 0;
  auto client = RestClient::create(io.io().get_executor(), config, clientOptions).value();
  SharedInformer informer(*client, kConfigMaps, InformerOptions{});
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.hasSynced() && !informer.lastError().empty(); }));
  EXPECT_FALSE(informer.watching());
  informer.stop();
  informer.join();
}

TEST(Informer, StopEndsABackoffWithoutWaitingItOut) {
  IoThread io;
  std::atomic<int> lists{0};
  testing::ScriptedServer server(io, [&](const net::HttpRequest&) {
    ++lists;
    return testing::json(500, testing::status(500, "InternalError", "down"));
  });
  RestConfig config;
  config.server = server.url();
  RestClientOptions clientOptions;
  clientOptions.maxRetries = 0;
  auto client = RestClient::create(io.io().get_executor(), config, clientOptions).value();
  InformerOptions options;  // the real (timer) delayer
  options.initialBackoff = std::chrono::seconds(60);
  options.maxBackoff = std::chrono::seconds(60);
  SharedInformer informer(*client, kConfigMaps, options);
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return !informer.lastError().empty(); }));
  const auto start = std::chrono::steady_clock::now();
  informer.stop();
  informer.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_EQ(lists.load(), 1);
}

}  // namespace
}  // namespace flotilla::kube
