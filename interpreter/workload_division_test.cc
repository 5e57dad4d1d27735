#include "interpreter/workload_division.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parseObject(std::string_view text) { return json::parse(text).as_object(); }

Share shareOf(const std::string& cluster, std::vector<api::TargetCluster> placement,
              std::string version = "v1.32.0", bool divided = true) {
  Share s{.cluster = cluster, .divided = divided, .placement = std::move(placement),
          .kubernetesVersion = std::move(version)};
  for (const auto& c : s.placement)
    if (c.name == cluster) s.replicas = c.replicas;
  return s;
}

TEST(StartOrdinal, ServedFromKubernetes127) {
  struct Case {
    const char* version;
    bool served;
  };
  for (const auto& c : std::vector<Case>{{"v1.27.0", true},
                                         {"v1.32.0-flotilla-sim", true},
                                         {"v1.26.3", false},
                                         {"v1.24.17-eks-1234", false},
                                         {"v2.0.0", true},
                                         {"", true},  // unknown: every supported version does
                                         {"weird", true}})
    EXPECT_EQ(servesStartOrdinal(c.version), c.served) << c.version;
}

TEST(StatefulSetDivision, ClustersNumberTheirPodsOneAfterAnotherByName) {
  const std::vector<api::TargetCluster> placement{{"member2", 2}, {"member1", 3}};
  const json::object sts = parseObject(R"({"metadata":{"name":"web"},"spec":{"replicas":5}})");
  json::object first = sts, second = sts;
  EXPECT_EQ(reviseStatefulSet(first, shareOf("member1", placement)), "");
  EXPECT_EQ(reviseStatefulSet(second, shareOf("member2", placement)), "");
  // member1: web-0..web-2 (its start written, so a start left from an earlier division goes);
  // member2: web-3..web-4.
  EXPECT_EQ(json::serialize(first),
            R"({"metadata":{"name":"web"},"spec":{"replicas":3,"ordinals":{"start":0}}})");
  EXPECT_EQ(second.at("spec").at("replicas"), 2);
  EXPECT_EQ(second.at("spec").at("ordinals").at("start"), 3);
  // The template's own start offsets every cluster.
  json::object offset =
      parseObject(R"({"metadata":{"name":"web"},"spec":{"replicas":5,"ordinals":{"start":10}}})");
  reviseStatefulSet(offset, shareOf("member2", placement));
  EXPECT_EQ(offset.at("spec").at("ordinals").at("start"), 13);
}

TEST(StatefulSetDivision, AMemberWithoutOrdinalsIsToldNotSilent) {
  const std::vector<api::TargetCluster> placement{{"member1", 3}, {"member2", 2}};
  json::object sts = parseObject(R"({"metadata":{"name":"web"},"spec":{"replicas":5}})");
  const std::string note = reviseStatefulSet(sts, shareOf("member2", placement, "v1.26.3"));
  EXPECT_FALSE(sts.at("spec").as_object().contains("ordinals"));  // the field would be dropped
  EXPECT_EQ(sts.at("spec").at("replicas"), 2);
  EXPECT_NE(note.find("member2 runs Kubernetes v1.26.3"), std::string::npos) << note;
  EXPECT_NE(note.find("(web-0..web-1), not web-3..web-4"), std::string::npos) << note;
  // The first cluster starts at 0 anyway: nothing to say. A template's own ordinals are not
  // sent to such a member either (it would drop them, and the copy would never match).
  json::object first = parseObject(
      R"({"metadata":{"name":"web"},"spec":{"replicas":5,"ordinals":{"start":0}}})");
  EXPECT_EQ(reviseStatefulSet(first, shareOf("member1", placement, "v1.26.3")), "");
  EXPECT_FALSE(first.at("spec").as_object().contains("ordinals"));
}

TEST(StatefulSetDivision, DuplicatedEveryClusterRunsTheWholeSet) {
  const std::vector<api::TargetCluster> placement{{"member1", 5}, {"member2", 5}};
  json::object sts = parseObject(R"({"metadata":{"name":"web"},"spec":{"replicas":5}})");
  EXPECT_EQ(reviseStatefulSet(sts, shareOf("member2", placement, "v1.26.3", false)), "");
  EXPECT_EQ(json::serialize(sts), R"({"metadata":{"name":"web"},"spec":{"replicas":5}})");
}

