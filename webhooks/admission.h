// The operator's admission decisions for every flotilla.io kind (docs/design.md §6): validation
// with every field error, defaulting as a JSONPatch of exactly the defaults of docs/design.md §3,
// and the checks that read the cluster (a SchedulingProfile's plugins must build; a policy
// naming a missing profile is admitted with a warning; an override policy's selectors are asked
// of the host's discovery afterwards: AdmissionResponse::servedQuestions). Pure: requests in,
// responses out; the cluster is read through ClusterView.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "webhooks/admission_review.h"

namespace flotilla::webhooks {

// What admission may read of the host cluster (the operator's informer caches).
class ClusterView {
 public:
  virtual ~ClusterView() = default;
  // nullopt when not known yet (caches not synced): no warning is given then.
  virtual std::optional<bool> schedulingProfileExists(const std::string& name) const = 0;
};

// One endpoint: kubebuilder's /validate-flotilla-io-v1alpha1-<kind> and
// /mutate-flotilla-io-v1alpha1-<kind> (kind in lower case).
struct Route {
  std::string kind;  // "PropagationPolicy"
  bool mutating = false;
};
std::optional<Route> routeFor(std::string_view path);
std::string pathFor(const Route& route);
// Every kind with webhooks, in a fixed order.
const std::vector<std::string>& admittedKinds();

// Answers one request at one endpoint. Never throws on any input.
AdmissionResponse admit(const Route& route, const AdmissionRequest& request,
                        const ClusterView& cluster);

}  // namespace flotilla::webhooks
