// Any kind but the Deployment -> FederatedObject / ClusterFederatedObject (docs/design.md §3.4a,
// §5.2): a source object that a policy governs (or whose label names one) is represented by a
// federated object named <name>-<lowercase kind>, owned by it, whose template is what members
// receive (the kind's interpreter prunes what the host's API server filled in).
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

#include "api/flotilla_types.h"
#include "controllers/common/object_key.h"
#include "controllers/federate/federate.h"
#include "controllers/policy/resolve.h"
#include "interpreter/interpreter.h"

namespace flotilla::controllers::federate {

using policy::workloadOf;

struct ObjectDecision {
  Action action = Action::kNone;
  // A FederatedObject, or a ClusterFederatedObject when the source is cluster-scoped (no
  // namespace): the two have the same fields and `kind` tells them apart when encoded.
  // kCreate/kUpdate: the object to write; kDelete: the existing one (for its preconditions).
  api::FederatedObject desired;
  std::string message;  // kConflict and kDelete: why
  std::string refusal;  // the labelled policy refused the source: for a Warning Event on it
};

// `existing`: the federated object of that name, if any (decoded into a FederatedObject whatever
// its kind). The rules of decideFederated (intent.h) apply; in addition a source that is never
// propagated (api::neverPropagated: a ServiceAccount token Secret, say) is not federated whatever
// the policies say, and a federated object it owns is deleted.
//
// `followed`: a propagated workload needs the source (docs/design.md §12): it is federated
// without a policy when none governs it (no flotilla.io/policy annotation then), and unfederated
// once no policy governs it and no workload needs it.
ObjectDecision decideFederatedObject(const boost::json::object& source,
                                     const api::FederatedObject* existing,
                                     const policy::Resolution& resolution, bool claimedPolicyExists,
                                     const interpreter::Interpreter& interpreter,
                                     bool followed = false);

}  // namespace flotilla::controllers::federate
