// The client runtime against a real API server process (flotilla-sim, or FLOTILLA_TEST_KUBECONFIG).
// Label: integration. Each test works in its own namespace and removes it.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/client/status_error.h"
#include "kube/events/event_recorder.h"
#include "kube/events/rest_event_sink.h"
#include "kube/integration/test_cluster.h"
#include "kube/net/test_server.h"

namespace flotilla::kube {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using net::testing::eventually;
using testing::TestCluster;

const ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};
const ResourceId kEvents{"", "v1", "events", true, "Event"};
const ResourceId kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false,
                       "CustomResourceDefinition"};

json::object configMap(const std::string& ns, const std::string& name, const std::string& value,
                       const std::string& app = "web") {
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata",
       json::object{{"name", name}, {"namespace", ns}, {"labels", json::object{{"app", app}}}}},
      {"data", json::object{{"value", value}}}};
}

using Integration = testing::NamespacedTest;

TEST_F(Integration, CrudConflictsPatchesApplyAndErrors) {
  auto created = io.run(client->create(kConfigMaps, ns, configMap(ns, "web", "1"), {}));
  ASSERT_TRUE(created) << created.error();
  const std::string firstVersion = resourceVersionOf(*created);
  auto again = io.run(client->create(kConfigMaps, ns, configMap(ns, "web", "1"), {}));
  ASSERT_FALSE(again);
  EXPECT_TRUE(isAlreadyExists(again.error())) << again.error();

  auto changed = *created;
  changed["data"].as_object()["value"] = "2";
  auto updated = io.run(client->update(kConfigMaps, changed, {}));
  ASSERT_TRUE(updated) << updated.error();
  EXPECT_NE(resourceVersionOf(*updated), firstVersion);
  auto stale = io.run(client->update(kConfigMaps, changed, {}));  // still carries the old version
  ASSERT_FALSE(stale);
  EXPECT_TRUE(isConflict(stale.error())) << stale.error();

  auto retried = io.run(client->updateWithRetry(kConfigMaps, ns, "web", [](json::object& o) {
    o["data"].as_object()["value"] = "3";
    return api::Result<bool>(true);
  }));
  ASSERT_TRUE(retried) << retried.error();
  EXPECT_EQ(retried->at("data").at("value"), "3");

  const WriteOptions plain;
  const std::string none;
  auto merged = io.run(client->patch(kConfigMaps, ns, "web", PatchType::kMerge,
                                     R"({"data":{"merged":"yes"}})", plain, none));
  ASSERT_TRUE(merged) << merged.error();
  auto jsonPatched =
      io.run(client->patch(kConfigMaps, ns, "web", PatchType::kJson,
                           R"([{"op":"replace","path":"/data/value","value":"4"}])", plain, none));
  ASSERT_TRUE(jsonPatched) << jsonPatched.error();
  auto strategic =
      io.run(client->patch(kConfigMaps, ns, "web", PatchType::kStrategic,
                           R"({"metadata":{"labels":{"tier":"front"}}})", plain, none));
  ASSERT_TRUE(strategic) << strategic.error();
  EXPECT_EQ(strategic->at("data").at("value"), "4");
  EXPECT_EQ(strategic->at("data").at("merged"), "yes");
  EXPECT_EQ(strategic->at("metadata").at("labels").at("tier"), "front");

  WriteOptions apply;
  apply.fieldManager = "flotilla-it";
  auto applied = io.run(client->apply(kConfigMaps, configMap(ns, "applied", "a"), apply));
  ASSERT_TRUE(applied) << applied.error();
  auto reapplied = io.run(client->apply(kConfigMaps, configMap(ns, "applied", "a"), apply));
  ASSERT_TRUE(reapplied) << reapplied.error();
  EXPECT_EQ(resourceVersionOf(*reapplied), resourceVersionOf(*applied));  // no change, no write

  auto invalid = io.run(client->create(kConfigMaps, ns, configMap(ns, "Not_A_Name", "x"), {}));
  ASSERT_FALSE(invalid);
  EXPECT_EQ(invalid.error().reason, api::reason::kInvalid) << invalid.error();
  EXPECT_EQ(invalid.error().code, 422);
  ASSERT_FALSE(invalid.error().causes.empty());
  EXPECT_EQ(invalid.error().causes[0].field, "metadata.name");

  DeleteOptions stalePrecondition;
  stalePrecondition.preconditionResourceVersion = firstVersion;
  auto refused = io.run(client->remove(kConfigMaps, ns, "web", stalePrecondition));
  ASSERT_FALSE(refused);
  EXPECT_TRUE(isConflict(refused.error())) << refused.error();
  ASSERT_TRUE(io.run(client->remove(kConfigMaps, ns, "web", {})));
  auto gone = io.run(client->get(kConfigMaps, ns, "web", none));
  ASSERT_FALSE(gone);
  EXPECT_TRUE(isNotFound(gone.error()));
}

