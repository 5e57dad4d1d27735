// Every manifest under config/samples/ passes Flotilla's own validation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/object_validation.h"
#include "api/yaml.h"

namespace flotilla::api {
namespace {

TEST(SamplesTest, EverySampleValidates) {
  const auto root = std::filesystem::path(FLOTILLA_SOURCE_DIR) / "config" / "samples";
  std::set<std::string> kinds;
  int objects = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.path().extension() != ".yaml") continue;
    // config/samples/sim/ holds flotilla-sim topologies, not Kubernetes objects (sim/fleet_test.cc
    // checks them).
    if (entry.path().parent_path().filename() == "sim") continue;
    std::ifstream file(entry.path());
    std::stringstream text;
    text << file.rdbuf();
    auto docs = parseManifests(text.str());
    ASSERT_TRUE(docs.has_value()) << entry.path() << ": " << docs.error().message;
    for (const auto& doc : *docs) {
      ObjectVerdict verdict = validateObject(doc.value);
      std::string errors;
      for (const auto& e : verdict.errors) errors += "\n  " + e.str();
      EXPECT_TRUE(verdict.valid()) << entry.path() << " " << verdict.describe() << errors;
      kinds.insert(verdict.kind);
      ++objects;
    }
  }
  for (const char* kind :
       {"FederatedCluster", "PropagationPolicy", "ClusterPropagationPolicy", "FederatedDeployment",
        "ResourceBinding", "SchedulingProfile", "SchedulerExtender", "Deployment"}) {
    EXPECT_TRUE(kinds.count(kind)) << "no sample of " << kind;
  }
  EXPECT_GE(objects, 14);
}

TEST(SamplesTest, DemoScenarioHasThreeClustersInTwoRegionsAndThreeZones) {
  const auto path =
      std::filesystem::path(FLOTILLA_SOURCE_DIR) / "config/samples/demo/01-clusters.yaml";
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  auto docs = parseManifests(text.str());
  ASSERT_TRUE(docs.has_value());
  std::set<std::string> regions;
  std::set<std::string> zones;
  for (const auto& doc : *docs) {
    regions.insert(std::string(doc.value.at("spec").at("region").as_string()));
    zones.insert(std::string(doc.value.at("spec").at("zone").as_string()));
  }
  EXPECT_EQ(docs->size(), 3u);
  EXPECT_EQ(regions.size(), 2u);
  EXPECT_EQ(zones.size(), 3u);
}

}  // namespace
}  // namespace flotilla::api
