// A member's Job controller and the part of the kubelet that ends a Job's pods (in-process on
// the Store). Pods `<job>-<5 chars>` (Indexed: `<job>-<index>-<5 chars>`, with the
// batch.kubernetes.io/job-completion-index annotation and label), up to spec.parallelism and never
// more than the completions left; the member's binder and kubelet stand-in run them; a Running pod
// ends after MemberOptions::jobPodRunTime (annotation kRunSecondsAnnotation on the Job
// overrides it): Succeeded, or Failed (restartPolicy Never) / restarted in place (OnFailure) when
// the Job or its pod template has kFailAnnotation "true". Status and conditions as a v1.32
// kube-controller-manager writes them (SuccessCriteriaMet then Complete; FailureTarget then
// Failed with BackoffLimitExceeded). docs/sim.md, "Jobs".
#pragma once

#include <map>
#include <string>

#include "sim/member/member_options.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

inline constexpr const char* kRunSecondsAnnotation = "sim.flotilla.io/run-seconds";
inline constexpr const char* kFailAnnotation = "sim.flotilla.io/fail";
// A pod whose containers exit with this code (not "0") fails: the kubelet stand-in of the
// real-cluster harness the e2e suites also run against (docs/development.md) reads the same
// annotation, so a suite says once what fails on both.
inline constexpr const char* kExitCodeAnnotation = "kubelet-stub.flotilla.io/exit-code";

class JobController {
 public:
  JobController(Store& store, const MemberOptions& options) : store_(store), options_(options) {}
  int reconcile(PassClock& clock);

 private:
  // Ends the Job's running pods whose time is up; returns writes.
  int finishPods(PassClock& clock);

  Store& store_;
  const MemberOptions& options_;
  std::map<std::string, std::string> memo_;
};

}  // namespace flotilla::sim
