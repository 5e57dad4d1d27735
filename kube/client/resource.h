// Addressing resources on an API server: which resource (group/version/resource, namespaced or
// not), which object, and the options of each verb, turned into request paths and query strings
// exactly as kube-apiserver expects them.
#pragma once

#include <optional>
#include <string>

namespace flotilla::kube {

struct ResourceId {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural, lower case: "deployments"
  bool namespaced = true;
  std::string kind;  // "Deployment" (informational; set by discovery)

  std::string apiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "/api/v1/namespaces/ns/pods/name/status"; `ns` is ignored for cluster-scoped resources and
  // an empty `ns` on a namespaced resource means all namespaces (list/watch).
  std::string path(const std::string& ns = "", const std::string& name = "",
                   const std::string& subresource = "") const;
  std::string str() const;  // "deployments.v1.apps"
  bool operator==(const ResourceId& o) const {
    return group == o.group && version == o.version && resource == o.resource;
  }
};

struct ListOptions {
  std::string labelSelector;
  std::string fieldSelector;
  int64_t limit = 0;  // 0: no paging
  std::string continueToken;
  std::string resourceVersion;       // list: "0" = any cached; watch: where to start
  std::string resourceVersionMatch;  // "NotOlderThan" | "Exact"
  bool allowWatchBookmarks = false;  // watch only
  int timeoutSeconds = 0;            // watch only: the server ends the stream after this
  // list only: more items than this (over all pages) is an error, not an ever-growing list
  // (a member cannot make the operator hold more than this of one kind); 0: no limit.
  size_t maxItems = 0;
};

struct WriteOptions {
  bool dryRun = false;
  std::string fieldManager;     // required by server-side apply
  bool force = false;           // server-side apply: take over conflicting fields
  std::string fieldValidation;  // "Strict" | "Warn" | "Ignore"; empty: the server's default
};

struct DeleteOptions {
  std::string propagationPolicy;  // "Foreground" | "Background" | "Orphan"; empty: the default
  std::optional<std::string> preconditionUid;
  std::optional<std::string> preconditionResourceVersion;
  std::optional<int64_t> gracePeriodSeconds;
  bool dryRun = false;
};

enum class PatchType { kMerge, kJson, kStrategic, kApply };
const char* contentTypeFor(PatchType type);

// Query strings ("?a=b&c=d", or "" when there is nothing), values percent-encoded.
std::string listQuery(const ListOptions& options, bool watch);
std::string writeQuery(const WriteOptions& options, bool apply);
std::string deleteBody(const DeleteOptions& options);

std::string percentEncode(const std::string& value);

}  // namespace flotilla::kube
