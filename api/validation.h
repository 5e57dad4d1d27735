// Validation and defaulting of every flotilla.io kind: pure functions on the typed objects,
// returning field-path errors. They back the admission webhooks and `flotillactl validate`, so
// offline and online checks agree. Rules and defaults are listed in docs/api-reference.md.
#pragma once

#include "api/flotilla_types.h"

namespace flotilla::api {

FieldErrors validate(const FederatedCluster& cluster);
FieldErrors validate(const PropagationPolicy& policy);
FieldErrors validate(const ClusterPropagationPolicy& policy);
FieldErrors validate(const FederatedDeployment& workload);
FieldErrors validate(const ResourceBinding& binding);
FieldErrors validate(const SchedulingProfile& profile);
FieldErrors validate(const SchedulerExtender& extender);
// Native objects that appear beside ours in manifests (name rules and the fields we read).
FieldErrors validate(const Deployment& deployment);

// The placement rules shared by policies and bindings, reported under `path`.
FieldErrors validatePlacement(const Placement& placement, const std::string& path);

// Defaults of docs/design.md §3 (documented in docs/api-reference.md). Idempotent.
void setDefaults(FederatedCluster& cluster);
void setDefaults(PropagationPolicy& policy);
void setDefaults(ClusterPropagationPolicy& policy);
void setDefaults(FederatedDeployment& workload);
void setDefaults(ResourceBinding& binding);
void setDefaults(SchedulingProfile& profile);
void setDefaults(SchedulerExtender& extender);
void setDefaults(Placement& placement);

// The namespace Flotilla's own objects (member credentials) live in by default.
inline constexpr const char* kSystemNamespace = "flotilla-system";

}  // namespace flotilla::api
