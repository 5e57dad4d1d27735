#include "sim/member/job_controller.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <vector>

#include "sim/member/workload_util.h"
#include "sim/server/defaults.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

const std::string kJobsResource = "batch/jobs";
const std::string kJobPods = "/pods";
constexpr const char* kCompletionIndex = "batch.kubernetes.io/job-completion-index";

// The Job (or its pod template) asks its pods to fail: kFailAnnotation, or a non-zero
// kExitCodeAnnotation on the pod.
bool jobShouldFail(const json::object& job, const json::object& pod) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  const std::string exitCode = annotation(pod, kExitCodeAnnotation);
  return annotation(job, kFailAnnotation) == "true" || annotation(pod, kFailAnnotation) == "true" ||
         (!exitCode.empty() && exitCode != "0");
}

// "1,3-5,7": kube's compressed list of completed indexes.
std::string compressIndexes(const std::set<int64_t>& indexes) {
  std::string out;
  for (auto it = indexes.begin(); it != indexes.end();) {
    int64_t first = *it, last = *it;
    for (++it; it != indexes.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last > first) out += "-" + std::to_string(last);
  }
  return out;
}

json::object terminatedState(int64_t exitCode, const std::string& startedAt,
                             const std::string& finishedAt) {
  return json::object{{"terminated", json::object{{"exitCode", exitCode},
                                                  {"reason", exitCode == 0 ? "Completed" : "Error"},
                                                  {"startedAt", startedAt},
                                                  {"finishedAt", finishedAt}}}};
}

}  // namespace

int JobController::finishPods(PassClock& clock) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  int writes = 0;
  const std::string now = api::formatRfc3339(clock.now);
  std::map<std::string, std::shared_ptr<const json::object>> jobsByUid;
  for (const auto& job : store_.listShared(kJobsResource, "")) jobsByUid[metaOf(*job, "uid")] = job;
  if (jobsByUid.empty()) return 0;
  const Shared pods = store_.listShared(kJobPods, "");
  for (const auto& [uid, list] : byController(pods)) {
    auto job = jobsByUid.find(uid);
    if (job == jobsByUid.end()) continue;
    std::chrono::milliseconds runTime = options_.jobPodRunTime;
    if (const std::string seconds = annotation(*job->second, kRunSecondsAnnotation);
        !seconds.empty()) {
      try {
        runTime = std::chrono::milliseconds(static_cast<int64_t>(std::stod(seconds) * 1000));
      } catch (const std::exception&) {
      }
    }
    for (const json::object* p : list) {
      const auto& status = obj(*p, "status");
      if (str(status, "phase") != "Running" || deleting(*p)) continue;
      // The run starts when the containers did (the last restart for a restarted container).
      std::string startedAt = str(status, "startTime");
      int64_t restarts = 0;
      if (const auto* cs = status.if_contains("containerStatuses"); cs && cs->is_array())
        for (const auto& c : cs->as_array()) {
          if (!c.is_object()) continue;
          restarts = std::max(restarts, num(c.as_object(), "restartCount", 0));
          const std::string running = str(obj(obj(c.as_object(), "state"), "running"), "startedAt");
          if (!running.empty()) startedAt = std::max(startedAt, running);
        }
      auto started = api::parseRfc3339(startedAt);
      if (!started) continue;
      const auto end = *started + runTime;
      if (clock.now < end) {
        clock.wakeAt(end);
        continue;
      }
      const bool fail = jobShouldFail(*job->second, *p);
      const bool restartInPlace = fail && str(obj(*p, "spec"), "restartPolicy") == "OnFailure";
      json::object next = *p;
      auto& nextStatus = next["status"].as_object();
      json::array containers;
      if (const auto* cs = status.if_contains("containerStatuses"); cs && cs->is_array())
        for (const auto& c : cs->as_array()) {
          if (!c.is_object()) continue;
          json::object entry = c.as_object();
          if (restartInPlace) {
            // The kubelet restarts the failed container: the pod stays Running.
            entry["lastState"] = terminatedState(1, startedAt, now);
            entry["restartCount"] = num(entry, "restartCount", 0) + 1;
            entry["state"] = json::object{{"running", json::object{{"startedAt", now}}}};
          } else {
            entry["state"] = terminatedState(fail ? 1 : 0, startedAt, now);
            entry["ready"] = false;
            entry["started"] = false;
          }
          containers.push_back(std::move(entry));
        }
      nextStatus["containerStatuses"] = std::move(containers);
      if (!restartInPlace) {
        nextStatus["phase"] = fail ? "Failed" : "Succeeded";
        json::array conditions;
        if (const auto* cs = status.if_contains("conditions"); cs && cs->is_array())
          for (const auto& c : cs->as_array()) {
            if (!c.is_object()) continue;
            json::object condition = c.as_object();
            const std::string type = str(condition, "type");
            if (type == "Ready" || type == "ContainersReady") {
              condition["status"] = "False";
              condition["reason"] = "PodCompleted";
              condition["lastTransitionTime"] = now;
            }
            conditions.push_back(std::move(condition));
          }
        nextStatus["conditions"] = std::move(conditions);
      }
      (void)restarts;
      if (store_.update({kJobPods, metaOf(*p, "namespace"), metaOf(*p, "name")}, std::move(next),
                        resourceVersionOf(*p)))
        ++writes;
    }
  }
  return writes;
}

