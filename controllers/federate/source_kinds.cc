#include "controllers/federate/source_kinds.h"

#include "api/validation.h"

namespace flotilla::controllers::federate {

namespace {

void addSelected(const std::vector<api::ResourceSelector>& selectors, std::set<KindKey>& out) {
  for (const auto& s : selectors) {
    if (s.apiVersion.empty() || s.kind.empty()) continue;
    if (s.apiVersion == "apps/v1" && s.kind == "Deployment") continue;
    if (api::neverPropagated(s.apiVersion, s.kind)) continue;
    out.insert({s.apiVersion, s.kind});
  }
}

}  // namespace

std::set<KindKey> kindsNamed(const std::vector<api::PropagationPolicy>& policies,
                             const std::vector<api::ClusterPropagationPolicy>& clusterPolicies) {
  std::set<KindKey> out;
  for (const auto& p : policies) addSelected(p.spec.resourceSelectors, out);
  for (const auto& p : clusterPolicies) addSelected(p.spec.resourceSelectors, out);
  return out;
}

}  // namespace flotilla::controllers::federate
