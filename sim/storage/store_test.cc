#include "sim/storage/store.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>

#include "api/temp_dir.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;

json::object obj(const std::string& name, int spec = 0) {
  return json::object{{"metadata", json::object{{"name", name}}}, {"spec", spec}};
}

std::string rvOf(const json::object& o) {
  return std::string(o.at("metadata").at("resourceVersion").as_string());
}

struct Recorder : EventSink {
  std::mutex mutex;
  std::vector<std::pair<std::string, int64_t>> seen;
  void deliver(const EventPtr& e) override {
    std::lock_guard lock(mutex);
    seen.emplace_back(eventTypeName(e->type), e->resourceVersion);
  }
};

using api::testing::TempDir;

const ObjectKey kWeb{"apps/deployments", "default", "web"};

TEST(Store, CrudWithVersionsAndConflicts) {
  auto store = Store::open({}).value();
  auto created = store->create(kWeb, obj("web"));
  ASSERT_TRUE(created);
  EXPECT_EQ(rvOf(created->object), "1");
  EXPECT_EQ(store->create(kWeb, obj("web")).error().reason, api::reason::kAlreadyExists);
  auto updated = store->update(kWeb, obj("web", 2), 1);
  ASSERT_TRUE(updated);
  EXPECT_EQ(rvOf(updated->object), "2");
  auto stale = store->update(kWeb, obj("web", 3), 1);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().reason, api::reason::kConflict);
  EXPECT_EQ(stale.error().code, 409);
  EXPECT_EQ(store->get(kWeb)->at("spec"), 2);
  EXPECT_EQ(store->remove(kWeb, 1).error().reason, api::reason::kConflict);
  auto removed = store->remove(kWeb, std::nullopt);
  ASSERT_TRUE(removed);
  EXPECT_EQ(rvOf(removed->object), "3");  // the deletion has its own version
  EXPECT_EQ(store->get(kWeb).error().reason, api::reason::kNotFound);
  EXPECT_EQ(store->update(kWeb, obj("web"), std::nullopt).error().reason, api::reason::kNotFound);
}

TEST(Store, ListsByNamespaceInNameOrder) {
  auto store = Store::open({}).value();
  for (const auto& [ns, name] : std::vector<std::pair<std::string, std::string>>{
           {"b", "x"}, {"a", "z"}, {"a", "y"}, {"a-long", "w"}, {"c", "v"}}) {
    ASSERT_TRUE(store->create({"/configmaps", ns, name}, obj(name)));
  }
  auto names = [](const Store::Listed& l) {
    std::vector<std::string> out;
    for (const auto& o : l.items) out.emplace_back(o.at("metadata").at("name").as_string());
    return out;
  };
  EXPECT_EQ(names(store->list("/configmaps", "a")), (std::vector<std::string>{"y", "z"}));
  EXPECT_EQ(names(store->list("/configmaps", "")).size(), 5u);
  auto filtered = store->list(
      "/configmaps", "", [](const json::object& o) { return o.at("metadata").at("name") == "v"; });
  EXPECT_EQ(names(filtered), (std::vector<std::string>{"v"}));
  EXPECT_EQ(filtered.resourceVersion, 5);
  EXPECT_TRUE(store->list("/secrets", "").items.empty());

  // Pages: after a key, within a namespace, never past its end, counting what is left.
  auto pageNames = [](const Store::Page& p) {
    std::vector<std::string> out;
    for (const auto& o : p.items) out.emplace_back(o.at("metadata").at("name").as_string());
    return out;
  };
  auto first = store->listPage("/configmaps", "", {}, "", 2);
  // Key order: "a-long/w" < "a/y" ('-' sorts before '/').
  EXPECT_EQ(pageNames(first), (std::vector<std::string>{"w", "y"}));
  EXPECT_EQ(first.lastKey, "a/y");
  EXPECT_EQ(first.remaining, 3u);
  auto second = store->listPage("/configmaps", "", {}, first.lastKey, 2);
  EXPECT_EQ(pageNames(second), (std::vector<std::string>{"z", "x"}));
  auto last = store->listPage("/configmaps", "", {}, second.lastKey, 2);
  EXPECT_EQ(pageNames(last), (std::vector<std::string>{"v"}));
  EXPECT_EQ(last.remaining, 0u);
  EXPECT_EQ(pageNames(store->listPage("/configmaps", "a", {}, "a/y", 0)),
            (std::vector<std::string>{"z"}));
  EXPECT_TRUE(store->listPage("/configmaps", "a", {}, "b/x", 0).items.empty());  // past the end
  EXPECT_EQ(pageNames(store->listPage("/configmaps", "b", {}, "a/z", 0)),        // before it
            (std::vector<std::string>{"x"}));
}

