#include "sim/server/managed_fields.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "sim/server/patch.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

const ManagedContext kAlice{"alice", "apps/v1", "2026-11-22T10:00:00Z", true};
const ManagedContext kBob{"bob", "apps/v1", "2026-11-22T10:05:00Z", true};

// What an apply does end to end: merge (strategic), then ownership.
api::Result<json::object> apply(const json::object& current, std::string_view config,
                                const ManagedContext& who, bool force = false) {
  const json::object c = parse(config);
  auto merged = applyStrategicMergePatch(json::value(current), json::value(c));
  return applyOwnership(current, std::move(merged->as_object()), c, force, who);
}

TEST(ManagedFields, FieldsV1WithAssociativeAndAtomicLists) {
  auto fields = fieldsOf(parse(R"({"apiVersion":"apps/v1","kind":"Deployment",
      "metadata":{"name":"web","labels":{"app":"web"},"resourceVersion":"4"},
      "spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"web","image":"nginx",
      "args":["a","b"]}]}}},"status":{"replicas":2}})"),
                         true);
  EXPECT_EQ(json::serialize(toFieldsV1(fields)),
            R"({"f:metadata":{"f:labels":{"f:app":{}}},"f:spec":{"f:replicas":{},"f:template":)"
            R"({"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:args":{},)"
            R"("f:image":{},"f:name":{}}}}}}})");
  EXPECT_EQ(fromFieldsV1(toFieldsV1(fields)), fields);
  EXPECT_EQ(describePath({"f:spec", "f:template", "f:spec", "f:containers", "k:{\"name\":\"web\"}",
                          "f:image"}),
            ".spec.template.spec.containers[name=\"web\"].image");
}

TEST(ManagedFields, ConflictsForceAndSharedOwnership) {
  auto created =
      apply({}, R"({"metadata":{"name":"web"},"spec":{"replicas":3,"paused":false}})", kAlice);
  ASSERT_TRUE(created);
  // Same value: bob co-owns, no conflict.
  auto shared = apply(*created, R"({"metadata":{"name":"web"},"spec":{"paused":false}})", kBob);
  ASSERT_TRUE(shared) << shared.error().message;
  // A different value for alice's field: a conflict naming her.
  auto clash = apply(*shared, R"({"metadata":{"name":"web"},"spec":{"replicas":5}})", kBob);
  ASSERT_FALSE(clash);
  EXPECT_EQ(clash.error().code, 409);
  EXPECT_EQ(clash.error().message,
            "Apply failed with 1 conflict: conflict with \"alice\" using apps/v1: .spec.replicas");
  ASSERT_EQ(clash.error().causes.size(), 1u);
  EXPECT_EQ(clash.error().causes[0].field, ".spec.replicas");
  // Forced: bob takes it over; alice no longer owns it.
  auto forced = apply(*shared, R"({"metadata":{"name":"web"},"spec":{"replicas":5}})", kBob, true);
  ASSERT_TRUE(forced);
  EXPECT_EQ(forced->at("spec").at("replicas"), 5);
  auto aliceAgain = apply(*forced, R"({"metadata":{"name":"web"},"spec":{"replicas":3}})", kAlice);
  ASSERT_FALSE(aliceAgain);
  EXPECT_NE(aliceAgain.error().message.find("conflict with \"bob\""), std::string::npos);
}

TEST(ManagedFields, OmittedFieldsAreRemovedUnlessOthersOwnThem) {
  auto first = apply({}, R"({"metadata":{"name":"web","labels":{"a":"1","b":"2"}},
      "spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx"},
      {"name":"sidecar","image":"envoy"}]}}}})",
                     kAlice);
  ASSERT_TRUE(first);
  auto bobLabel = apply(*first, R"({"metadata":{"name":"web","labels":{"b":"2"}}})", kBob);
  ASSERT_TRUE(bobLabel);
  auto second = apply(*bobLabel, R"({"metadata":{"name":"web","labels":{}},
      "spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx"}]}}}})",
                      kAlice);
  ASSERT_TRUE(second) << second.error().message;
  const auto& labels = second->at("metadata").at("labels").as_object();
  EXPECT_FALSE(labels.contains("a"));  // alice's alone: removed
  EXPECT_TRUE(labels.contains("b"));   // bob owns it too: kept
  const auto& containers = second->at("spec").at("template").at("spec").at("containers").as_array();
  ASSERT_EQ(containers.size(), 1u);  // the sidecar item went with alice's ownership of it
  EXPECT_EQ(containers[0].at("name"), "web");
}

TEST(ManagedFields, UpdatesTakeOverWhatTheyChange) {
  json::object created = parse(R"({"metadata":{"name":"web"},"spec":{"replicas":3}})");
  auto applied = apply({}, R"({"metadata":{"name":"web"},"spec":{"replicas":3}})", kAlice);
  ASSERT_TRUE(applied);
  json::object scaled = *applied;
  scaled["spec"].as_object()["replicas"] = 7;
  const ManagedContext patcher{"kubectl-patch", "apps/v1", "2026-11-22T11:00:00Z", true};
  recordUpdate(&*applied, scaled, patcher);
  const auto& entries = scaled.at("metadata").at("managedFields").as_array();
  ASSERT_EQ(entries.size(), 1u);  // alice lost her only field; the patcher owns it now
  EXPECT_EQ(entries[0].at("manager"), "kubectl-patch");
  EXPECT_EQ(entries[0].at("operation"), "Update");
  auto reapply = apply(scaled, R"({"metadata":{"name":"web"},"spec":{"replicas":3}})", kAlice);
  ASSERT_FALSE(reapply);
  EXPECT_NE(reapply.error().message.find("conflict with \"kubectl-patch\""), std::string::npos);
  // An update that changes nothing leaves managedFields exactly as they were.
  json::object same = scaled;
  recordUpdate(&scaled, same, kBob);
  EXPECT_EQ(same, scaled);
  recordUpdate(nullptr, created, kBob);
  EXPECT_EQ(created.at("metadata").at("managedFields").at(0).at("manager"), "bob");
  EXPECT_EQ(defaultManager("kubectl/v1.32.0 (linux/amd64) kubernetes/abc"), "kubectl");
}

}  // namespace
}  // namespace flotilla::sim
