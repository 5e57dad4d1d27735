#include "sim/fleet.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace flotilla::sim {
namespace {

TEST(Topology, TheDefaultSampleParses) {
  std::ifstream in(std::string(FLOTILLA_SOURCE_DIR) + "/config/samples/sim/topology.yaml");
  std::stringstream text;
  text << in.rdbuf();
  auto t = parseTopology(text.str());
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->host, "host");
  ASSERT_EQ(t->members.size(), 3u);
  EXPECT_EQ(t->members[1].name, "member2");
  EXPECT_EQ(t->members[1].zone, "eu-west-1b");
  EXPECT_EQ(t->members[1].nodes.count, 3);
  EXPECT_EQ(t->members[1].nodes.cpu, "8");
  EXPECT_EQ(t->members[0].labels.at("env"), "demo");
}

TEST(Topology, ErrorsNameTheField) {
  auto message = [](const char* yaml) {
    auto t = parseTopology(yaml);
    return t ? std::string("ok") : t.error().message;
  };
  EXPECT_EQ(message("members: [{name: Bad_Name}]"),
            "topology: members[0].name: must be a DNS label");
  EXPECT_EQ(message("members: [{name: a}, {name: a}]"),
            "topology: members[1].name: \"a\" is used twice");
  EXPECT_EQ(message("members: [{name: a, nodes: {count: 0}}]"),
            "topology: members[0].nodes.count: must be 1-1000");
  EXPECT_EQ(message("members: [{name: a, nodes: {cpu: lots}}]"),
            "topology: members[0].nodes.cpu: \"lots\" is not a quantity");
  EXPECT_EQ(message("host: host"), "topology: members: a list is required");
  EXPECT_NE(message("members: [").find("yaml"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::sim
