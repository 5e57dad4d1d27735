// Parsing a Kubernetes API request path and query into what is asked for.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace flotilla::sim {

// /api/v1/namespaces/default/pods/web/status ->
//   {group "", version v1, namespace default, resource pods, name web, subresource status}
struct ResourcePath {
  std::string group;
  std::string version;
  std::string namespace_;
  std::string resource;
  std::string name;
  std::string subresource;
};

// nullopt when `path` is not under /api/v1 or /apis/<group>/<version>/ with a resource. The
// caller checks the resource exists and whether it is namespaced: a cluster-scoped resource named
// "namespaces" and the namespaced form share a prefix, so `isNamespaced(resource)` decides.
template <class IsNamespaced>
std::optional<ResourcePath> parseResourcePath(std::string_view path, IsNamespaced isNamespaced);

// Query parameters, percent-decoded. Repeated keys keep the last value.
std::map<std::string, std::string> parseQuery(std::string_view query);

// kubectl sends booleans as "true"/"1".
bool queryFlag(const std::map<std::string, std::string>& query, const std::string& key);

}  // namespace flotilla::sim

#include "sim/server/request_impl.h"
