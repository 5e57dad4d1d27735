// What the sync controller does with one member cluster for a federated object of any kind
// (docs/design.md §11): the object the member should hold, and the step that gets it there.
// Pure functions on JSON, tested by tables (object_plan_test.cc).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "api/flotilla_types.h"
#include "api/result.h"
#include "controllers/override/overriders.h"
#include "interpreter/interpreter.h"

namespace flotilla::controllers::sync {

// Set on a member object Flotilla took over under conflictResolution: Adopt. It is left in place
// when the source goes or the cluster is no longer targeted: it was there before Flotilla.
inline constexpr const char* kAdoptedAnnotation = "flotilla.io/adopted";

// The member object for `cluster`: the template, with the cluster's share of the replicas when the
// object has replicas (`share`, null: the template's own), the OverridePolicy rules for that
// cluster (`rules`, in order: docs/design.md §14), the object's own spec.overrides for it, then
// Flotilla's marks (which no override removes: the applied-overrides annotation among them) and,
// when `adopted`, the adopted annotation. `note`, when given: what the division could not do on
// that cluster (Interpreter::reviseReplicas), else empty. `overrides`, when given: what the rules
// did. A rule's jsonPatch that cannot apply is an error naming the policy, rule and path.
api::Result<boost::json::object> desiredMemberObject(const api::FederatedObject& fo,
                                                     const interpreter::Interpreter& interpreter,
                                                     const std::string& bindingKey,
                                                     const std::string& cluster,
                                                     const interpreter::Share* share,
                                                     const std::string& hostId, bool adopted,
                                                     std::string* note = nullptr,
                                                     const std::vector<override::RuleRef>& rules = {},
                                                     override::OverrideResult* overrides = nullptr);

enum class MemberStep {
  kNone,      // nothing to write (in sync, or nothing of ours there)
  kApply,     // server-side apply of the desired object
  kConflict,  // an object Flotilla does not manage is in the way: untouched, reported
  kDelete,    // ours, no longer wanted there
  kRelease,   // ours, no longer wanted there, of a kind kept on members (a CRD): Flotilla's
              // marks are removed and the object left to the member (releasePatch)
};

struct MemberPlan {
  MemberStep step = MemberStep::kNone;
  bool adopt = false;   // kApply: taking over an object Flotilla did not make
  std::string message;  // kConflict: why
};

struct MemberInput {
  bool targeted = false;
  const boost::json::object* desired = nullptr;  // targeted: what the member should hold
  const boost::json::object* live = nullptr;     // what it holds; null: nothing of that name
  std::string bindingKey;
  std::string hostId;
  bool adoptAllowed = false;  // the policy's conflictResolution is Adopt
  // Set for a kind Flotilla does not adopt (Deployments, docs/decisions.md): why, told in the
  // Conflict message instead of the Adopt hint.
  const char* notAdopted = nullptr;
  // The kind's copies are never deleted by a placement (its reason: Interpreter::
  // keptWhenUnfollowed), only released; and a copy this binding released is taken back.
  const char* keptWhenUnfollowed = nullptr;
};

// On a member object Flotilla released (MemberStep::kRelease): the binding and host it was
// released by, and its metadata.generation then. The same binding of the same host targeting
// that cluster again takes it back (applies it, so it is Flotilla's again) while the object is
// as it was left (same generation) and no other controller controls it; anything else of that
// name is a Conflict.
inline constexpr const char* kReleasedByAnnotation = "flotilla.io/released-by";
inline constexpr const char* kReleasedHostAnnotation = "flotilla.io/released-host";
inline constexpr const char* kReleasedGenerationAnnotation = "flotilla.io/released-generation";
// A JSON merge patch removing Flotilla's marks (managed.h) from `live` and recording the release.
std::string releasePatch(const boost::json::object& live, const std::string& bindingKey,
                         const std::string& hostId);

// Targeted: create what is missing; update ours when it no longer holds the desired fields;
// an object of that name Flotilla does not manage (or manages for another binding, or another
// host) is a conflict, unless Adopt allows taking over one that no Flotilla manages.
// Not targeted: delete ours, unless it was adopted (then it stays).
MemberPlan planMember(const MemberInput& in);

// One cluster after a sync pass, for the federated object's status.
struct ClusterState {
  std::string cluster;
  std::string propagation;  // propagation::k*
  std::string message;
  interpreter::HealthReport health;
  bool target = true;  // false: a cluster the object is being removed from
  // What the OverridePolicies did to the copy there (override::OverrideResult).
  std::vector<std::string> appliedOverrides;
  std::vector<std::string> skippedOverrides;
};

// The federated object's status: one entry per target (and per cluster a removal failed on),
// sorted by name; HEALTHY "healthy/targeted"; CLUSTERS; conditions Propagated (True when every
// target holds the object as Flotilla wants it) and Healthy (True when every target's copy is
// healthy), each with the first problem as message, transition times kept while the status does
// not change; observedGeneration.
api::FederatedObjectStatus objectStatus(const api::FederatedObject& fo,
                                        std::vector<ClusterState> clusters, const std::string& now);

// `desired` with the replicas of `live` (spec.replicas, which the scale subresource of the kinds
// an HPA scales sets): on a member where an HPA scales the workload, the member's count stands
// and the division's share is not written back (docs/design.md §13). A live object without
// spec.replicas leaves `desired` as it is.
void keepScaledReplicas(boost::json::object& desired, const boost::json::object& live);

// Whether a live member object was adopted (and so is never deleted by Flotilla).
bool adopted(const boost::json::object& live);

}  // namespace flotilla::controllers::sync