TEST_F(Integration, ListPagesAndSelectors) {
  for (int i = 0; i < 7; ++i) {
    auto cm = configMap(ns, "cm-" + std::to_string(i), "v", i % 2 ? "odd" : "even");
    ASSERT_TRUE(io.run(client->create(kConfigMaps, ns, cm, {})));
  }
  ListOptions pages;
  pages.limit = 2;
  auto first = io.run(client->listPage(kConfigMaps, ns, pages));
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first->at("items").as_array().size(), 2u);
  EXPECT_FALSE(first->at("metadata").at("continue").as_string().empty());
  auto all = io.run(client->list(kConfigMaps, ns, pages));
  ASSERT_TRUE(all) << all.error();
  // The namespace may hold server-created ConfigMaps (kube-root-ca.crt on real clusters).
  size_t ours = 0;
  for (const auto& item : all->items) {
    ours += std::string(item.at("metadata").at("name").as_string()).rfind("cm-", 0) == 0;
  }
  EXPECT_EQ(ours, 7u);
  ListOptions odd;
  odd.labelSelector = "app=odd";
  auto selected = io.run(client->list(kConfigMaps, ns, odd));
  ASSERT_TRUE(selected) << selected.error();
  EXPECT_EQ(selected->items.size(), 3u);
  ListOptions byName;
  byName.fieldSelector = "metadata.name=cm-4";
  auto named = io.run(client->list(kConfigMaps, ns, byName));
  ASSERT_TRUE(named) << named.error();
  ASSERT_EQ(named->items.size(), 1u);
}

TEST_F(Integration, InformerFollowsCreatesUpdatesAndDeletes) {
  ASSERT_TRUE(io.run(client->create(kConfigMaps, ns, configMap(ns, "before", "0"), {})));
  InformerOptions options;
  options.ns = ns;
  options.labelSelector = "app=web";
  SharedInformer informer(*client, kConfigMaps, options);
  std::mutex mutex;
  std::vector<std::string> seen;
  informer.addHandler(EventHandler{[&](const ObjectPtr& o) {
                                     std::lock_guard lock(mutex);
                                     seen.push_back("add " + objectKey(*o));
                                   },
                                   [&](const ObjectPtr&, const ObjectPtr& o) {
                                     std::lock_guard lock(mutex);
                                     seen.push_back(
                                         "update " + objectKey(*o) + " " +
                                         std::string(o->at("data").at("value").as_string()));
                                   },
                                   [&](const ObjectPtr& o, bool) {
                                     std::lock_guard lock(mutex);
                                     seen.push_back("delete " + objectKey(*o));
                                   }});
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));
  ASSERT_TRUE(io.run(client->create(kConfigMaps, ns, configMap(ns, "after", "1"), {})));
  ASSERT_TRUE(io.run(client->create(kConfigMaps, ns, configMap(ns, "other", "1", "db"), {})));
  ASSERT_TRUE(io.run(client->updateWithRetry(kConfigMaps, ns, "after", [](json::object& o) {
    o["data"].as_object()["value"] = "2";
    return api::Result<bool>(true);
  })));
  ASSERT_TRUE(io.run(client->remove(kConfigMaps, ns, "before", {})));
  const std::vector<std::string> expected = {"add " + ns + "/before", "add " + ns + "/after",
                                             "update " + ns + "/after 2",
                                             "delete " + ns + "/before"};
  EXPECT_TRUE(eventually([&] {
    std::lock_guard lock(mutex);
    return seen == expected;
  }));
  std::lock_guard lock(mutex);
  EXPECT_EQ(seen, expected);
  EXPECT_EQ(informer.store().keys(), std::vector<std::string>{ns + "/after"});
  informer.stop();
}

