#include "api/unstructured.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace flotilla::api::unstructured {
namespace {
namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(Unstructured, FindReadsNestedValuesAndStopsAtMissingOrNonObjectSteps) {
  auto o = parse(R"({"spec":{"replicas":3,"name":"x","ratio":2.0,"half":2.5,"list":[1]},
                     "status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  EXPECT_EQ(intAt(o, {"spec", "replicas"}), 3);
  EXPECT_EQ(intAt(o, {"spec", "ratio"}), 2);
  EXPECT_EQ(intAt(o, {"spec", "half"}), std::nullopt);
  EXPECT_EQ(intAt(parse(R"({"n":1e300})"), {"n"}), std::nullopt);
  EXPECT_EQ(intAt(parse(R"({"n":-1e300})"), {"n"}), std::nullopt);
  EXPECT_EQ(intAt(o, {"spec", "name"}), std::nullopt);
  EXPECT_EQ(stringAt(o, {"spec", "name"}), "x");
  EXPECT_EQ(stringAt(o, {"spec", "replicas"}, "none"), "none");
  EXPECT_EQ(find(o, {"spec", "name", "deeper"}), nullptr);
  EXPECT_EQ(find(o, {"nothing", "here"}), nullptr);
  EXPECT_NE(findArray(o, {"spec", "list"}), nullptr);
  EXPECT_EQ(findObject(o, {"spec", "list"}), nullptr);
  ASSERT_NE(condition(o, "Ready"), nullptr);
  EXPECT_EQ(stringAt(*condition(o, "Ready"), {"status"}), "True");
  EXPECT_EQ(condition(o, "Available"), nullptr);
}

TEST(Unstructured, EnsureObjectCreatesAndEraseRemoves) {
  json::object o = parse(R"({"spec":{"x":1},"metadata":"not an object"})");
  ensureObject(o, {"spec", "template", "metadata"})["name"] = "n";
  EXPECT_EQ(stringAt(o, {"spec", "template", "metadata", "name"}), "n");
  ensureObject(o, {"metadata"})["name"] = "m";
  EXPECT_EQ(stringAt(o, {"metadata", "name"}), "m");
  EXPECT_TRUE(erase(o, {"spec", "x"}));
  EXPECT_FALSE(erase(o, {"spec", "x"}));
  EXPECT_FALSE(erase(o, {"nothing", "x"}));
  EXPECT_TRUE(o.at("spec").as_object().contains("template"));
}

TEST(Unstructured, GroupOfApiVersion) {
  EXPECT_EQ(groupOf("apps/v1"), "apps");
  EXPECT_EQ(groupOf("v1"), "");
  EXPECT_EQ(groupOf("apiextensions.k8s.io/v1"), "apiextensions.k8s.io");
}

}  // namespace
}  // namespace flotilla::api::unstructured
