#include "sim/server/schema.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::sim {
namespace {

namespace json = boost::json;

const json::object kSchema = json::parse(R"({
  "type":"object",
  "properties":{
    "spec":{"type":"object","required":["resource"],
      "properties":{
        "resource":{"type":"string","minLength":1},
        "replicas":{"type":"integer","minimum":0,"default":1},
        "mode":{"type":"string","enum":["Divided","Duplicated"],"default":"Divided"},
        "weights":{"type":"array","maxItems":2,"items":{"type":"object","properties":{"w":{"type":"integer","minimum":1}}}},
        "port":{"x-kubernetes-int-or-string":true},
        "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
        "labels":{"type":"object","additionalProperties":{"type":"string"}}}},
    "status":{"type":"object"}}})")
                                 .as_object();

TEST(Schema, DefaultsPrunesAndAccepts) {
  auto object = json::parse(R"({"apiVersion":"x/v1","kind":"K","metadata":{"name":"a"},
      "spec":{"resource":"r","extra":1,"port":"http","free":{"anything":[1]},"labels":{"a":"b"}},"junk":true})")
                    .as_object();
  auto outcome = applySchema(object, kSchema);
  EXPECT_TRUE(outcome.errors.empty()) << outcome.errors.front().str();
  EXPECT_EQ(outcome.unknown, (std::vector<std::string>{"spec.extra", "junk"}));
  EXPECT_EQ(object.at("spec").at("replicas"), 1);
  EXPECT_EQ(object.at("spec").at("mode"), "Divided");
  EXPECT_FALSE(object.at("spec").as_object().contains("extra"));
  EXPECT_EQ(object.at("spec").at("free").at("anything").at(0), 1);
  EXPECT_EQ(object.at("metadata").at("name"), "a");
}

TEST(Schema, ErrorsInKubeApiserverWords) {
  auto object = json::parse(R"({"spec":{"replicas":-1,"mode":"Spread","weights":[{"w":0},{},{}],
      "port":1.5,"labels":{"a":3}}})")
                    .as_object();
  auto outcome = applySchema(object, kSchema);
  std::vector<std::string> messages;
  for (const auto& e : outcome.errors) messages.push_back(e.str());
  EXPECT_EQ(
      messages,
      (std::vector<std::string>{
          "spec.labels.a: Invalid value: 3: spec.labels.a in body must be of type string",
          "spec.mode: Unsupported value: \"Spread\": supported values: \"Divided\", \"Duplicated\"",
          "spec.port: Invalid value: 1.5: spec.port in body must be of type int-or-string",
          "spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal "
          "to 0",
          "spec.resource: Required value", "spec.weights: Too many: 3: must have at most 2 items",
          "spec.weights[0].w: Invalid value: 0: spec.weights[0].w in body should be greater than "
          "or equal to 1"}));
}

}  // namespace
}  // namespace flotilla::sim
