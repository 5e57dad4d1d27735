// Structural-schema handling for custom resources, as kube-apiserver does it on every write:
// defaults from the schema, pruning of fields the schema does not declare, and validation of
// types, enums, required fields, bounds and sizes. Errors are worded like kube-apiserver's.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::sim {

struct SchemaOutcome {
  api::FieldErrors errors;           // 422 Invalid when not empty
  std::vector<std::string> unknown;  // pruned fields ("spec.foo"); Strict validation rejects them
};

// Applies the openAPIV3Schema to a whole object in place. apiVersion, kind and metadata are
// always allowed at the root.
SchemaOutcome applySchema(boost::json::object& object, const boost::json::object& schema);

}  // namespace flotilla::sim
