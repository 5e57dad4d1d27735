#include "api/crd_generator.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "api/yaml.h"

namespace flotilla::api {
namespace {

namespace json = boost::json;

json::value readYaml(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::stringstream buffer;
  buffer << file.rdbuf();
  auto docs = parseManifests(buffer.str());
  EXPECT_TRUE(docs.has_value()) << path;
  return docs && docs->size() == 1 ? docs->front().value : json::value();
}

const json::object& versionOf(const json::value& crd) {
  return crd.at("spec").at("versions").at(0).as_object();
}

// The checked-in CRDs are exactly what the C++ types generate: a field added to a struct without
// `make crds` (or a hand edit of crds/) fails here.
TEST(CrdGeneratorTest, CheckedInCrdsMatchTheTypes) {
  const std::filesystem::path dir = std::filesystem::path(FLOTILLA_SOURCE_DIR) / "crds";
  std::set<std::string> expected;
  for (const auto& crd : generateCrds()) {
    expected.insert(crd.fileName);
    const auto path = dir / crd.fileName;
    ASSERT_TRUE(std::filesystem::exists(path)) << path << " missing: run `make crds`";
    EXPECT_EQ(readYaml(path), crd.crd) << crd.fileName << " is stale: run `make crds`";
  }
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().filename() == "Kustomization") continue;
    EXPECT_TRUE(expected.count(entry.path().filename().string()))
        << entry.path() << " is not generated from any type";
  }
  // crds/Kustomization (config/crd's base) lists exactly the generated files.
  std::set<std::string> listed;
  const json::value kustomization = readYaml(dir / "Kustomization");
  for (const auto& r : kustomization.at("resources").as_array())
    listed.insert(std::string(r.as_string()));
  EXPECT_EQ(listed, expected) << "crds/Kustomization must list every CRD file";
  EXPECT_EQ(expected.size(), 12u);
}

// Structural schema rules of apiextensions.k8s.io/v1: every node has a type unless it is
// int-or-string or preserves unknown fields.
void expectStructural(const json::value& schema, const std::string& path) {
  const json::object& s = schema.as_object();
  const bool typed = s.contains("type") || s.contains("x-kubernetes-int-or-string") ||
                     s.contains("x-kubernetes-preserve-unknown-fields");
  EXPECT_TRUE(typed) << path << " has no type";
  if (const auto* props = s.if_contains("properties")) {
    for (const auto& kv : props->as_object())
      expectStructural(kv.value(), path + "." + std::string(kv.key()));
  }
  if (const auto* items = s.if_contains("items")) expectStructural(*items, path + "[]");
  if (const auto* extra = s.if_contains("additionalProperties"))
    expectStructural(*extra, path + "{}");
}

TEST(CrdGeneratorTest, SchemasAreStructuralWithStatusAndCategory) {
  for (const auto& crd : generateCrds()) {
    const json::object& version = versionOf(crd.crd);
    expectStructural(version.at("schema").at("openAPIV3Schema"), crd.fileName);
    EXPECT_TRUE(version.at("subresources").at("status").is_object()) << crd.fileName;
    EXPECT_EQ(crd.crd.at("spec").at("names").at("categories"), json::array{"flotilla"});
  }
}

const json::value* find(const std::vector<GeneratedCrd>& crds, std::string_view plural) {
  for (const auto& c : crds) {
    if (c.crd.at("spec").at("names").at("plural").as_string() == plural) return &c.crd;
  }
  return nullptr;
}

std::vector<std::string> columnNames(const json::value& crd) {
  std::vector<std::string> names;
  for (const auto& c : versionOf(crd).at("additionalPrinterColumns").as_array()) {
    names.emplace_back(c.at("name").as_string());
  }
  return names;
}

