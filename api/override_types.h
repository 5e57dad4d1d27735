// OverridePolicy (`op`) and ClusterOverridePolicy (`cop`): per-cluster differences for the objects
// they select, by rule (docs/design.md §14). Plain structs; the codec and the CRD generator read
// them through api/describe.h.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <string>
#include <vector>

#include "api/flotilla_types.h"

namespace flotilla::api {

// One part of a container image reference changed: Registry (host[:port]), Repository (the path
// after it), Tag or Digest.
struct ImageOverrider {
  std::vector<std::string> containerNames;  // empty: every container and initContainer
  std::string component;                    // Registry | Repository | Tag | Digest
  std::string operator_;                    // addIfAbsent | overwrite | delete
  std::string value;
};

// A container's command or args.
struct CommandArgsOverrider {
  std::string containerName;
  std::string operator_;  // append | overwrite | delete
  std::vector<std::string> value;
};

// A container's environment variables (each value an EnvVar: name, and value or valueFrom).
struct EnvOverrider {
  std::string containerName;
  std::string operator_;  // addIfAbsent | overwrite | delete
  std::vector<boost::json::object> value;
};

// The object's metadata.labels or metadata.annotations.
struct MetadataOverrider {
  std::string operator_;  // addIfAbsent | overwrite | delete
  std::map<std::string, std::string> value;
};

struct Overriders {
  std::vector<ImageOverrider> image;
  std::vector<CommandArgsOverrider> command;
  std::vector<CommandArgsOverrider> args;
  std::vector<EnvOverrider> env;
  std::vector<MetadataOverrider> labels;
  std::vector<MetadataOverrider> annotations;
  std::vector<JsonPatchOperation> jsonPatch;  // add | remove | replace
};

struct OverrideRule {
  // Which clusters the rule is for, as a placement's clusterAffinity (absent: every cluster).
  std::optional<ClusterAffinity> targetCluster;
  Overriders overriders;
};

struct OverridePolicySpec {
  std::vector<ResourceSelector> resourceSelectors;
  std::vector<OverrideRule> rules;
};

struct OverridePolicyStatus {
  std::vector<Condition> conditions;
  int64_t observedGeneration = 0;
};

struct OverridePolicy {
  std::string apiVersion = kGroupVersion;
  std::string kind = "OverridePolicy";
  ObjectMeta metadata;
  OverridePolicySpec spec;
  OverridePolicyStatus status;
};

// Same spec, cluster-scoped: selects objects of every namespace.
struct ClusterOverridePolicy {
  std::string apiVersion = kGroupVersion;
  std::string kind = "ClusterOverridePolicy";
  ObjectMeta metadata;
  OverridePolicySpec spec;
  OverridePolicyStatus status;
};

}  // namespace flotilla::api
