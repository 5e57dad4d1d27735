// What an OverridePolicy's rules do to the object a member receives (docs/design.md §14): pure
// functions on JSON, tested by tables (overriders_test.cc). The override controller resolves which
// rules apply to a cluster (resolve.h); the sync applies them with applyRules after the replica
// revision and before retain, then the federated object's own spec.overrides.
//
// Inside a rule: image, command, args, env, labels, annotations, jsonPatch, in that order. Image,
// command, args and env reach the containers and initContainers of the object's pod template
// (interpreter::Interpreter::podSpec); on a kind without one they are skipped and said so. A
// jsonPatch that cannot apply is an error for that cluster, naming the policy, rule and path.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/override_types.h"

namespace flotilla::controllers::override {

// On each member object: the policies whose rules changed it, "cop/NAME,op/NAMESPACE/NAME" in the
// order they applied; absent when none did.
inline constexpr const char* kAppliedOverridesAnnotation = "flotilla.io/applied-overrides";

// A container image reference split as the registry reads it:
// [registry/]repository[:tag][@digest]. The registry is the first path part when it has a '.' or
// ':' or is "localhost"; otherwise there is none (the runtime's default applies).
struct ImageRef {
  std::string registry;
  std::string repository;
  std::string tag;
  std::string digest;
  static ImageRef parse(const std::string& image);
  std::string str() const;
};

// One rule of one policy, as the resolution orders them.
struct RuleRef {
  std::string policy;  // "cop/NAME" or "op/NAMESPACE/NAME"
  size_t index = 0;    // the rule's position in spec.rules
  const api::OverrideRule* rule = nullptr;
};

struct OverrideResult {
  std::vector<std::string> applied;  // the policies whose rules applied, each once, in order
  // Overriders that do not apply to the object: "cop/registry rule 0: image: ConfigMap has no
  // pod template".
  std::vector<std::string> skipped;
  // A jsonPatch that could not apply: "op/shop/broken rule 1: jsonPatch replace /spec/nothing:
  // ..."; the object is then not to be sent.
  std::optional<std::string> error;
};

// `object` with the rules applied in order; its pod spec is where its kind's interpreter says.
OverrideResult applyRules(boost::json::object& object, const std::vector<RuleRef>& rules);

// The operations of one rule, in the order applyRules makes them, one line each:
// "image Registry overwrite \"mirror.io\" (every container)", "labels overwrite {tier: web}",
// "jsonPatch replace /spec/paused true" (flotillactl explain overrides).
std::vector<std::string> describeOperations(const api::Overriders& overriders);

// The policies of `result`, as kAppliedOverridesAnnotation holds them; and back.
std::string appliedList(const std::vector<std::string>& policies);
std::vector<std::string> parseAppliedList(const std::string& annotation);

}  // namespace flotilla::controllers::override
