#include "sim/member/cronjob_controller.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <vector>

#include "sim/member/cron_schedule.h"
#include "sim/member/workload_util.h"
#include "sim/server/defaults.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

const std::string kCronJobsResource = "batch/cronjobs";
const std::string kCronJobJobs = "batch/jobs";
constexpr const char* kScheduledTimestamp = "batch.kubernetes.io/cronjob-scheduled-timestamp";

// The two clocks (see the header): wall time <-> schedule time, from the creation minute.
struct CronClock {
  api::Clock::time_point origin;  // the CronJob's creation minute (wall)
  double factor = 1;              // schedule seconds per wall second
  std::chrono::sys_seconds toSchedule(api::Clock::time_point wall) const {
    const double wallSeconds = std::chrono::duration<double>(wall - origin).count();
    return std::chrono::time_point_cast<std::chrono::seconds>(origin) +
           std::chrono::seconds(static_cast<int64_t>(std::floor(wallSeconds * factor)));
  }
  api::Clock::time_point toWall(std::chrono::sys_seconds schedule) const {
    const double scheduleSeconds =
        std::chrono::duration<double>(schedule -
                                      std::chrono::time_point_cast<std::chrono::seconds>(origin))
            .count();
    return origin + std::chrono::duration_cast<api::Clock::duration>(
                        std::chrono::duration<double>(std::ceil(scheduleSeconds / factor)));
  }
};

bool cronJobFinished(const json::object& job, bool* succeeded) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  const auto& status = obj(job, "status");
  const bool complete = conditionIs(status, "Complete", "True");
  if (succeeded) *succeeded = complete;
  return complete || conditionIs(status, "Failed", "True");
}

}  // namespace

