#include "sim/server/table.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/time.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;

TEST(JsonPath, PrinterColumnSubset) {
  const json::value o = json::parse(R"({"metadata":{"name":"a"},"status":{"conditions":[
      {"type":"Scheduled","status":"False"},{"type":"Ready","status":"True"}]},
      "webhooks":[1,2,3],"spec":{"list":[{"x":5}]}})");
  EXPECT_EQ(*evalJsonPath(o, ".metadata.name"), "a");
  EXPECT_EQ(*evalJsonPath(o, ".status.conditions[?(@.type==\"Ready\")].status"), "True");
  EXPECT_EQ(*evalJsonPath(o, ".spec.list[0].x"), 5);
  EXPECT_EQ(*evalJsonPath(o, ".webhooks.length"), 3);
  EXPECT_FALSE(evalJsonPath(o, ".spec.missing"));
  EXPECT_FALSE(evalJsonPath(o, ".spec.list[3]"));
  EXPECT_FALSE(evalJsonPath(o, "spec"));
}

TEST(HumanDuration, MatchesKubectlAges) {
  using std::chrono::seconds;
  EXPECT_EQ(humanDuration(seconds(45)), "45s");
  EXPECT_EQ(humanDuration(seconds(150)), "2m30s");
  EXPECT_EQ(humanDuration(seconds(15 * 60)), "15m");
  EXPECT_EQ(humanDuration(seconds(5 * 3600 + 600)), "5h10m");
  EXPECT_EQ(humanDuration(seconds(20 * 3600)), "20h");
  EXPECT_EQ(humanDuration(seconds(3 * 86400)), "3d");
  EXPECT_EQ(humanDuration(seconds(400 * 86400)), "400d");
  EXPECT_EQ(humanDuration(seconds(800 * 86400)), "2y70d");
  EXPECT_EQ(humanDuration(seconds(3650 * 86400)), "10y");
}

TEST(Table, NameColumnsAndAge) {
  ResourceInfo r;
  r.kind = "Widget";
  r.columns = {{"Ready", "string", ".status.conditions[?(@.type==\"Ready\")].status", "", 0},
               {"Size", "integer", ".spec.size", "", 1}};
  const auto now = *api::parseRfc3339("2026-11-22T10:00:00Z");
  auto object = json::parse(R"({"metadata":{"name":"w1","creationTimestamp":"2026-11-22T09:55:00Z"},
      "spec":{"size":3},"status":{"conditions":[{"type":"Ready","status":"True"}]}})")
                    .as_object();
  auto table = makeTable(r, {object}, now, IncludeObject::kMetadata, true, "7");
  EXPECT_EQ(table.at("kind"), "Table");
  const auto& columns = table.at("columnDefinitions").as_array();
  ASSERT_EQ(columns.size(), 4u);
  EXPECT_EQ(columns[0].at("name"), "Name");
  EXPECT_EQ(columns[2].at("priority"), 1);
  EXPECT_EQ(columns[3].at("name"), "Age");
  const auto& cells = table.at("rows").at(0).at("cells").as_array();
  EXPECT_EQ(cells, json::parse(R"(["w1","True",3,"5m"])").as_array());
  EXPECT_EQ(table.at("rows").at(0).at("object").at("kind"), "PartialObjectMetadata");
  auto noHeaders = makeTable(r, {object}, now, IncludeObject::kNone, false, "7");
  EXPECT_TRUE(noHeaders.at("columnDefinitions").as_array().empty());
}

}  // namespace
}  // namespace flotilla::sim
