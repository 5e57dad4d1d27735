// A member's CronJob controller (in-process on the Store): at each time spec.schedule names (UTC;
// spec.timeZone is not read), a Job `<cronjob>-<scheduled time in minutes since the epoch>` from
// spec.jobTemplate, owned by the CronJob and annotated
// batch.kubernetes.io/cronjob-scheduled-timestamp; concurrencyPolicy Allow, Forbid (skip while a
// Job runs) and Replace (delete the running ones), suspend, startingDeadlineSeconds, the history
// limits; status active[], lastScheduleTime, lastSuccessfulTime.
//
// The schedule runs on a clock that MemberOptions::cronJobMinute speeds up: from the CronJob's
// creation minute C, wall time T is schedule time C + (T - C) * 60 s / cronJobMinute. Times the
// CronJob and its Jobs show (lastScheduleTime, the scheduled-timestamp annotation) are wall times;
// Job names use schedule minutes. At 60 s (the default) both clocks are the same.
#pragma once

#include <map>
#include <string>

#include "sim/member/member_options.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

class CronJobController {
 public:
  CronJobController(Store& store, const MemberOptions& options)
      : store_(store), options_(options) {}
  int reconcile(PassClock& clock);

 private:
  Store& store_;
  const MemberOptions& options_;
};

}  // namespace flotilla::sim
