// Health and host status of Jobs and CronJobs run by the members' controllers (docs/design.md
// §13). The host's Job is the sum of its parts: active, ready, succeeded, failed and terminating
// summed; Complete only once every cluster's part is Complete; Failed as soon as one part failed,
// naming the clusters whose parts failed; times taken from the members' own conditions, so that
// a transition time is when the fleet's Job changed, not when Flotilla looked; once Complete or
// Failed, the host's status stays as it is (final, as a Job's are). Pure functions on
// JSON, tested by tables (job_status_test.cc).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <vector>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {

HealthReport jobHealth(const boost::json::object& job);
std::optional<boost::json::object> jobStatus(const boost::json::object& source,
                                             const std::vector<MemberObject>& members);

// A CronJob's host status: the latest lastScheduleTime and lastSuccessfulTime of its members
// (their active Jobs are the members' objects and are not listed on the host).
std::optional<boost::json::object> cronJobStatus(const boost::json::object& source,
                                                 const std::vector<MemberObject>& members);
std::string cronJobDuplicatedWarning(const boost::json::object& cronJob);

}  // namespace flotilla::interpreter
