#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

#include "cli/commands.h"

namespace flotilla::cli {
namespace {

namespace json = boost::json;

struct PlanResult {
  int code;
  json::value output;
  std::string err;
};

PlanResult plan(const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out;
  std::ostringstream err;
  int code = runPlan({"-f", "-"}, in, out, err);
  json::value parsed;
  if (code == 0) parsed = json::parse(out.str());
  return {code, parsed, err.str()};
}

// Seed 003's tables through the CLI, with the workload key whose FNV-1 tie order puts member2
// first ("default/web").
TEST(PlanCommandTest, SeedTableOne) {
  PlanResult r = plan(R"({"totalReplicas": 6, "clusters": ["member1", "member2", "member3"],
      "currentReplicas": {"member1": 2, "member2": 2, "member3": 2},
      "estimatedCapacity": {"member1": 1}, "key": "default/web"})");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.output, json::parse(R"({"plan": {"member1": 1, "member2": 3, "member3": 2},
      "overflow": {}, "placement": {"member1": 1, "member2": 3, "member3": 2}})"));
}

TEST(PlanCommandTest, SeedTableTwoWithAndWithoutKeeping) {
  const std::string base = R"("totalReplicas": 6, "clusters": ["member1", "member2", "member3"],
      "currentReplicas": {"member1": 1, "member2": 3, "member3": 2},
      "estimatedCapacity": {"member1": 1, "member2": 1, "member3": 1}, "key": "default/web")";
  PlanResult dropped = plan("{" + base + "}");
  ASSERT_EQ(dropped.code, 0) << dropped.err;
  EXPECT_EQ(dropped.output.at("placement"),
            json::parse(R"({"member1": 1, "member2": 1, "member3": 1})"));
  EXPECT_EQ(dropped.output.at("overflow"),
            json::parse(R"({"member1": 1, "member2": 1, "member3": 1})"));
  PlanResult kept = plan("{" + base + R"(, "keepUnschedulableReplicas": true})");
  ASSERT_EQ(kept.code, 0) << kept.err;
  EXPECT_EQ(kept.output.at("placement"),
            json::parse(R"({"member1": 2, "member2": 2, "member3": 2})"));
}

TEST(PlanCommandTest, DefaultsAndPreferences) {
  PlanResult r = plan(R"({"totalReplicas": 4, "clusters": ["a", "b", "c"],
      "preferences": {"a": {"weight": 3, "maxReplicas": null}, "b": {"weight": 1}, "zz": {"weight": 9}}})");
  ASSERT_EQ(r.code, 0) << r.err;
  // c has no preference and no "*": it takes no part; "zz" is not a cluster and is ignored.
  EXPECT_EQ(r.output.at("plan"), json::parse(R"({"a": 3, "b": 1})"));
  PlanResult zero = plan(R"({"totalReplicas": 0, "clusters": ["a"], "preferences": {"*": {}}})");
  ASSERT_EQ(zero.code, 0) << zero.err;
  EXPECT_EQ(zero.output, json::parse(R"({"plan": {"a": 0}, "overflow": {}, "placement": {}})"));
}

TEST(PlanCommandTest, MalformedInputIsOneLineOnStderr) {
  const std::pair<const char*, const char*> cases[] = {
      {"{", "invalid JSON"},
      {R"({"clusters": ["a"]})", "totalReplicas: required"},
      {R"({"totalReplicas": -1, "clusters": ["a"]})", "totalReplicas: must be >= 0, got -1"},
      {R"({"totalReplicas": 1, "clusters": "a"})", "clusters: expected an array"},
      {R"({"totalReplicas": 1, "clusters": ["a", "a"]})", "clusters[1]: duplicate cluster"},
      {R"({"totalReplicas": 1, "clusters": ["a"], "currentReplicas": {"x": -2}})",
       "currentReplicas.x: must be >= 0"},
      {R"({"totalReplicas": 1, "clusters": ["a"], "preferences": {"a": {"weight": 1.5}}})",
       "preferences.a.weight: expected a non-negative integer"},
      {R"({"totalReplicas": 1, "clusters": ["a"], "preferences": {"a": {"minReplicas": 3, "maxReplicas": 2}}})",
       "preferences.a.maxReplicas: must be >= minReplicas"},
      {R"({"totalReplicas": 1, "clusters": ["a"], "division": "Random"})", "division: expected"},
      {R"({"totalReplicas": 1, "clusters": ["a"], "avoidDisruption": "yes"})",
       "avoidDisruption: expected"},
      {R"({"totalReplicas": 1, "clusters": ["a"], "replicas": 3})", "unknown field \"replicas\""},
      {R"([1, 2])", "input: expected an object"},
      {"", "invalid JSON"},
  };
  for (const auto& [input, message] : cases) {
    PlanResult r = plan(input);
    EXPECT_EQ(r.code, 1) << input;
    EXPECT_NE(r.err.find(message), std::string::npos) << input << " -> " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
}  // namespace flotilla::cli
