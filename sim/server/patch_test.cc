#include "sim/server/patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::sim {
namespace {

namespace json = boost::json;

json::value j(const char* text) { return json::parse(text); }

TEST(MergePatch, Rfc7386Examples) {
  auto r =
      applyMergePatch(j(R"({"a":"b","c":{"d":"e","f":"g"}})"), j(R"({"a":"z","c":{"f":null}})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, j(R"({"a":"z","c":{"d":"e"}})"));
  EXPECT_EQ(*applyMergePatch(j(R"({"a":[1,2]})"), j(R"({"a":[3]})")), j(R"({"a":[3]})"));
  EXPECT_FALSE(applyMergePatch(j("{}"), j("[1]")));
}

TEST(JsonPatch, AddRemoveReplaceMoveCopyTest) {
  auto r = applyJsonPatch(j(R"({"spec":{"replicas":1,"list":[1,2]}})"), j(R"([
    {"op":"replace","path":"/spec/replicas","value":3},
    {"op":"add","path":"/spec/list/-","value":3},
    {"op":"add","path":"/spec/list/0","value":0},
    {"op":"remove","path":"/spec/list/1"},
    {"op":"copy","from":"/spec/replicas","path":"/spec/copied"},
    {"op":"move","from":"/spec/copied","path":"/moved"},
    {"op":"test","path":"/moved","value":3},
    {"op":"add","path":"/metadata","value":{"labels":{"a/b":"c"}}}
  ])"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(
      *r,
      j(R"({"spec":{"replicas":3,"list":[0,2,3]},"moved":3,"metadata":{"labels":{"a/b":"c"}}})"));
}

TEST(JsonPatch, ErrorsNameTheOperation) {
  auto missing = applyJsonPatch(j(R"({"a":1})"), j(R"([{"op":"replace","path":"/b","value":2}])"));
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "operation 0 (replace): path \"/b\" does not exist");
  auto test = applyJsonPatch(j(R"({"a":1})"), j(R"([{"op":"test","path":"/a","value":2}])"));
  ASSERT_FALSE(test);
  EXPECT_NE(test.error().message.find("differs"), std::string::npos);
  EXPECT_FALSE(applyJsonPatch(j("{}"), j(R"([{"op":"explode","path":"/a"}])")));
  EXPECT_FALSE(applyJsonPatch(j("{}"), j(R"({"op":"add"})")));
  // 2^64 is not index 0: an index that would wrap the count is no index at all.
  EXPECT_FALSE(applyJsonPatch(
      j(R"({"l":[1,2]})"), j(R"([{"op":"replace","path":"/l/18446744073709551616","value":9}])")));
  // "~1" is "/" in a pointer token.
  EXPECT_EQ(*applyJsonPatch(j(R"({"m":{"a/b":1}})"), j(R"([{"op":"remove","path":"/m/a~1b"}])")),
            j(R"({"m":{}})"));
}

TEST(StrategicMergePatch, MergesContainersByNameAndEnvByName) {
  auto deployment = j(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"app:1","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],
       "ports":[{"containerPort":80,"name":"http"}]},
      {"name":"sidecar","image":"proxy:1"}]}}}})");
  auto r = applyStrategicMergePatch(deployment, j(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"app:2","env":[{"name":"B","value":"3"},{"name":"C","value":"4"}],
       "ports":[{"containerPort":80,"protocol":"TCP"}]},
      {"name":"sidecar","$patch":"delete"}]}}}})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, j(R"({"spec":{"template":{"spec":{"containers":[
      {"name":"app","image":"app:2","env":[{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}],
       "ports":[{"containerPort":80,"name":"http","protocol":"TCP"}]}]}}}})"));
}

// kubectl apply of a changed caBundle sends only that field of the webhook entry: the rest of the
// entry (url, rules) must stay, as webhooks merge by name.
TEST(StrategicMergePatch, MergesWebhooksByName) {
  auto config = j(R"({"webhooks":[{"name":"a","clientConfig":{"url":"https://x/a","caBundle":"old"},
                                   "rules":[{"operations":["CREATE"]}]},
                                  {"name":"b","clientConfig":{"url":"https://x/b"}}]})");
  auto r = applyStrategicMergePatch(
      config, j(R"({"webhooks":[{"name":"a","clientConfig":{"caBundle":"new"}}]})"));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(*r, j(R"({"webhooks":[{"name":"a","clientConfig":{"url":"https://x/a","caBundle":"new"},
                                   "rules":[{"operations":["CREATE"]}]},
                                  {"name":"b","clientConfig":{"url":"https://x/b"}}]})"));
}

TEST(StrategicMergePatch, DirectivesAndPlainLists) {
  auto r = applyStrategicMergePatch(
      j(R"({"metadata":{"finalizers":["a"],"labels":{"x":"1","y":"2"}},"spec":{"args":["p","q"],"tolerations":[{"key":"k"}]}})"),
      j(R"({"metadata":{"finalizers":["b","a"],"labels":{"y":null}},
            "spec":{"$deleteFromPrimitiveList/args":["p"],"tolerations":[{"key":"z"}]}})"));
  ASSERT_TRUE(r);
  EXPECT_EQ(
      *r,
      j(R"({"metadata":{"finalizers":["a","b"],"labels":{"x":"1"}},"spec":{"args":["q"],"tolerations":[{"key":"z"}]}})"));
  auto replaced = applyStrategicMergePatch(j(R"({"spec":{"a":1,"b":2}})"),
                                           j(R"({"spec":{"$patch":"replace","c":3}})"));
  EXPECT_EQ(*replaced, j(R"({"spec":{"c":3}})"));
}

}  // namespace
}  // namespace flotilla::sim
