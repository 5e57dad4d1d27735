#include "sim/member/job_controller.h"

#include "sim/member/workload_test_fixture.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::WorkloadFixture;
using JobTest = WorkloadFixture;

json::object job(const std::string& name, json::object specExtra = {},
                 json::object annotations = {}) {
  json::object podTemplate = WorkloadFixture::podTemplate("pi", "perl:5");
  podTemplate["spec"].as_object()["restartPolicy"] = "Never";
  json::object spec{{"template", podTemplate}};
  for (const auto& [k, v] : specExtra) spec[k] = v;
  json::object metadata{{"name", name}};
  if (!annotations.empty()) metadata["annotations"] = annotations;
  return json::object{
      {"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", metadata}, {"spec", spec}};
}

TEST_F(JobTest, PodsRunThenSucceedAndTheJobCompletes) {
  put("batch", "jobs", job("pi", {{"completions", 2}, {"parallelism", 2}}));
  controller_->reconcile();
  auto created = pods();
  ASSERT_EQ(created.size(), 2u);
  const auto& labels = created[0].at("metadata").at("labels").as_object();
  EXPECT_EQ(labels.at("job-name"), "pi");
  EXPECT_EQ(labels.at("batch.kubernetes.io/job-name"), "pi");
  EXPECT_EQ(labels.at("batch.kubernetes.io/controller-uid"), "pi-uid");
  EXPECT_EQ(podName(created[0]).rfind("pi-", 0), 0u);
  EXPECT_EQ(podName(created[0]).size(), 8u);
  auto status = get("batch/jobs", "pi").at("status").as_object();
  EXPECT_EQ(status.at("active"), 2);
  EXPECT_EQ(status.at("ready"), 0);
  EXPECT_EQ(status.at("terminating"), 0);
  EXPECT_EQ(status.at("uncountedTerminatedPods"), json::object{});
  EXPECT_TRUE(status.contains("startTime"));
  run(1500ms);  // Running and Ready after readyDelay
  EXPECT_EQ(get("batch/jobs", "pi").at("status").at("ready"), 2);
  run(3000ms);  // then they end after jobPodRunTime
  for (const auto& p : pods()) {
    EXPECT_EQ(phase(p), "Succeeded");
    EXPECT_EQ(
        p.at("status").at("containerStatuses").at(0).at("state").at("terminated").at("reason"),
        "Completed");
  }
  status = get("batch/jobs", "pi").at("status").as_object();
  EXPECT_EQ(status.at("succeeded"), 2);
  EXPECT_FALSE(status.contains("active"));
  EXPECT_TRUE(status.contains("completionTime"));
  const auto& conditions = status.at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].at("type"), "SuccessCriteriaMet");
  EXPECT_EQ(conditions[1].at("type"), "Complete");
  EXPECT_EQ(conditions[1].at("status"), "True");
  EXPECT_EQ(conditions[1].at("reason"), "CompletionsReached");
  EXPECT_TRUE(conditions[1].as_object().contains("lastProbeTime"));
  EXPECT_EQ(controller_->reconcile(), 0);
}

TEST_F(JobTest, RunSecondsAnnotationOverridesTheRunTime) {
  put("batch", "jobs", job("slow", {}, {{kRunSecondsAnnotation, "10"}}));
  run(6000ms);
  EXPECT_EQ(phase(pods().at(0)), "Running");
  run(6000ms);
  EXPECT_EQ(phase(pods().at(0)), "Succeeded");
}

TEST_F(JobTest, FailingPodsExhaustTheBackoffLimit) {
  put("batch", "jobs", job("bad", {{"backoffLimit", 1}}, {{kFailAnnotation, "true"}}));
  run(20000ms);
  auto all = pods();
  ASSERT_EQ(all.size(), 2u);  // the first and one retry
  for (const auto& p : all) {
    EXPECT_EQ(phase(p), "Failed");
    EXPECT_EQ(
        p.at("status").at("containerStatuses").at(0).at("state").at("terminated").at("exitCode"),
        1);
  }
  const auto status = get("batch/jobs", "bad").at("status").as_object();
  EXPECT_EQ(status.at("failed"), 2);
  const auto& conditions = status.at("conditions").as_array();
  ASSERT_EQ(conditions.size(), 2u);
  EXPECT_EQ(conditions[0].at("type"), "FailureTarget");
  EXPECT_EQ(conditions[1].at("type"), "Failed");
  EXPECT_EQ(conditions[1].at("reason"), "BackoffLimitExceeded");
  EXPECT_EQ(controller_->reconcile(), 0);
}

TEST_F(JobTest, IndexedJobsNameAndLabelTheirPods) {
  put("batch", "jobs",
      job("idx", {{"completions", 3}, {"parallelism", 3}, {"completionMode", "Indexed"}}));
  controller_->reconcile();
  std::vector<std::string> indexes;
  for (const auto& p : pods()) {
    const std::string index(p.at("metadata")
                                .at("annotations")
                                .at("batch.kubernetes.io/job-completion-index")
                                .as_string());
    indexes.push_back(index);
    EXPECT_EQ(p.at("metadata").at("labels").at("batch.kubernetes.io/job-completion-index"),
              json::value(index));
    EXPECT_EQ(podName(p).rfind("idx-" + index + "-", 0), 0u);
  }
  std::sort(indexes.begin(), indexes.end());
  EXPECT_EQ(indexes, (std::vector<std::string>{"0", "1", "2"}));
  run(6000ms);
  const auto status = get("batch/jobs", "idx").at("status").as_object();
  EXPECT_EQ(status.at("completedIndexes"), "0-2");
  EXPECT_EQ(status.at("succeeded"), 3);
}

TEST_F(JobTest, AWorkQueueCompletesWhenOnePodSucceeded) {
  put("batch", "jobs", job("queue", {{"parallelism", 2}}));
  controller_->reconcile();
  EXPECT_EQ(pods().size(), 2u);
  run(6000ms);
  const auto status = get("batch/jobs", "queue").at("status").as_object();
  EXPECT_EQ(status.at("succeeded"), 2);
  EXPECT_EQ(status.at("conditions").at(1).at("type"), "Complete");
}

}  // namespace
}  // namespace flotilla::sim
