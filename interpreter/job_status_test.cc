#include "interpreter/job_status.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parseObject(std::string_view text) { return json::parse(text).as_object(); }

json::object running(int active, int succeeded, const char* start) {
  return parseObject(R"({"spec":{"completions":5},"status":{"active":)" + std::to_string(active) +
                     R"(,"succeeded":)" + std::to_string(succeeded) + R"(,"startTime":")" +
                     start + R"("}})");
}

json::object complete(const char* start, const char* done) {
  return parseObject(R"({"spec":{"completions":5},"status":{"succeeded":5,"ready":0,
      "startTime":")" + std::string(start) + R"(","completionTime":")" + done + R"(",
      "conditions":[{"type":"SuccessCriteriaMet","status":"True"},
                    {"type":"Complete","status":"True","lastTransitionTime":")" + done +
                     R"("}]}})");
}

json::object failed(const char* at) {
  return parseObject(R"({"spec":{"completions":5},"status":{"failed":7,"succeeded":1,
      "conditions":[{"type":"Failed","status":"True","reason":"BackoffLimitExceeded",
      "message":"Job has reached the specified backoff limit","lastTransitionTime":")" +
                     std::string(at) + R"("}]}})");
}

const json::object kSource = parseObject(R"({"spec":{"completions":10}})");

TEST(JobStatus, SumsThePartsAndCompletesOnlyWhenEveryPartDid) {
  const auto one = complete("2026-11-28T10:00:00Z", "2026-11-28T10:00:30Z");
  const auto two = running(2, 3, "2026-11-28T10:00:01Z");
  auto status = jobStatus(kSource, {{"member1", &one}, {"member2", &two}});
  ASSERT_TRUE(status);
  EXPECT_EQ(status->at("succeeded"), 8);
  EXPECT_EQ(status->at("active"), 2);
  EXPECT_EQ(status->at("startTime"), "2026-11-28T10:00:00Z");  // the earliest part's
  EXPECT_FALSE(status->contains("conditions"));
  EXPECT_FALSE(status->contains("completionTime"));
  EXPECT_EQ(jobHealth(two).health, Health::kProgressing);
  EXPECT_EQ(jobHealth(two).message, "3 of 5 completions succeeded, 2 active");

  const auto twoDone = complete("2026-11-28T10:00:01Z", "2026-11-28T10:00:41Z");
  status = jobStatus(kSource, {{"member1", &one}, {"member2", &twoDone}});
  EXPECT_EQ(status->at("succeeded"), 10);
  EXPECT_FALSE(status->contains("active"));
  EXPECT_EQ(status->at("completionTime"), "2026-11-28T10:00:41Z");  // the last part's
  // As the API server accepts a finished Job: SuccessCriteriaMet, then Complete.
  ASSERT_EQ(status->at("conditions").as_array().size(), 2u);
  EXPECT_EQ(status->at("conditions").at(0).at("type"), "SuccessCriteriaMet");
  const auto& c = status->at("conditions").at(1).as_object();
  EXPECT_EQ(c.at("type"), "Complete");
  EXPECT_EQ(c.at("status"), "True");
  EXPECT_EQ(c.at("lastTransitionTime"), "2026-11-28T10:00:41Z");
  EXPECT_EQ(jobHealth(twoDone).health, Health::kHealthy);
}

TEST(JobStatus, CompleteIsFinalOnTheHost) {
  const auto one = complete("2026-11-28T10:00:00Z", "2026-11-28T10:00:30Z");
  const auto two = complete("2026-11-28T10:00:01Z", "2026-11-28T10:00:41Z");
  auto done = kSource;
  done["status"] = *jobStatus(kSource, {{"member1", &one}, {"member2", &two}});
  // member2 goes down afterwards (its copy cannot be read): the host's Job stays Complete, 10.
  const auto after = jobStatus(done, {{"member1", &one}, {"member2", nullptr}});
  EXPECT_EQ(*after, done.at("status").as_object());
  EXPECT_EQ(after->at("succeeded"), 10);
}

TEST(JobStatus, CountsAndStartTimeNeverGoBack) {
  // member2 cannot be read for a while: the host keeps the counts and start it showed (the API
  // server refuses a smaller succeeded count or a changed startTime).
  auto before = kSource;
  before["status"] = json::parse(R"({"succeeded":8,"startTime":"2026-11-28T09:59:00Z"})");
  const auto one = running(1, 3, "2026-11-28T10:00:00Z");
  const auto status = jobStatus(before, {{"member1", &one}, {"member2", nullptr}});
  EXPECT_EQ(status->at("succeeded"), 8);
  EXPECT_EQ(status->at("startTime"), "2026-11-28T09:59:00Z");
}

TEST(JobStatus, APartNotOnItsClusterYetKeepsTheJobIncomplete) {
  const auto one = complete("2026-11-28T10:00:00Z", "2026-11-28T10:00:30Z");
  const auto status = jobStatus(kSource, {{"member1", &one}, {"member2", nullptr}});
  EXPECT_FALSE(status->contains("conditions"));
  EXPECT_FALSE(jobStatus(kSource, {})->contains("conditions"));
}

TEST(JobStatus, FailedNamesTheClusterWhosePartFailed) {
  const auto one = running(2, 3, "2026-11-28T10:00:00Z");
  const auto two = failed("2026-11-28T10:01:00Z");
  const auto status = jobStatus(kSource, {{"member1", &one}, {"member2", &two}});
  EXPECT_EQ(status->at("conditions").at(0).at("type"), "FailureTarget");
  EXPECT_FALSE(status->contains("active"));  // a finished Job has nothing active
  const auto& c = status->at("conditions").at(1).as_object();
  EXPECT_EQ(c.at("type"), "Failed");
  EXPECT_EQ(c.at("reason"), "BackoffLimitExceeded");
  EXPECT_EQ(c.at("message"),
            "the part on member2 failed: member2: Job has reached the specified backoff limit");
  EXPECT_EQ(c.at("lastTransitionTime"), "2026-11-28T10:01:00Z");
  EXPECT_EQ(status->at("failed"), 7);
  EXPECT_EQ(jobHealth(two).health, Health::kUnhealthy);
  EXPECT_NE(jobHealth(two).message.find("BackoffLimitExceeded"), std::string::npos);
}

TEST(JobStatus, AWorkQueueReportsActiveAndSucceeded) {
  const auto queue = parseObject(R"({"spec":{"parallelism":3},"status":{"active":2,"succeeded":1}})");
  EXPECT_EQ(jobHealth(queue).message, "2 active, 1 succeeded");
}

TEST(CronJobStatus, TheLatestScheduleOfAnyClusterAndNoMemberJobs) {
  const auto one = parseObject(R"({"status":{"lastScheduleTime":"2026-11-28T10:00:00Z",
      "lastSuccessfulTime":"2026-11-28T09:59:00Z","active":[{"name":"tick-1"}]}})");
  const auto two = parseObject(R"({"status":{"lastScheduleTime":"2026-11-28T10:01:00Z"}})");
  const auto status = cronJobStatus(parseObject(R"({"status":{"active":[{"name":"x"}]}})"),
                                    {{"member1", &one}, {"member2", &two}});
  EXPECT_EQ(*status, parseObject(R"({"lastScheduleTime":"2026-11-28T10:01:00Z",
                                     "lastSuccessfulTime":"2026-11-28T09:59:00Z"})"));
  EXPECT_NE(cronJobDuplicatedWarning(one).find("one Job per cluster"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::interpreter