TEST(CrdGeneratorTest, NamesScopesAndPrinterColumns) {
  auto crds = generateCrds();
  struct Expect {
    const char* plural;
    const char* shortName;
    const char* scope;
    std::vector<std::string> columns;
  };
  const Expect expectations[] = {
      {"federatedclusters",
       "fc",
       "Cluster",
       {"Ready", "Provider", "Region", "Zone", "Version", "Age"}},
      {"propagationpolicies", "pp", "Namespaced", {"Priority", "Type", "Division", "Age"}},
      {"clusterpropagationpolicies", "cpp", "Cluster", {"Priority", "Type", "Division", "Age"}},
      {"federateddeployments", "fdeploy", "Namespaced", {"Ready", "Clusters", "Age"}},
      {"resourcebindings",
       "rb",
       "Namespaced",
       {"Scheduled", "FullyApplied", "Replicas", "Placement", "Age"}},
      {"schedulingprofiles", "sp", "Cluster", {"Age"}},
      {"federatedobjects", "fo", "Namespaced", {"Kind", "Healthy", "Clusters", "Progress", "Age"}},
      {"clusterfederatedobjects", "cfo", "Cluster", {"Kind", "Healthy", "Clusters", "Progress", "Age"}},
      {"clusterresourcebindings",
       "crb",
       "Cluster",
       {"Scheduled", "FullyApplied", "Replicas", "Placement", "Age"}},
  };
  for (const auto& e : expectations) {
    const json::value* crd = find(crds, e.plural);
    ASSERT_NE(crd, nullptr) << e.plural;
    EXPECT_EQ(crd->at("spec").at("names").at("shortNames"), json::array{e.shortName});
    EXPECT_EQ(crd->at("spec").at("scope"), e.scope);
    EXPECT_EQ(columnNames(*crd), e.columns) << e.plural;
  }
  const json::value* rb = find(crds, "resourcebindings");
  EXPECT_EQ(versionOf(*rb).at("additionalPrinterColumns").at(3).at("jsonPath"),
            ".status.placementSummary");
}

TEST(CrdGeneratorTest, EnumsMinimumsDefaultsAndOpaqueTemplate) {
  auto crds = generateCrds();
  const json::value& pp = *find(crds, "propagationpolicies");
  const json::value& placement = versionOf(pp)
                                     .at("schema")
                                     .at("openAPIV3Schema")
                                     .at("properties")
                                     .at("spec")
                                     .at("properties")
                                     .at("placement")
                                     .at("properties");
  const json::value& rs = placement.at("replicaScheduling").at("properties");
  EXPECT_EQ(rs.at("type").at("enum"), (json::array{"Duplicated", "Divided"}));
  EXPECT_FALSE(rs.at("type").as_object().contains("default"));  // the selected kind's
  EXPECT_EQ(rs.at("avoidDisruption").at("default"), true);
  EXPECT_EQ(rs.at("weights").at("items").at("properties").at("weight").at("minimum"), 0);
  const json::value& spread = placement.at("spreadConstraints").at("items").at("properties");
  EXPECT_EQ(spread.at("minGroups").at("minimum"), 1);
  EXPECT_EQ(spread.at("minGroups").at("default"), 1);
  EXPECT_EQ(spread.at("spreadByField").at("enum"),
            (json::array{"cluster", "region", "zone", "provider"}));
  EXPECT_EQ(placement.at("topologySpreadConstraints").at("items").at("required"),
            (json::array{"topologyKey", "maxSkew", "whenUnsatisfiable"}));

  const json::value& fd = *find(crds, "federateddeployments");
  const json::value& tmpl = versionOf(fd)
                                .at("schema")
                                .at("openAPIV3Schema")
                                .at("properties")
                                .at("spec")
                                .at("properties")
                                .at("template");
  EXPECT_EQ(tmpl.at("x-kubernetes-preserve-unknown-fields"), true);

  const json::value& fc = *find(crds, "federatedclusters");
  const json::value& alloc = versionOf(fc)
                                 .at("schema")
                                 .at("openAPIV3Schema")
                                 .at("properties")
                                 .at("status")
                                 .at("properties")
                                 .at("resources")
                                 .at("properties")
                                 .at("allocatable")
                                 .at("additionalProperties");
  EXPECT_EQ(alloc.at("x-kubernetes-int-or-string"), true);
}

}  // namespace
}  // namespace flotilla::api