int CronJobController::reconcile(PassClock& clock) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  using std::chrono::minutes;
  int writes = 0;
  const Shared cronJobs = store_.listShared(kCronJobsResource, "");
  if (cronJobs.empty()) return 0;
  const Shared jobs = store_.listShared(kCronJobJobs, "");
  const auto jobsByOwner = byController(jobs);
  const double factor =
      60000.0 / static_cast<double>(std::max<int64_t>(1, options_.cronJobMinute.count()));
  for (const auto& shared : cronJobs) {
    const json::object& cj = *shared;
    if (deleting(cj)) continue;
    const std::string ns = metaOf(cj, "namespace");
    const std::string name = metaOf(cj, "name");
    const auto& spec = obj(cj, "spec");
    const auto& oldStatus = obj(cj, "status");
    auto schedule = CronSchedule::parse(str(spec, "schedule"));
    auto created = api::parseRfc3339(metaOf(cj, "creationTimestamp"));
    if (!schedule || !created) continue;
    CronClock cron{std::chrono::floor<minutes>(*created), factor};
    const auto scheduleNow = cron.toSchedule(clock.now);

    // The Jobs it owns: running ones and finished ones (history).
    std::vector<const json::object*> active, succeededJobs, failedJobs;
    std::string lastSuccessful = str(oldStatus, "lastSuccessfulTime");
    int64_t newestJobMinute = 0;
    for (const json::object* job : controlledBy(jobsByOwner, metaOf(cj, "uid"))) {
      if (deleting(*job)) continue;
      bool ok = false;
      if (!cronJobFinished(*job, &ok)) {
        active.push_back(job);
      } else if (ok) {
        succeededJobs.push_back(job);
        lastSuccessful = std::max(lastSuccessful, str(obj(*job, "status"), "completionTime"));
      } else {
        failedJobs.push_back(job);
      }
      const std::string jobName = metaOf(*job, "name");
      if (jobName.size() > name.size() + 1) {
        try {
          newestJobMinute =
              std::max<int64_t>(newestJobMinute, std::stoll(jobName.substr(name.size() + 1)));
        } catch (const std::exception&) {
        }
      }
    }
    // History limits: the oldest finished Jobs beyond them go (with their pods).
    auto trim = [&](std::vector<const json::object*>& finished, int64_t limit) {
      std::sort(finished.begin(), finished.end(), [](const auto* a, const auto* b) {
        return metaOf(*a, "creationTimestamp") < metaOf(*b, "creationTimestamp") ||
               (metaOf(*a, "creationTimestamp") == metaOf(*b, "creationTimestamp") &&
                metaOf(*a, "name") < metaOf(*b, "name"));
      });
      while (static_cast<int64_t>(finished.size()) > std::max<int64_t>(0, limit)) {
        writes += removeObject(store_, kCronJobJobs, *finished.front());
        finished.erase(finished.begin());
      }
    };
    trim(succeededJobs, num(spec, "successfulJobsHistoryLimit", 3));
    trim(failedJobs, num(spec, "failedJobsHistoryLimit", 1));

    // The most recent scheduled time not yet run: after lastScheduleTime (or the creation time,
    // or the newest Job's minute) and not after now.
    auto lower = cron.toSchedule(*created);
    if (auto last = api::parseRfc3339(str(oldStatus, "lastScheduleTime")))
      lower = std::max(
          lower, std::chrono::sys_seconds(std::chrono::round<minutes>(cron.toSchedule(*last))));
    lower = std::max(lower, std::chrono::sys_seconds(minutes(newestJobMinute)));
    std::optional<std::chrono::sys_seconds> due;
    for (auto t = schedule->next(lower); t <= scheduleNow; t = schedule->next(t)) due = t;
    const auto following = schedule->next(scheduleNow);
    if (following != std::chrono::sys_seconds::max()) clock.wakeAt(cron.toWall(following));

    json::object status = oldStatus;
    const bool suspended = flag(spec, "suspend");
    if (due && !suspended) {
      const std::string policy = str(spec, "concurrencyPolicy");
      const auto* deadline = spec.if_contains("startingDeadlineSeconds");
      const bool tooLate = deadline && deadline->is_int64() &&
                           scheduleNow - *due > std::chrono::seconds(deadline->as_int64());
      const bool forbidden = policy == "Forbid" && !active.empty();
      if (!tooLate && !forbidden) {
        if (policy == "Replace") {
          for (const json::object* job : active) writes += removeObject(store_, kCronJobJobs, *job);
          active.clear();
        }
        const auto scheduledWall = cron.toWall(*due);
        const std::string scheduledText = api::formatRfc3339(scheduledWall);
        const std::string jobName =
            name + "-" +
            std::to_string(std::chrono::duration_cast<minutes>(due->time_since_epoch()).count());
        const auto& jobTemplate = obj(spec, "jobTemplate");
        json::object annotations = obj(obj(jobTemplate, "metadata"), "annotations");
        annotations[kScheduledTimestamp] = scheduledText;
        json::object metadata{
            {"name", jobName},
            {"namespace", ns},
            {"uid", newUid()},
            {"creationTimestamp", api::formatRfc3339(clock.now)},
            {"generation", 1},
            {"annotations", std::move(annotations)},
            {"ownerReferences", json::array{controllerRef(cj, "batch/v1", "CronJob")}}};
        const auto& labels = obj(obj(jobTemplate, "metadata"), "labels");
        if (!labels.empty()) metadata["labels"] = labels;
        json::object job{{"apiVersion", "batch/v1"},
                         {"kind", "Job"},
                         {"metadata", std::move(metadata)},
                         {"spec", obj(jobTemplate, "spec")}};
        // What the API server does to the Job the controller creates.
        applyDefaults("batch", "jobs", job);
        generateJobSelector(job);
        applyDefaults("batch", "jobs", job);
        if (auto written = store_.create({kCronJobJobs, ns, jobName}, std::move(job))) {
          ++writes;
          status["lastScheduleTime"] = scheduledText;
          json::array refs;
          if (const auto* old = oldStatus.if_contains("active"); old && old->is_array())
            for (const auto& r : old->as_array())
              for (const json::object* a : active)
                if (r.is_object() && str(r.as_object(), "uid") == metaOf(*a, "uid"))
                  refs.push_back(r);
          refs.push_back(
              json::object{{"apiVersion", "batch/v1"},
                           {"kind", "Job"},
                           {"name", jobName},
                           {"namespace", ns},
                           {"uid", metaOf(written->object, "uid")},
                           {"resourceVersion", metaOf(written->object, "resourceVersion")}});
          status["active"] = std::move(refs);
          if (!lastSuccessful.empty()) status["lastSuccessfulTime"] = lastSuccessful;
          writes += writeStatus(store_, kCronJobsResource, cj, std::move(status));
          continue;
        }
      }
    }
    // Active references: the ones still running, as recorded when they were created.
    json::array refs;
    if (const auto* old = oldStatus.if_contains("active"); old && old->is_array())
      for (const auto& r : old->as_array())
        for (const json::object* a : active)
          if (r.is_object() && str(r.as_object(), "uid") == metaOf(*a, "uid")) refs.push_back(r);
    for (const json::object* a : active) {
      const bool listed = std::any_of(refs.begin(), refs.end(), [&](const json::value& r) {
        return str(r.as_object(), "uid") == metaOf(*a, "uid");
      });
      if (!listed)
        refs.push_back(json::object{{"apiVersion", "batch/v1"},
                                    {"kind", "Job"},
                                    {"name", metaOf(*a, "name")},
                                    {"namespace", ns},
                                    {"uid", metaOf(*a, "uid")},
                                    {"resourceVersion", metaOf(*a, "resourceVersion")}});
    }
    if (refs.empty())
      status.erase("active");
    else
      status["active"] = std::move(refs);
    if (!lastSuccessful.empty()) status["lastSuccessfulTime"] = lastSuccessful;
    writes += writeStatus(store_, kCronJobsResource, cj, std::move(status));
  }
  return writes;
}

}  // namespace flotilla::sim
