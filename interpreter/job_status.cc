#include "interpreter/job_status.h"

#include <algorithm>
#include <boost/json/value.hpp>
#include <string>

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
  if (!failed.empty()) {
    // One reason when the parts agree (BackoffLimitExceeded), else the generic one.
    const bool sameReason = std::all_of(failedReasons.begin(), failedReasons.end(),
                                        [&](const auto& r) { return r == failedReasons.front(); });
    conditions.push_back(condition(
        "Failed", sameReason && !failedReasons.front().empty() ? failedReasons.front() : "Failed",
        "the part on " + joined(failed) + " failed: " + joined(failedMessages), failedAt));
  } else if (complete) {
    std::vector<std::string> clusters;
    for (const auto& m : members) clusters.push_back(m.cluster);
    conditions.push_back(condition("Complete", "CompletionsReached",
                                   "every cluster's part completed (" + joined(clusters) + ")",
                                   completedAt));
    if (!completionTime.empty()) status["completionTime"] = completionTime;
  }
  if (!conditions.empty()) status["conditions"] = std::move(conditions);
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
