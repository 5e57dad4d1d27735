// The resources flotilla-sim serves: the built-in ones Flotilla and its users need, plus one per
// established CustomResourceDefinition. Thread-safe: CRDs come and go while requests run.
#pragma once

#include <atomic>
#include <boost/json/object.hpp>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace flotilla::sim {

struct PrinterColumn {
  std::string name;
  std::string type;  // string, integer, number, boolean, date (shown as an age), timestamp (as is)
  std::string jsonPath;
  std::string description;
  int priority = 0;  // > 0: only with -o wide
};

struct ResourceInfo {
  std::string group;  // "" for the core group
  std::string version;
  std::string resource;  // plural: "deployments"
  std::string singular;
  std::string kind;
  std::string listKind;
  bool namespaced = true;
  std::vector<std::string> shortNames;
  std::vector<std::string> categories;
  bool statusSubresource = false;
  bool scaleSubresource = false;  // apps: spec.replicas / status.replicas
  // Discovery verbs when not the full set (selfsubjectaccessreviews: create only; such
  // resources are answered by the server, never stored).
  std::vector<std::string> verbs;
  // Custom resources: besides NAME (and AGE, added when no column is a date). Built-ins are
  // printed as kube-apiserver prints them (table.cc).
  std::vector<PrinterColumn> columns;
  // For custom resources: the version's openAPIV3Schema (validation, defaults, pruning).
  std::shared_ptr<const boost::json::object> schema;
  bool custom = false;

  // The store collection when it is another resource's: events.k8s.io/v1 Events live with the
  // core/v1 ones ("/events"), converted on the way in and out (events.h).
  std::string storage;

  std::string groupVersion() const { return group.empty() ? version : group + "/" + version; }
  // The store's collection name ("apps/deployments", "/pods"): shared by every version.
  std::string storageKey() const { return storage.empty() ? group + "/" + resource : storage; }
};

class ResourceRegistry {
 public:
  ResourceRegistry();  // with the built-in resources

  std::shared_ptr<const ResourceInfo> find(const std::string& group, const std::string& version,
                                           const std::string& resource) const;
  std::shared_ptr<const ResourceInfo> findKind(const std::string& groupVersion,
                                               const std::string& kind) const;
  std::vector<std::shared_ptr<const ResourceInfo>> all() const;
  // Group/versions in discovery order ("v1" first, then groups by name; built-ins first).
  std::vector<std::string> groupVersions() const;

  // Replaces every resource of the CRD named `crdName` ("widgets.example.com") with `served`.
  void setCustom(const std::string& crdName, std::vector<ResourceInfo> served);
  void removeCustom(const std::string& crdName);
  // Changes whenever the set of custom resources changes (OpenAPI document hashes).
  uint64_t generation() const { return generation_.load(); }

 private:
  mutable std::shared_mutex mutex_;
  std::atomic<uint64_t> generation_{1};
  std::vector<std::shared_ptr<const ResourceInfo>> builtins_;
  std::map<std::string, std::vector<std::shared_ptr<const ResourceInfo>>> custom_;
};

// The served versions of a CustomResourceDefinition (apiextensions.k8s.io/v1) as resources, or
// an error message when the definition cannot be served.
std::vector<ResourceInfo> resourcesFromCrd(const boost::json::object& crd, std::string& error);

}  // namespace flotilla::sim
