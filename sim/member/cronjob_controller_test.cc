#include "sim/member/cronjob_controller.h"

#include "sim/member/workload_test_fixture.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::WorkloadFixture;

class CronJobTest : public WorkloadFixture {
 protected:
  void SetUp() override {
    WorkloadFixture::SetUp();
    options_.cronJobMinute = 2000ms;  // a schedule minute every 2 s
    options_.jobPodRunTime = 1000ms;
    start();
  }
  std::vector<json::object> jobs() {
    std::vector<json::object> out;
    for (const auto& j : store_->listShared("batch/jobs", "default")) out.push_back(*j);
    return out;
  }
};

json::object cronJob(const std::string& schedule, json::object extra = {}) {
  json::object podTemplate = WorkloadFixture::podTemplate("tick", "busybox");
  podTemplate["spec"].as_object()["restartPolicy"] = "OnFailure";
  json::object spec{
      {"schedule", schedule},
      {"jobTemplate", json::object{{"spec", json::object{{"template", podTemplate}}}}}};
  for (const auto& [k, v] : extra) spec[k] = v;
  return json::object{{"apiVersion", "batch/v1"},
                      {"kind", "CronJob"},
                      {"metadata", json::object{{"name", "tick"}}},
                      {"spec", spec}};
}

TEST_F(CronJobTest, RunsOnTheFastClockAndKeepsHistory) {
  put("batch", "cronjobs", cronJob("* * * * *"));
  controller_->reconcile();
  EXPECT_TRUE(jobs().empty());
  now_ += 2000ms;  // one schedule minute
  controller_->reconcile();
  auto created = jobs();
  ASSERT_EQ(created.size(), 1u);
  const auto& job = created[0];
  // 2026-11-22T10:01:00Z in schedule time: minute 29,922,361 since the epoch.
  EXPECT_EQ(job.at("metadata").at("name"), "tick-29922361");
  EXPECT_EQ(
      job.at("metadata").at("annotations").at("batch.kubernetes.io/cronjob-scheduled-timestamp"),
      "2026-11-22T10:00:02Z");
  EXPECT_EQ(job.at("metadata").at("ownerReferences").at(0).at("kind"), "CronJob");
  EXPECT_TRUE(job.at("spec")
                  .at("selector")
                  .at("matchLabels")
                  .as_object()
                  .contains("batch.kubernetes.io/controller-uid"));
  auto status = get("batch/cronjobs", "tick").at("status").as_object();
  EXPECT_EQ(status.at("lastScheduleTime"), "2026-11-22T10:00:02Z");
  EXPECT_EQ(status.at("active").as_array().size(), 1u);
  EXPECT_EQ(status.at("active").at(0).at("name"), "tick-29922361");
  // Ten schedule minutes later: at most 3 successful Jobs kept (Allow: runs may overlap).
  run(20000ms, 250ms);
  int finished = 0;
  for (const auto& j : jobs()) {
    const auto* status = j.if_contains("status");
    const auto* conditions = status ? status->as_object().if_contains("conditions") : nullptr;
    if (!conditions) continue;
    for (const auto& c : conditions->as_array()) finished += c.at("type") == "Complete" ? 1 : 0;
  }
  EXPECT_EQ(finished, 3);
  EXPECT_LE(jobs().size(), 5u);
  status = get("batch/cronjobs", "tick").at("status").as_object();
  EXPECT_TRUE(status.contains("lastSuccessfulTime"));
}

TEST_F(CronJobTest, ForbidSkipsWhileAJobRunsAndSuspendStops) {
  options_.jobPodRunTime = 60000ms;
  start();
  put("batch", "cronjobs", cronJob("* * * * *", {{"concurrencyPolicy", "Forbid"}}));
  run(10000ms, 500ms);
  EXPECT_EQ(jobs().size(), 1u);
  put("batch", "cronjobs", cronJob("* * * * *", {{"concurrencyPolicy", "Replace"}}));
  run(2000ms, 500ms);
  auto replaced = jobs();
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_NE(replaced[0].at("metadata").at("name"), "tick-29922361");
  put("batch", "cronjobs", cronJob("* * * * *", {{"suspend", true}}));
  const auto before = jobs().size();
  run(10000ms, 500ms);
  EXPECT_EQ(jobs().size(), before);
}

}  // namespace
}  // namespace flotilla::sim
