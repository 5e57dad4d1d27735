// A member's HorizontalPodAutoscaler controller (autoscaling/v2, in-process on the Store). The
// sim has no metrics: the desired count is the annotation kDesiredReplicasAnnotation a test sets
// on the HPA, clamped to [minReplicas, maxReplicas]; without it the target keeps its replicas,
// clamped to the range (as the real controller does before it reads metrics). The target's
// spec.replicas (Deployment or StatefulSet) is written as the real controller writes it, through
// the scale subresource: manager kube-controller-manager, operation Update, subresource scale.
// docs/sim.md, "HorizontalPodAutoscalers".
#pragma once

#include <string>

#include "sim/member/member_options.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

inline constexpr const char* kDesiredReplicasAnnotation = "sim.flotilla.io/desired-replicas";

class HpaController {
 public:
  HpaController(Store& store, const MemberOptions& options) : store_(store), options_(options) {}
  int reconcile(PassClock& clock);

 private:
  Store& store_;
  const MemberOptions& options_;
};

}  // namespace flotilla::sim