TEST(Store, WatchReplaysTheWindowAndAnswersGoneBeforeIt) {
  StoreOptions options;
  options.eventWindow = 3;
  auto store = Store::open(options).value();
  for (int i = 0; i < 5; ++i)
    ASSERT_TRUE(store->create({"/configmaps", "d", std::to_string(i)}, obj("x")));
  auto recorder = std::make_shared<Recorder>();
  ASSERT_TRUE(store->subscribe(3, recorder));  // window holds 3,4,5: resume after 3 works
  EXPECT_EQ(recorder->seen,
            (std::vector<std::pair<std::string, int64_t>>{{"ADDED", 4}, {"ADDED", 5}}));
  auto gone = store->subscribe(1, std::make_shared<Recorder>());
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, 410);
  EXPECT_NE(gone.error().message.find("too old resource version: 1"), std::string::npos);
  ASSERT_TRUE(store->remove({"/configmaps", "d", "0"}, std::nullopt));
  EXPECT_EQ(recorder->seen.back(), (std::pair<std::string, int64_t>{"DELETED", 6}));
}

TEST(Store, AcknowledgedWritesSurviveRestartAndVersionsKeepIncreasing) {
  TempDir dir;
  {
    auto store = Store::open({dir.path()}).value();
    auto a = store->create(kWeb, obj("web", 1)).value();
    auto b = store->update(kWeb, obj("web", 2), std::nullopt).value();
    ASSERT_TRUE(store->create({"/namespaces", "", "team"}, obj("team")));
    ASSERT_TRUE(store->remove({"/namespaces", "", "team"}, std::nullopt));
    std::atomic<bool> durable{false};
    store->onDurable(b.commitSeq, [&] { durable = true; });
    store->flush();
    EXPECT_TRUE(durable);
    EXPECT_GE(store->fsyncs(), 1u);
  }
  auto reopened = Store::open({dir.path()}).value();
  EXPECT_EQ(reopened->get(kWeb)->at("spec"), 2);
  EXPECT_EQ(reopened->get({"/namespaces", "", "team"}).error().reason, api::reason::kNotFound);
  EXPECT_EQ(reopened->resourceVersion(), 4);
  auto next = reopened->update(kWeb, obj("web", 3), 2);
  ASSERT_TRUE(next);
  EXPECT_EQ(rvOf(next->object), "5");
  // After a restart the event window is empty: resuming from an older version is 410.
  EXPECT_EQ(reopened->subscribe(1, std::make_shared<Recorder>()).error().code, 410);
}

TEST(Store, TornTailIsDroppedButCorruptionIsAnError) {
  TempDir dir;
  {
    auto store = Store::open({dir.path()}).value();
    ASSERT_TRUE(store->create(kWeb, obj("web")));
    store->flush();
  }
  const auto log = dir.path() / "wal.log";
  {
    std::ofstream out(log, std::ios::app | std::ios::binary);
    out << "0badc0de {\"op\":\"put\",\"r\":";  // a crash in the middle of a record
  }
  {
    auto store = Store::open({dir.path()});
    ASSERT_TRUE(store) << store.error().message;
    EXPECT_TRUE((*store)->get(kWeb));
    ASSERT_TRUE((*store)->create({"/configmaps", "d", "after"}, obj("after")));
    (*store)->flush();
  }
  auto again = Store::open({dir.path()}).value();  // the torn record was cut off, not kept
  EXPECT_TRUE(again->get({"/configmaps", "d", "after"}));
  again.reset();
  std::string text;
  {
    std::ifstream in(log, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  text[12] = text[12] == 'x' ? 'y' : 'x';  // flip a byte inside the first record
  {
    std::ofstream out(log, std::ios::trunc | std::ios::binary);
    out << text;
  }
  auto corrupt = Store::open({dir.path()});
  ASSERT_FALSE(corrupt);
  EXPECT_NE(corrupt.error().message.find("is corrupt at byte 0"), std::string::npos)
      << corrupt.error().message;
}

TEST(Store, CompactionKeepsEverything) {
  TempDir dir;
  StoreOptions options{dir.path()};
  options.compactAfterBytes = 2000;
  {
    auto store = Store::open(options).value();
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(store->create({"/configmaps", "d", "cm" + std::to_string(i)}, obj("x", i)));
      store->flush();
    }
    for (int i = 0; i < 200; i += 2)
      ASSERT_TRUE(store->remove({"/configmaps", "d", "cm" + std::to_string(i)}, std::nullopt));
    store->flush();
  }
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "snapshot.json"));
  EXPECT_LT(std::filesystem::file_size(dir.path() / "wal.log"), 4000u);
  auto store = Store::open(options).value();
  EXPECT_EQ(store->objectCount(), 100u);
  EXPECT_EQ(store->get({"/configmaps", "d", "cm7"})->at("spec"), 7);
  EXPECT_EQ(store->resourceVersion(), 300);
}

TEST(Store, RemoveAllEmitsDeletes) {
  auto store = Store::open({}).value();
  auto recorder = std::make_shared<Recorder>();
  ASSERT_TRUE(store->subscribe(0, recorder));
  ASSERT_TRUE(store->create({"example.com/widgets", "a", "w1"}, obj("w1")));
  ASSERT_TRUE(store->create({"example.com/widgets", "b", "w2"}, obj("w2")));
  ASSERT_TRUE(store->removeAll("example.com/widgets"));
  EXPECT_EQ(store->objectCount(), 0u);
  EXPECT_EQ(recorder->seen.size(), 4u);
  EXPECT_EQ(recorder->seen.back().first, "DELETED");
}

}  // namespace
}  // namespace flotilla::sim
