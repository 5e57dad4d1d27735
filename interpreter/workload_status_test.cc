// DaemonSet and StatefulSet health and host status (workload_status.h), as tables over the
// members' objects the way kube-controller-manager writes them.
#include "interpreter/workload_status.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace {

namespace json = boost::json;

json::object parse(const std::string& text) { return json::parse(text).as_object(); }

// A member DaemonSet made from host generation `source`, at generation 2.
json::object daemonSet(int observed, int desired, int updated, int available, int source = 2) {
  return parse(R"({"apiVersion": "apps/v1", "kind": "DaemonSet",
    "metadata": {"name": "agent", "generation": 2,
                 "annotations": {"flotilla.io/source-generation": ")" +
               std::to_string(source) + R"("}},
    "status": {"observedGeneration": )" + std::to_string(observed) +
               R"(, "desiredNumberScheduled": )" + std::to_string(desired) +
               R"(, "currentNumberScheduled": )" + std::to_string(desired) +
               R"(, "updatedNumberScheduled": )" + std::to_string(updated) +
               R"(, "numberAvailable": )" + std::to_string(available) +
               R"(, "numberReady": )" + std::to_string(available) + "}}");
}

TEST(DaemonSetHealth, AsRolloutStatusReadsIt) {
  struct Case {
    const char* name;
    json::object ds;
    Health want;
  } cases[] = {
      {"rolled out", daemonSet(2, 3, 3, 3), Health::kHealthy},
      {"generation not observed", daemonSet(1, 3, 3, 3), Health::kProgressing},
      {"pods not updated", daemonSet(2, 3, 1, 3), Health::kProgressing},
      {"pods not available", daemonSet(2, 3, 3, 2), Health::kProgressing},
      {"no node matches: nothing to run", daemonSet(2, 0, 0, 0), Health::kHealthy},
  };
  for (const auto& c : cases) EXPECT_EQ(daemonSetHealth(c.ds).health, c.want) << c.name;
  EXPECT_EQ(daemonSetHealth(daemonSet(2, 3, 1, 3)).message, "1 of 3 pods updated");
  const auto entry = Registry::builtIn().of("apps/v1", "DaemonSet");
  EXPECT_EQ(entry.health(nullptr).health, Health::kUnknown) << "not there";
  EXPECT_FALSE(entry.divisible()) << "a DaemonSet runs one pod per node: Duplicated";
}

TEST(DaemonSetStatus, TheMembersSumAndAnHonestObservedGeneration) {
  const auto host = parse(R"({"metadata": {"name": "agent", "generation": 2},
                              "status": {"observedGeneration": 1}})");
  const auto a = daemonSet(2, 3, 3, 3), b = daemonSet(2, 4, 2, 1);
  auto status = daemonSetStatus(host, {{"c1", &a}, {"c2", &b}});
  ASSERT_TRUE(status);
  EXPECT_EQ(status->at("desiredNumberScheduled"), 7);
  EXPECT_EQ(status->at("updatedNumberScheduled"), 5);
  EXPECT_EQ(status->at("numberAvailable"), 4);
  EXPECT_FALSE(status->contains("numberMisscheduled")) << "zeros are left out";
  EXPECT_EQ(status->at("observedGeneration"), 2);
  // A member not there yet, one made from an older host generation, or one whose controller has
  // not observed its copy: the host's observedGeneration stays where it was.
  const auto old = daemonSet(2, 3, 3, 3, 1), unseen = daemonSet(1, 3, 3, 3);
  for (const auto& members : std::vector<std::vector<MemberObject>>{
           {{"c1", &a}, {"c2", nullptr}}, {{"c1", &a}, {"c2", &old}}, {{"c1", &unseen}}}) {
    status = daemonSetStatus(host, members);
    ASSERT_TRUE(status);
    EXPECT_EQ(status->at("observedGeneration"), 1);
  }
}

json::object statefulSet(int replicas, int ready, int updated, int partition = 0) {
  return parse(R"({"apiVersion": "apps/v1", "kind": "StatefulSet",
    "metadata": {"name": "web", "generation": 1,
                 "annotations": {"flotilla.io/source-generation": "1"}},
    "spec": {"replicas": )" + std::to_string(replicas) +
               R"(, "updateStrategy": {"type": "RollingUpdate",
      "rollingUpdate": {"partition": )" + std::to_string(partition) + R"(}}},
    "status": {"observedGeneration": 1, "replicas": )" + std::to_string(replicas) +
               R"(, "readyReplicas": )" + std::to_string(ready) + R"(, "currentReplicas": )" +
               std::to_string(updated) + R"(, "updatedReplicas": )" + std::to_string(updated) +
               R"(, "availableReplicas": )" + std::to_string(ready) + "}}");
}

TEST(StatefulSetHealth, ReadyAndUpdatedToItsPartition) {
  EXPECT_EQ(statefulSetHealth(statefulSet(3, 3, 3)).health, Health::kHealthy);
  EXPECT_EQ(statefulSetHealth(statefulSet(3, 2, 3)).health, Health::kProgressing);
  EXPECT_EQ(statefulSetHealth(statefulSet(3, 3, 1)).health, Health::kProgressing);
  EXPECT_EQ(statefulSetHealth(statefulSet(3, 3, 1, 2)).health, Health::kHealthy)
      << "a partition at 2 updates only ordinal 2";
  EXPECT_EQ(statefulSetHealth(statefulSet(3, 2, 3)).message, "2 of 3 replicas ready");
}

TEST(StatefulSetStatus, TheMembersSum) {
  const auto host = parse(R"({"metadata": {"name": "web", "generation": 1},
    "status": {"collisionCount": 2, "replicas": 9, "readyReplicas": 1}})");
  const auto a = statefulSet(3, 3, 3), b = statefulSet(3, 1, 3);
  const auto status = statefulSetStatus(host, {{"c1", &a}, {"c2", &b}});
  ASSERT_TRUE(status);
  EXPECT_EQ(status->at("collisionCount"), 2) << "what is not summed stays (it never decreases)";
  EXPECT_EQ(status->at("replicas"), 6);
  EXPECT_EQ(status->at("readyReplicas"), 4);
  EXPECT_EQ(status->at("observedGeneration"), 1);
}

}  // namespace
}  // namespace flotilla::interpreter
