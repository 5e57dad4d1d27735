// The knobs of a member cluster's controllers (serve --member; docs/sim.md).
#pragma once

#include <algorithm>
#include <chrono>

#include "api/time.h"

namespace flotilla::sim {

struct MemberOptions {
  std::chrono::milliseconds readyDelay{1000};  // bound -> Running and Ready
  // At least this long (and at least ten times the last pass's length) between the starts of
  // two passes: under a stream of changes, one pass takes in every change of the interval (as a
  // controller's work queue batches) instead of one pass per change, each of which reads every
  // object. 200 ms: a hundred busy members on two cores still leave the machine to what is being
  // measured (at 50 ms they took three quarters of it), and a pod takes readyDelay to start
  // anyway.
  std::chrono::milliseconds minPassInterval{200};
  // A Job's pod runs this long after it turned Running, then succeeds (or fails, see
  // job_controller.h); a Job's annotation sim.flotilla.io/run-seconds overrides it.
  std::chrono::milliseconds jobPodRunTime{3000};
  // How long one CronJob schedule minute lasts: 60 s is real time; 2 s runs `*/5 * * * *` every
  // 10 s (cronjob_controller.h).
  std::chrono::milliseconds cronJobMinute{60'000};
  // The Kubernetes minor version the member claims (serve --version): features gated on it
  // (StatefulSet spec.ordinals from 27, the apps.kubernetes.io/pod-index label from 28).
  int minorVersion = 32;
};

// One pass's time and the earliest moment a controller wants the next pass (a pod due to finish,
// a CronJob due to run).
struct PassClock {
  api::Clock::time_point now;
  api::Clock::time_point due = api::Clock::time_point::max();
  void wakeAt(api::Clock::time_point at) { due = std::min(due, at); }
};

}  // namespace flotilla::sim