TEST_F(Integration, InformerOfACrdCreatedAtRuntime) {
  const std::string group = TestCluster::uniqueName("it") + ".flotilla.io";
  const std::string crdName = "widgets." + group;
  auto crd =
      json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":")" +
                  crdName + R"("},
    "spec":{"group":")" +
                  group + R"(","scope":"Namespaced",
      "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
      "versions":[{"name":"v1","served":true,"storage":true,
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1}}}}}}}]}})")
          .as_object();
  ASSERT_TRUE(io.run(client->create(kCrds, "", crd, {})));
  const std::string none;
  ASSERT_TRUE(eventually(
      [&] {
        auto current = io.run(client->get(kCrds, "", crdName, none));
        if (!current) return false;
        // Just created, a real kube-apiserver may answer status.conditions: null (or no status
        // at all) for a moment: not established yet, not an error.
        const auto* status = current->if_contains("status");
        const auto* conditions =
            status && status->is_object() ? status->as_object().if_contains("conditions") : nullptr;
        if (!conditions || !conditions->is_array()) return false;
        for (const auto& c : conditions->as_array()) {
          const auto* o = c.if_object();
          if (o && o->if_contains("type") && *o->if_contains("type") == "Established" &&
              o->if_contains("status") && *o->if_contains("status") == "True")
            return true;
        }
        return false;
      },
      30s));
  // Discovery learns about the new group on a miss.
  ResourceId widgets;
  ASSERT_TRUE(eventually([&] {
    auto found = io.run(client->resourceFor(group + "/v1", "Widget"));
    if (found) widgets = *found;
    return found.has_value();
  }));
  EXPECT_EQ(widgets.resource, "widgets");
  EXPECT_TRUE(widgets.namespaced);

  InformerOptions options;
  options.ns = ns;
  SharedInformer informer(*client, widgets, options);
  informer.start(io.io().get_executor());
  ASSERT_TRUE(eventually([&] { return informer.hasSynced(); }));
  auto widget = json::parse(R"({"apiVersion":")" + group + R"(/v1","kind":"Widget",
      "metadata":{"name":"w1","namespace":")" +
                            ns + R"("},"spec":{"size":3}})")
                    .as_object();
  ASSERT_TRUE(io.run(client->create(widgets, ns, widget, {})));
  EXPECT_TRUE(eventually([&] { return informer.store().get(ns + "/w1") != nullptr; }));
  widget["spec"].as_object()["size"] = 0;
  widget["metadata"].as_object()["name"] = "w2";
  auto rejected = io.run(client->create(widgets, ns, widget, {}));
  ASSERT_FALSE(rejected);
  EXPECT_EQ(rejected.error().reason, api::reason::kInvalid) << rejected.error();
  informer.stop();
  ASSERT_TRUE(io.run(client->remove(kCrds, "", crdName, {})));
}

TEST_F(Integration, RepeatedEventsBecomeOneEventWithACount) {
  auto owner = io.run(client->create(kConfigMaps, ns, configMap(ns, "owner", "x"), {}));
  ASSERT_TRUE(owner) << owner.error();
  RestEventSink sink(*client, io.io().get_executor());
  {
    AggregatingEventRecorder recorder(sink);
    for (int i = 0; i < 3; ++i) recorder.event(*owner, "Warning", "Stuck", "still stuck");
    recorder.event(*owner, "Normal", "Fine", "recovered");
    recorder.flush();
    EXPECT_EQ(recorder.stats().created, 2u);
    EXPECT_EQ(recorder.stats().aggregated, 2u);
    EXPECT_EQ(recorder.stats().failed, 0u);
  }
  auto events = io.run(client->list(kEvents, ns, {}));
  ASSERT_TRUE(events) << events.error();
  ASSERT_EQ(events->items.size(), 2u);
  for (const auto& e : events->items) {
    EXPECT_EQ(e.at("involvedObject").at("name"), "owner");
    EXPECT_EQ(e.at("count"), e.at("reason") == "Stuck" ? 3 : 1);
  }
}

}  // namespace
}  // namespace flotilla::kube
