// Validation of an arbitrary manifest document: find its kind, decode it strictly, apply the
// defaults and run the kind's validation. The admission webhooks and `flotillactl validate`
// both go through here.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::api {

struct ObjectVerdict {
  std::string apiVersion;
  std::string kind;
  std::string namespace_;
  std::string name;
  FieldErrors errors;  // empty: valid
  bool valid() const { return errors.empty(); }
  // "PropagationPolicy demo/spread" (or "document 3" when kind and name are unknown).
  std::string describe() const;
};

// Kinds `validateObject` understands, as "apiVersion/Kind".
std::vector<std::string> supportedKinds();

ObjectVerdict validateObject(const boost::json::value& object);

}  // namespace flotilla::api
