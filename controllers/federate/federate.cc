#include "controllers/federate/federate.h"

#include <algorithm>
#include <string_view>

#include "api/json_codec.h"
#include "controllers/common/finalizers.h"
#include "controllers/common/managed.h"
#include "controllers/federate/intent.h"
#include "interpreter/dependencies.h"

namespace flotilla::controllers::federate {
namespace {

constexpr std::string_view kFlotillaPrefix = "flotilla.io/";
constexpr const char* kLastApplied = "kubectl.kubernetes.io/last-applied-configuration";

// flotilla.io/followers stays: it names what the workload needs (docs/design.md §12), read from the
// template as from any other reference.
bool flotillaKey(const std::string& key) {
  return key.starts_with(kFlotillaPrefix) && key != interpreter::kFollowersAnnotation;
}

bool controlledBy(const api::FederatedDeployment& fd, const std::string& uid) {
  for (const auto& ref : fd.metadata.ownerReferences) {
    if (ref.controller.value_or(false) && ref.uid == uid) return true;
  }
  return false;
}

std::string key(const api::ObjectMeta& meta) { return meta.namespace_ + "/" + meta.name; }

// The template: what member clusters will run. Flotilla's own labels and annotations stay on the
// host (they name host policies), and last-applied-configuration describes the host object, not
// the members' (kubectl apply against a member would compute a wrong three-way merge from it).
api::DeploymentTemplate templateOf(const api::Deployment& deployment) {
  api::DeploymentTemplate t;
  for (const auto& [k, v] : deployment.metadata.labels) {
    if (!flotillaKey(k)) t.metadata.labels.emplace(k, v);
  }
  for (const auto& [k, v] : deployment.metadata.annotations) {
    if (!flotillaKey(k) && k != kLastApplied) t.metadata.annotations.emplace(k, v);
  }
  t.spec = deployment.spec;
  return t;
}

api::OwnerReference ownerRef(const api::Deployment& deployment) {
  return {.apiVersion = "apps/v1",
          .kind = "Deployment",
          .name = deployment.metadata.name,
          .uid = deployment.metadata.uid,
          .controller = true,
          .blockOwnerDeletion = true};
}

// Sets what the Deployment dictates on `fd`, leaving everything else (overrides, status,
// resourceVersion, other annotations, finalizers) as it is.
void apply(api::FederatedDeployment& fd, const api::Deployment& deployment,
           const std::string& policyValue) {
  fd.metadata.name = deployment.metadata.name;
  fd.metadata.namespace_ = deployment.metadata.namespace_;
  // All labels, flotilla.io/ ones included: policies select the FederatedDeployment (binding
  // controller) by the same labels they selected the Deployment by.
  fd.metadata.labels = deployment.metadata.labels;
  fd.metadata.annotations[kPolicyAnnotation] = policyValue;
  fd.metadata.ownerReferences = {ownerRef(deployment)};
  fd.spec.template_ = templateOf(deployment);
  fd.metadata.annotations[kSourceGenerationAnnotation] =
      std::to_string(deployment.metadata.generation);
  // Created with the sync controller's finalizer: member Deployments go before it does, and
  // no extra write is needed to add it later.
  if (!hasFinalizer(fd.metadata, kCleanupFinalizer)) {
    fd.metadata.finalizers.push_back(kCleanupFinalizer);
  }
}

}  // namespace

policy::Workload workloadOf(const api::Deployment& deployment) {
  // Always apps/v1 Deployment: objects from list responses may lack apiVersion and kind.
  return {.apiVersion = "apps/v1",
          .kind = "Deployment",
          .ns = deployment.metadata.namespace_,
          .name = deployment.metadata.name,
          .labels = deployment.metadata.labels};
}

FederateDecision decideFederated(const api::Deployment& deployment,
                                 const api::FederatedDeployment* existing,
                                 const policy::Resolution& resolution, bool claimedPolicyExists) {
  FederateDecision out;
  // Garbage collection removes the FederatedDeployment through its owner reference.
  if (deployment.metadata.deletionTimestamp) return out;

  const bool owned = existing && controlledBy(*existing, deployment.metadata.uid);
  const std::string* claimed = nullptr;
  if (existing) {
    auto it = existing->metadata.annotations.find(kPolicyAnnotation);
    if (it != existing->metadata.annotations.end()) claimed = &it->second;
  }
  const Intent intent = intentOf(resolution, owned, claimed, claimedPolicyExists);
  out.refusal = intent.refusal;

  // Being deleted (its finalizer is cleaning the members): nothing to write until it is gone.
  if (existing && existing->metadata.deletionTimestamp) return out;

  decideWrite(
      out, existing, owned, intent,
      [&] {
        return "FederatedDeployment " + key(existing->metadata) +
               " exists and is not controlled by Deployment " + key(deployment.metadata) +
               "; leaving it alone";
      },
      [&](api::FederatedDeployment& fd) { apply(fd, deployment, intent.policyValue); });
  return out;
}

}  // namespace flotilla::controllers::federate
