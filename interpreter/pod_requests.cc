#include "interpreter/pod_requests.h"

#include "api/json_codec.h"

namespace flotilla::interpreter {

void addResources(api::ResourceList& a, const api::ResourceList& b) {
  for (const auto& [name, q] : b) a[name] += q;
}

api::ResourceList podRequests(const api::PodSpec& spec) {
  api::ResourceList sum;
  for (const auto& c : spec.containers) addResources(sum, c.resources.requests);
  // Init containers run one at a time before the app containers: the pod needs the largest of
  // them, or the app containers' sum, whichever is bigger (per resource).
  for (const auto& c : spec.initContainers) {
    for (const auto& [name, q] : c.resources.requests) {
      auto it = sum.find(name);
      if (it == sum.end() || it->second < q) sum[name] = q;
    }
  }
  // spec.overhead (set by RuntimeClass admission) is added on top.
  if (const auto* overhead = spec.unknownFields.if_contains("overhead")) {
    if (auto list = api::decode<api::ResourceList>(*overhead)) addResources(sum, *list);
  }
  for (auto it = sum.begin(); it != sum.end();) {
    it = it->second.isZero() ? sum.erase(it) : std::next(it);
  }
  return sum;
}

api::ReplicaRequirements replicaRequirements(const api::PodTemplateSpec& pod) {
  return {.resourceRequest = podRequests(pod.spec),
          .nodeSelector = pod.spec.nodeSelector,
          .tolerations = pod.spec.tolerations};
}

}  // namespace flotilla::interpreter