TEST(DivideInProportion, LargestRemainderTiesByClusterName) {
  using Parts = std::map<std::string, int64_t>;
  struct Case {
    int64_t total;
    std::vector<api::TargetCluster> placement;
    Parts want;
  };
  for (const auto& c : std::vector<Case>{
           {10, {{"b", 2}, {"a", 2}}, {{"a", 5}, {"b", 5}}},
           {10, {{"a", 3}, {"b", 1}}, {{"a", 8}, {"b", 2}}},  // 7.5 / 2.5: tie -> a
           {5, {{"c", 1}, {"b", 1}, {"a", 1}}, {{"a", 2}, {"b", 2}, {"c", 1}}},
           {1, {{"b", 1}, {"a", 1}}, {{"a", 1}, {"b", 0}}},
           {7, {{"a", 1}, {"b", 5}}, {{"a", 1}, {"b", 6}}},  // 1.17 / 5.83: b's remainder
           {0, {{"a", 1}}, {{"a", 0}}},
           {4, {{"a", 0}}, {{"a", 0}}},
       }) {
    EXPECT_EQ(divideInProportion(c.total, c.placement), c.want) << c.total;
    // The same parts whatever the order of the placement.
    auto reversed = c.placement;
    std::reverse(reversed.begin(), reversed.end());
    EXPECT_EQ(divideInProportion(c.total, reversed), c.want) << c.total;
  }
}

TEST(JobDivision, ParallelismIsTheShareAndCompletionsFollowIt) {
  const json::object job = parseObject(R"({"spec":{"completions":10,"parallelism":4}})");
  EXPECT_EQ(jobReplicas(job), 4);
  EXPECT_EQ(jobReplicas(parseObject(R"({"spec":{"completions":2,"parallelism":4}})")), 2);
  EXPECT_EQ(jobReplicas(parseObject(R"({"spec":{}})")), 1);
  const std::vector<api::TargetCluster> placement{{"member1", 2}, {"member2", 2}};
  for (const char* cluster : {"member1", "member2"}) {
    json::object part = job;
    EXPECT_EQ(reviseJob(part, shareOf(cluster, placement)), "");
    EXPECT_EQ(part.at("spec").at("completions"), 5) << cluster;
    EXPECT_EQ(part.at("spec").at("parallelism"), 2) << cluster;
  }
  // 3:1 -> completions 8 and 2 (largest remainder, ties by name); parallelism at most those.
  json::object small = parseObject(R"({"spec":{"completions":3,"parallelism":4}})");
  reviseJob(small, shareOf("member2", {{"member1", 3}, {"member2", 1}}));
  EXPECT_EQ(small.at("spec").at("completions"), 1);
  EXPECT_EQ(small.at("spec").at("parallelism"), 1);
  // Duplicated: every cluster runs the whole Job.
  json::object whole = job;
  reviseJob(whole, shareOf("member2", {{"member1", 4}, {"member2", 4}}, "v1.32.0", false));
  EXPECT_EQ(json::serialize(whole), R"({"spec":{"completions":10,"parallelism":4}})");
  // No parallelism anywhere: nothing runs, and the completions are not divided to 0 (which would
  // complete the Job without running it).
  json::object idle = job;
  reviseJob(idle, shareOf("member1", {{"member1", 0}, {"member2", 0}}));
  EXPECT_EQ(json::serialize(idle), R"({"spec":{"completions":10,"parallelism":0}})");
  // A work queue divides only its parallelism.
  json::object queue = parseObject(R"({"spec":{"parallelism":6}})");
  reviseJob(queue, shareOf("member1", {{"member1", 4}, {"member2", 2}}));
  EXPECT_EQ(json::serialize(queue), R"({"spec":{"parallelism":4}})");
}

TEST(JobDivision, AnIndexedJobIsNotDividedAndIsWarnedAbout) {
  const json::object indexed =
      parseObject(R"({"spec":{"completions":10,"parallelism":4,"completionMode":"Indexed"}})");
  EXPECT_EQ(jobReplicas(indexed), std::nullopt);
  EXPECT_NE(jobDuplicatedWarning(indexed).find("runs every index"), std::string::npos);
  EXPECT_EQ(jobDuplicatedWarning(parseObject(R"({"spec":{"completions":10}})")), "");
}

TEST(JobDivision, TheHostsGeneratedSelectorIsNotSentAndLiveCompletionsStay) {
  json::object job = parseObject(R"({"spec":{"selector":{"matchLabels":{
      "batch.kubernetes.io/controller-uid":"u1"}},"template":{"metadata":{"labels":{
      "batch.kubernetes.io/controller-uid":"u1","batch.kubernetes.io/job-name":"pi",
      "controller-uid":"u1","job-name":"pi","app":"pi"}}}}})");
  pruneJob(job);
  EXPECT_EQ(json::serialize(job), R"({"spec":{"template":{"metadata":{"labels":{"app":"pi"}}}}})");
  // A manual selector is the user's.
  json::object manual = parseObject(R"({"spec":{"manualSelector":true,"selector":{"matchLabels":
      {"app":"pi"}},"template":{"metadata":{"labels":{"job-name":"x","app":"pi"}}}}})");
  const json::object before = manual;
  pruneJob(manual);
  EXPECT_EQ(manual, before);
  // completions cannot change on a member: a division changed later does not reach it.
  json::object desired = parseObject(R"({"spec":{"completions":6,"parallelism":3}})");
  retainJob(desired, parseObject(R"({"spec":{"completions":5,"parallelism":2}})"));
  EXPECT_EQ(json::serialize(desired), R"({"spec":{"completions":5,"parallelism":3}})");
}

}  // namespace
}  // namespace flotilla::interpreter
