#include "interpreter/job_status.h"

#include <algorithm>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "api/unstructured.h"
#include "interpreter/workload_status.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

// A condition of `type` with status True, or null.
const json::object* conditionTrue(const json::object& o, std::string_view type) {
  const json::object* c = u::condition(o, type);
  return c && u::stringAt(*c, {"status"}) == "True" ? c : nullptr;
}

// The later (or earlier) of two RFC 3339 times as the API server writes them (same format and
// zone, so their text orders as their times do); an empty one loses.
std::string later(const std::string& a, const std::string& b) { return a.empty() || b > a ? b : a; }
std::string earlier(const std::string& a, const std::string& b) {
  return a.empty() || (!b.empty() && b < a) ? b : a;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

HealthReport jobHealth(const json::object& job) {
  if (const json::object* failed = conditionTrue(job, "Failed"))
    return {Health::kUnhealthy, u::stringAt(*failed, {"reason"}, "Failed") + ": " +
                                    u::stringAt(*failed, {"message"}, "the Job failed")};
  if (conditionTrue(job, "Complete")) return {Health::kHealthy, ""};
  const int64_t active = memberCount(job, {"status", "active"});
  const int64_t succeeded = memberCount(job, {"status", "succeeded"});
  if (const auto completions = u::intAt(job, {"spec", "completions"}))
    return {Health::kProgressing, std::to_string(succeeded) + " of " +
                                      std::to_string(*completions) + " completions succeeded, " +
                                      std::to_string(active) + " active"};
  return {Health::kProgressing, std::to_string(active) + " active, " + std::to_string(succeeded) +
                                    " succeeded"};
}

std::optional<json::object> jobStatus(const json::object& source,
                                      const std::vector<MemberObject>& members) {
  // Complete and Failed are final, as for any Job: once the host's Job shows one, its status
  // stays (a cluster that goes down afterwards, its part done, does not undo it).
  if (const json::object* before = u::findObject(source, {"status"});
      before && (conditionTrue(source, "Complete") || conditionTrue(source, "Failed")))
    return *before;
  json::object status;
  for (const char* field : {"active", "ready", "succeeded", "failed", "terminating"}) {
    int64_t sum = 0;
    for (const auto& m : members)
      if (m.object) sum += memberCount(*m.object, {"status", field});
    // The API server refuses a Job's succeeded or failed count going down: a member that cannot
    // be read for a while does not take its part's count away.
    if (std::string_view(field) == "succeeded" || std::string_view(field) == "failed")
      sum = std::max(sum, memberCount(source, {"status", field}));
    if (sum != 0) status[field] = sum;
  }
  std::string startTime, completionTime, completedAt, failedAt;
  std::vector<std::string> failed, failedReasons, failedMessages;
  bool complete = !members.empty();
  for (const auto& m : members) {
    if (!m.object) {
      complete = false;
      continue;
    }
    startTime = earlier(startTime, u::stringAt(*m.object, {"status", "startTime"}));
    if (const json::object* c = conditionTrue(*m.object, "Complete")) {
      completionTime = later(completionTime, u::stringAt(*m.object, {"status", "completionTime"}));
      completedAt = later(completedAt, u::stringAt(*c, {"lastTransitionTime"}));
    } else {
      complete = false;
    }
    if (const json::object* c = conditionTrue(*m.object, "Failed")) {
      failed.push_back(m.cluster);
      failedReasons.push_back(u::stringAt(*c, {"reason"}));
      failedMessages.push_back(m.cluster + ": " + u::stringAt(*c, {"message"}, "failed"));
      failedAt = later(failedAt, u::stringAt(*c, {"lastTransitionTime"}));
    }
  }
  // (startTime, once set, stays: the API server refuses its removal or change.)
  if (const std::string before = u::stringAt(source, {"status", "startTime"}); !before.empty())
    startTime = before;
  if (!startTime.empty()) status["startTime"] = startTime;
  json::array conditions;
  auto condition = [](const char* type, const std::string& reason, const std::string& message,
                      const std::string& at) {
    json::object c{{"type", type}, {"status", "True"}, {"reason", reason}, {"message", message}};
    if (!at.empty()) {
      c["lastProbeTime"] = at;
      c["lastTransitionTime"] = at;
    }
    return c;
  };
  // A finished Job, as the API server accepts one (1.31 and later check it): the target
  // condition first (FailureTarget, SuccessCriteriaMet), then the final one, nothing active.
  if (!failed.empty()) {
    // One reason when the parts agree (BackoffLimitExceeded), else the generic one.
    const bool sameReason = std::all_of(failedReasons.begin(), failedReasons.end(),
                                        [&](const auto& r) { return r == failedReasons.front(); });
    const std::string reason =
        sameReason && !failedReasons.front().empty() ? failedReasons.front() : "Failed";
    const std::string message =
        "the part on " + joined(failed) + " failed: " + joined(failedMessages);
    conditions.push_back(condition("FailureTarget", reason, message, failedAt));
    conditions.push_back(condition("Failed", reason, message, failedAt));
  } else if (complete) {
    std::vector<std::string> clusters;
    for (const auto& m : members) clusters.push_back(m.cluster);
    const std::string message = "every cluster's part completed (" + joined(clusters) + ")";
    conditions.push_back(condition("SuccessCriteriaMet", "CompletionsReached", message, completedAt));
    conditions.push_back(condition("Complete", "CompletionsReached", message, completedAt));
    if (!completionTime.empty()) status["completionTime"] = completionTime;
  }
  if (!conditions.empty()) {
    for (const char* field : {"active", "ready", "terminating"}) status.erase(field);
    status["conditions"] = std::move(conditions);
  }
  return status;
}

std::optional<json::object> cronJobStatus(const json::object& source,
                                          const std::vector<MemberObject>& members) {
  json::object status;
  if (const json::object* before = u::findObject(source, {"status"})) status = *before;
  for (const char* field : {"lastScheduleTime", "lastSuccessfulTime"}) {
    std::string latest;
    for (const auto& m : members)
      if (m.object) latest = later(latest, u::stringAt(*m.object, {"status", field}));
    if (latest.empty())
      status.erase(field);
    else
      status[field] = latest;
  }
  status.erase("active");
  return status;
}

std::string cronJobDuplicatedWarning(const json::object&) {
  return "a CronJob runs on every cluster it is placed on: each scheduled time starts one Job per "
         "cluster (place it on one cluster to run it once)";
}

}  // namespace flotilla::interpreter
