// Validation and defaulting of every flotilla.io kind: pure functions on the typed objects,
// returning field-path errors. They back the admission webhooks and `flotillactl validate`, so
// offline and online checks agree. Rules and defaults are listed in docs/api-reference.md.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/flotilla_types.h"
#include "api/override_types.h"

namespace flotilla::api {

FieldErrors validate(const FederatedCluster& cluster);
FieldErrors validate(const PropagationPolicy& policy);
FieldErrors validate(const ClusterPropagationPolicy& policy);
FieldErrors validate(const OverridePolicy& policy);
FieldErrors validate(const ClusterOverridePolicy& policy);
FieldErrors validate(const FederatedDeployment& workload);
FieldErrors validate(const ResourceBinding& binding);
FieldErrors validate(const FederatedObject& object);
FieldErrors validate(const ClusterFederatedObject& object);
FieldErrors validate(const ClusterResourceBinding& binding);
FieldErrors validate(const SchedulingProfile& profile);
FieldErrors validate(const SchedulerExtender& extender);
// Native objects that appear beside ours in manifests (name rules and the fields we read).
FieldErrors validate(const Deployment& deployment);

// Why objects of this kind (or this object) are never propagated (docs/operator.md: Flotilla's own
// kinds, Events, Leases, Endpoints and EndpointSlices, Nodes, ServiceAccount token Secrets), or
// nullopt when they may be. Reserved namespaces are the policy resolver's.
std::optional<std::string> neverPropagated(std::string_view apiVersion, std::string_view kind,
                                           const boost::json::object* object = nullptr);

// The placement rules shared by policies and bindings, reported under `path`.
FieldErrors validatePlacement(const Placement& placement, const std::string& path);

// Defaults of docs/design.md §3 (documented in docs/api-reference.md). Idempotent.
void setDefaults(FederatedCluster& cluster);
void setDefaults(PropagationPolicy& policy);
void setDefaults(ClusterPropagationPolicy& policy);
void setDefaults(FederatedDeployment& workload);
void setDefaults(ResourceBinding& binding);
void setDefaults(FederatedObject& object);
void setDefaults(ClusterFederatedObject& object);
void setDefaults(ClusterResourceBinding& binding);
void setDefaults(SchedulingProfile& profile);
void setDefaults(SchedulerExtender& extender);
void setDefaults(OverridePolicy& policy);         // (nothing to default)
void setDefaults(ClusterOverridePolicy& policy);  // (nothing to default)
// `type`: replicaScheduling.type when the placement leaves it out (a binding: the selected kind's
// default, interpreter::Interpreter::defaultScheduling); null leaves it out (a policy, which may
// select kinds of different defaults).
void setDefaults(Placement& placement, const char* type = "Divided");

// The namespace Flotilla's own objects (member credentials) live in by default.
inline constexpr const char* kSystemNamespace = "flotilla-system";

}  // namespace flotilla::api
