// metav1 types: ObjectMeta, OwnerReference, Condition, ListMeta, Status.
//
// Conventions for every API struct in api/ (the JSON codec relies on them, see
// docs/design/codec.md):
//  - member names are the JSON field names; a trailing '_' avoids C++ keywords
//    (`namespace_` is "namespace", `operator_` is "operator", `template_` is "template");
//  - std::optional marks fields whose absence differs from their zero value; other scalars,
//    strings, lists and maps are omitted from JSON when empty, like Go's `omitempty`;
//  - `unknownFields` (boost::json::object) keeps every field we do not model, so objects we do
//    not own (a Deployment, a member's Pod) round-trip without loss;
//  - times are RFC 3339 strings, as on the wire.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/label_selector.h"

namespace flotilla::api {

struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  std::optional<bool> controller;
  std::optional<bool> blockOwnerDeletion;
  bool operator==(const OwnerReference&) const = default;
};

struct ObjectMeta {
  std::string name;
  std::string generateName;
  std::string namespace_;
  std::string uid;
  std::string resourceVersion;
  int64_t generation = 0;
  std::string creationTimestamp;
  std::optional<std::string> deletionTimestamp;
  std::optional<int64_t> deletionGracePeriodSeconds;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<OwnerReference> ownerReferences;
  std::vector<std::string> finalizers;
  boost::json::object unknownFields;  // managedFields, selfLink, ...
};

struct ListMeta {
  std::string resourceVersion;
  std::string continue_;
  std::optional<int64_t> remainingItemCount;
};

// metav1.Condition: the shape of every condition on flotilla.io objects.
struct Condition {
  std::string type;
  std::string status;  // True | False | Unknown
  int64_t observedGeneration = 0;
  std::string lastTransitionTime;
  std::string reason;
  std::string message;
  bool operator==(const Condition&) const = default;
};

// metav1.Status: the body of every API error.
struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
};
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;
  std::string uid;
  std::vector<StatusCause> causes;
  int32_t retryAfterSeconds = 0;
};
struct Status {
  std::string apiVersion = "v1";
  std::string kind = "Status";
  ListMeta metadata;
  std::string status;  // Success | Failure
  std::string message;
  std::string reason;
  std::optional<StatusDetails> details;
  int32_t code = 0;
};

}  // namespace flotilla::api
