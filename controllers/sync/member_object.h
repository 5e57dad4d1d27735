// What the sync controller puts on a member: the member Deployment desired for one target cluster,
// and whether a live member object already holds it. Pure functions on JSON.
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "api/flotilla_types.h"
#include "api/result.h"
#include "controllers/override/overriders.h"

namespace flotilla::controllers::sync {

// The field manager of every server-side apply Flotilla makes on members.
inline constexpr const char* kFieldManager = "flotilla";
// Hash of the applied configuration: a template change that removes a field (which a subset
// comparison cannot see) changes it.
inline constexpr const char* kAppliedHashAnnotation = "flotilla.io/applied-hash";

// The member Deployment for `cluster`: the FederatedDeployment's template (labels, annotations,
// spec verbatim) with `replicas`, the OverridePolicy rules for that cluster (`rules`, in order:
// docs/design.md §14; what they did in `overrides` when given), that cluster's own overrides
// (RFC 6902) applied in order, then
// Flotilla's marks (managed-by and binding labels, host and cluster labels on the Deployment
// only — on the pod template they would restart every pod when they change —, binding and
// source-generation annotations, applied hash), which no override can remove. A patch that cannot
// be applied is an error naming the patch, its JSON pointer and the reason. `hostId` "" leaves
// the host label out (tests of other marks).
api::Result<boost::json::object> desiredMemberDeployment(
    const api::FederatedDeployment& fd, const std::string& bindingKey, const std::string& cluster,
    int32_t replicas, const std::string& hostId = "",
    const std::vector<override::RuleRef>& rules = {},
    override::OverrideResult* overrides = nullptr);

// Removes from `object` the annotations Flotilla reads on member copies to decide what they are
// (adopted, released: object_plan.h) unless Flotilla sets them itself afterwards: neither a
// template nor an override may make a copy look adopted (never deleted) or released.
void clearReservedAnnotations(boost::json::object& object);

// Records `policies` (the OverridePolicies that changed `object`) in its
// flotilla.io/applied-overrides annotation, or removes the annotation when there are none.
void setAppliedOverrides(boost::json::object& object, const std::vector<std::string>& policies);

// `object` with the RFC 6902 patches of `cluster`'s overrides applied in order; a patch that
// cannot be applied is an error naming the patch, its JSON pointer and the reason.
api::Result<boost::json::object> applyOverrides(boost::json::object object,
                                                const std::vector<api::ClusterOverride>& overrides,
                                                const std::string& cluster);
// Flotilla's marks on a member object (controllers/common/managed.h): managed-by, binding, cluster
// and host labels; binding and source-generation annotations; and, last, the applied hash (of the
// object with every other mark: a template change that removes a field changes it).
void markMemberObject(boost::json::object& object, const std::string& bindingKey,
                      const std::string& cluster, const std::string& hostId,
                      const std::string& sourceGeneration);

// The member Namespace Flotilla creates for host namespace `hostNamespace` (docs/security.md,
// H3): its name, Flotilla's managed-by label, and the host namespace's Pod Security admission
// labels (pod-security.kubernetes.io/*), so the member's admission enforces on the pods what the
// host's would have. Other labels and annotations stay on the host.
boost::json::object memberNamespace(const boost::json::object& hostNamespace);
// Whether a member Namespace may hold Flotilla's objects: Flotilla made it, or its owner on the
// member labelled it flotilla.io/managed-by=flotilla.
bool flotillaNamespace(const boost::json::object& memberNamespace);

// Whether `live` already holds every field `desired` sets, with the same values (fields the
// server defaulted or other managers own are ignored; quantities compare by value: "0.5" holds
// "500m"). Lists must have the same length and hold element by element.
bool holds(const boost::json::value& live, const boost::json::value& desired);
// Where `live` first fails to hold `desired` ("spec.template.spec.containers[0].image"), or "".
std::string difference(const boost::json::value& live, const boost::json::value& desired);

}  // namespace flotilla::controllers::sync
