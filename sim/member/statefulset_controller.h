// A member's StatefulSet controller (kube-controller-manager's, in-process on the Store): pods
// `<name>-<ordinal>` for ordinals spec.ordinals.start .. start+replicas-1 (spec.ordinals only
// when the member's version serves it, v1.27+), created in order (OrderedReady: the next when the
// previous is Running and Ready; Parallel: all at once), deleted from the highest ordinal, a
// PersistentVolumeClaim `<template>-<name>-<ordinal>` per claim template (Bound at once: the sim
// has no storage), rolling updates from the highest ordinal down to the partition, and the status
// `kubectl rollout status` reads (docs/sim.md).
#pragma once

#include <map>
#include <string>

#include "sim/member/member_options.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

class StatefulSetController {
 public:
  StatefulSetController(Store& store, const MemberOptions& options)
      : store_(store), options_(options) {}
  // One pass over every StatefulSet; returns the number of writes.
  int reconcile(PassClock& clock);

 private:
  Store& store_;
  const MemberOptions& options_;
  // By uid: resourceVersions of the set and its pods at a pass that had nothing to do.
  std::map<std::string, std::string> memo_;
};

}  // namespace flotilla::sim
