// Namespaces follow their contents (docs/design.md §12): a member namespace Flotilla created
// (annotation flotilla.io/created-namespace) is removed once no binding of that host namespace
// places anything on the member or may still have a copy there, and no Deployment of Flotilla's
// is left in it (replicas a make-before-break move still holds), and only when the member
// namespace holds nothing else among the kinds Flotilla may read there (pods, Deployments,
// ConfigMaps, Secrets, Services, ServiceAccounts, PVCs), so a namespace is never deleted under
// someone's objects. One a member's owner made and let Flotilla use is never removed. Keys are
// namespace names; the sync reconcilers create the namespace with the first object
// (member_namespace.h).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "controllers/common/member_registry.h"
#include "kube/controller/controller.h"

namespace flotilla::controllers::sync {

// On bindings: "<ns>/<cluster>" for every cluster where the binding places its object or may
// still have a copy (dependencies::clustersInUse): whether a member is in use for a namespace is
// a lookup, not a pass over the namespace's bindings.
inline constexpr const char* kInUseIndex = "flotilla.io/in-use";

class NamespaceController final : public kube::Reconciler {
 public:
  // Adds kInUseIndex to `bindings` (before it starts).
  NamespaceController(kube::SharedInformer& bindings, MemberRegistry& members);
  api::Result<kube::ReconcileResult> reconcile(const std::string& ns) override;
  // A binding's clusters or copies changed, or it was created or deleted: its namespace.
  void watch(kube::Controller& controller, kube::SharedInformer& bindings);

 private:
  const kube::SharedInformer& bindings_;
  MemberRegistry& members_;
};

}  // namespace flotilla::controllers::sync
