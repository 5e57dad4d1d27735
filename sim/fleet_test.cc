#include "sim/fleet.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
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

// A scratch directory, removed at the end of the test.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fleet-test-XXXXXX").string();
    path = ::mkdtemp(tmpl.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
  }
};

TEST(Fleet, StatusCountsOnlyTheClustersTheFleetStarted) {
  TempDir dir;
  dir.write("fleet.clusters", "host\nmember1\n");
  // The demo writes operator.kubeconfig next to the clusters' own; it is not a cluster.
  dir.write("operator.kubeconfig", "apiVersion: v1\n");
  dir.write("host.kubeconfig", "apiVersion: v1\n");
  EXPECT_EQ(fleetClusters(dir.path), (std::vector<std::string>{"host", "member1"}));
  std::ostringstream out;
  EXPECT_EQ(status(dir.path, out), 3);  // neither runs: both stopped
  EXPECT_NE(out.str().find("host\tpid -\tstopped"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("member1\tpid -\tstopped"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("operator"), std::string::npos) << out.str();
}

TEST(Fleet, WithoutTheFleetFileTheClustersAreThoseWithAPidFileAndACa) {
  TempDir dir;
  for (const char* name : {"member2", "host"}) {
    dir.write(std::string(name) + ".pid", "0");
    std::filesystem::create_directories(dir.path / "pki" / name);
  }
  // The demo's operator has a pid file and a kubeconfig but is no cluster.
  dir.write("operator.pid", "0");
  dir.write("operator.kubeconfig", "apiVersion: v1\n");
  EXPECT_EQ(fleetClusters(dir.path), (std::vector<std::string>{"host", "member2"}));
}

TEST(Fleet, OnlyTheFleetsOwnServeProcessesCountAndAreStopped) {
  TempDir dir;
  dir.write("fleet.clusters", "host\n");
  // A stale pid file naming a live process that is not this fleet's `serve` (this test).
  dir.write("host.pid", std::to_string(::getpid()));
  std::ostringstream listed;
  EXPECT_EQ(status(dir.path, listed), 3);
  EXPECT_NE(listed.str().find("host\tpid -\tstopped"), std::string::npos) << listed.str();
  std::ostringstream out;
  EXPECT_EQ(down(dir.path, out), 0);
  EXPECT_EQ(out.str(), "");  // nothing signalled: this test still runs to check it
  EXPECT_FALSE(std::filesystem::exists(dir.path / "host.pid"));
}

TEST(Fleet, AnEmptyDirectoryHoldsNoFleet) {
  TempDir dir;
  dir.write("operator.kubeconfig", "apiVersion: v1\n");
  std::ostringstream out;
  EXPECT_EQ(status(dir.path, out), 1);
  EXPECT_NE(out.str().find("no clusters"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace flotilla::sim