int JobController::reconcile(PassClock& clock) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  int writes = finishPods(clock);
  const std::string now = api::formatRfc3339(clock.now);
  // (The pods are read only for a member that runs Jobs: a pass of one that does not costs
  // nothing here.)
  const Shared jobs = store_.listShared(kJobsResource, "");
  if (jobs.empty()) {
    memo_.clear();
    return writes;
  }
  const Shared pods = store_.listShared(kJobPods, "");
  const auto podsByOwner = byController(pods);
  std::map<std::string, std::string> memo;
  for (const auto& shared : jobs) {
    const json::object& job = *shared;
    if (deleting(job)) continue;
    const std::string ns = metaOf(job, "namespace");
    const std::string name = metaOf(job, "name");
    const std::string uid = metaOf(job, "uid");
    const auto& owned = controlledBy(podsByOwner, uid);
    std::string signature = metaOf(job, "resourceVersion");
    for (const json::object* p : owned) signature += "," + metaOf(*p, "resourceVersion");
    if (auto it = memo_.find(uid); it != memo_.end() && it->second == signature) {
      memo[uid] = std::move(signature);
      continue;
    }
    const int before = writes;
    const auto& spec = obj(job, "spec");
    const auto& oldStatus = obj(job, "status");
    const bool finished =
        conditionIs(oldStatus, "Complete", "True") || conditionIs(oldStatus, "Failed", "True");
    const bool indexed = str(spec, "completionMode") == "Indexed";
    const auto* completionsValue = spec.if_contains("completions");
    const bool hasCompletions = completionsValue && completionsValue->is_number();
    const int64_t completions = hasCompletions ? num(spec, "completions", 1) : -1;
    const int64_t parallelism = num(spec, "parallelism", 1);
    const int64_t backoffLimit = num(spec, "backoffLimit", 6);
    const bool suspended = flag(spec, "suspend");
    const bool onFailure = str(obj(obj(spec, "template"), "spec"), "restartPolicy") == "OnFailure";

    std::vector<const json::object*> active;
    int64_t succeeded = 0, failed = 0, ready = 0, restarts = 0;
    std::set<int64_t> completedIndexes, activeIndexes;
    for (const json::object* p : owned) {
      const std::string phase = str(obj(*p, "status"), "phase");
      int64_t index = -1;
      if (indexed) {
        try {
          index = std::stoll(annotation(*p, kCompletionIndex));
        } catch (const std::exception&) {
        }
      }
      if (phase == "Succeeded") {
        ++succeeded;
        if (index >= 0) completedIndexes.insert(index);
      } else if (phase == "Failed") {
        ++failed;
      } else if (!deleting(*p)) {
        active.push_back(p);
        if (index >= 0) activeIndexes.insert(index);
        ready += podReady(*p) ? 1 : 0;
        if (const auto* cs = obj(*p, "status").if_contains("containerStatuses");
            cs && cs->is_array())
          for (const auto& c : cs->as_array())
            if (c.is_object()) restarts += num(c.as_object(), "restartCount", 0);
      }
    }
    if (indexed) succeeded = static_cast<int64_t>(completedIndexes.size());

    json::object status = oldStatus;
    bool complete = false, failedNow = false;
    if (!finished) {
      if (indexed || hasCompletions) {
        complete = succeeded >= completions;
      } else {
        // A work queue: done once one pod succeeded and none is active.
        complete = succeeded > 0 && active.empty();
      }
      failedNow =
          !complete && (onFailure ? (backoffLimit == 0 ? restarts > 0 : restarts >= backoffLimit)
                                  : failed > backoffLimit);
      if (complete || failedNow || suspended) {
        // Active pods go (the Job is done, failed, or suspended).
        for (const json::object* p : active)
          writes += store_.remove({kJobPods, ns, metaOf(*p, "name")}, std::nullopt) ? 1 : 0;
        active.clear();
        activeIndexes.clear();
        ready = 0;
      } else {
        // Create pods up to parallelism, never more than the completions left.
        int64_t want = parallelism;
        if (hasCompletions || indexed)
          want = std::min(want, completions - succeeded);
        else if (succeeded > 0)
          want = 0;  // a work queue with a success starts no more pods
        int64_t missing = want - static_cast<int64_t>(active.size());
        int64_t nextIndex = 0;
        for (; missing > 0; --missing) {
          std::string podName, generateName;
          json::object podTemplate = obj(spec, "template");
          json::object labels = obj(obj(podTemplate, "metadata"), "labels");
          if (indexed) {
            while (completedIndexes.count(nextIndex) || activeIndexes.count(nextIndex)) ++nextIndex;
            if (nextIndex >= completions) break;
            generateName = name + "-" + std::to_string(nextIndex) + "-";
            labels[kCompletionIndex] = std::to_string(nextIndex);
            auto& templateMeta = podTemplate["metadata"];
            if (!templateMeta.is_object()) templateMeta = json::object{};
            auto& annotations = templateMeta.as_object()["annotations"];
            if (!annotations.is_object()) annotations = json::object{};
            annotations.as_object()[kCompletionIndex] = std::to_string(nextIndex);
            activeIndexes.insert(nextIndex);
          } else {
            generateName = name + "-";
          }
          podName = generateName + randomNameSuffix();
          json::object pod =
              podFromTemplate(podTemplate, ns, podName, generateName, std::move(labels),
                              controllerRef(job, "batch/v1", "Job"), now);
          if (indexed) {
            // The pod's hostname is `<job>-<index>` (the Job controller sets it for Indexed Jobs).
            pod["spec"].as_object()["hostname"] = name + "-" + std::to_string(nextIndex);
          }
          if (store_.create({kJobPods, ns, podName}, std::move(pod))) {
            ++writes;
            active.push_back(nullptr);  // counted, Pending (not ready)
          }
        }
      }
    }
    // Status (kube-controller-manager v1.32: ready and terminating always, the counters when
    // non-zero, uncountedTerminatedPods empty).
    auto setCount = [&](const char* key, int64_t value) {
      if (value > 0)
        status[key] = value;
      else
        status.erase(key);
    };
    if (!finished) {
      setCount("active", static_cast<int64_t>(active.size()));
      setCount("succeeded", succeeded);
      setCount("failed", failed);
      status["ready"] = ready;
      status["terminating"] = 0;
      status["uncountedTerminatedPods"] = json::object{};
      if (str(status, "startTime").empty() && !suspended) status["startTime"] = now;
      if (indexed) {
        if (completedIndexes.empty())
          status.erase("completedIndexes");
        else
          status["completedIndexes"] = compressIndexes(completedIndexes);
      }
      json::array conditions;
      if (const auto* cs = oldStatus.if_contains("conditions"); cs && cs->is_array())
        for (const auto& c : cs->as_array())
          if (c.is_object() && str(c.as_object(), "type") != "Suspended") conditions.push_back(c);
      if (suspended)
        conditions.push_back(makeCondition(oldStatus, "Suspended", "True", "JobSuspended",
                                           "Job suspended", now, true));
      else if (conditionOf(oldStatus, "Suspended"))
        conditions.push_back(
            makeCondition(oldStatus, "Suspended", "False", "JobResumed", "Job resumed", now, true));
      if (complete) {
        const char* message = "Reached expected number of succeeded pods";
        conditions.push_back(makeCondition(oldStatus, "SuccessCriteriaMet", "True",
                                           "CompletionsReached", message, now, true));
        conditions.push_back(
            makeCondition(oldStatus, "Complete", "True", "CompletionsReached", message, now, true));
        status["completionTime"] = now;
      } else if (failedNow) {
        const char* message = "Job has reached the specified backoff limit";
        conditions.push_back(makeCondition(oldStatus, "FailureTarget", "True",
                                           "BackoffLimitExceeded", message, now, true));
        conditions.push_back(
            makeCondition(oldStatus, "Failed", "True", "BackoffLimitExceeded", message, now, true));
      }
      if (conditions.empty())
        status.erase("conditions");
      else
        status["conditions"] = std::move(conditions);
    }
    writes += writeStatus(store_, kJobsResource, job, std::move(status));
    if (writes == before) memo[uid] = std::move(signature);
  }
  memo_ = std::move(memo);
  return writes;
}

}  // namespace flotilla::sim
