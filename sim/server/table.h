// Table output (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), as kubectl get asks for
// it. Built-in resources get kube-apiserver's own columns and cells (the printers of
// k8s.io/kubernetes/pkg/printers/internalversion: pods' READY/STATUS/RESTARTS, deployments'
// READY "ready/desired", nodes' STATUS and ROLES, events' LAST SEEN ... MESSAGE, ...; wide columns
// have priority 1). Custom resources get NAME, their printer columns and AGE.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "sim/server/resources.h"

namespace flotilla::sim {

// The subset of kubectl's JSONPath that printer columns use: `.a.b`, `.a[0].b`,
// `.a[?(@.type=="Ready")].status`, and `.list.length` for a list's size. nullopt when the path
// selects nothing.
std::optional<boost::json::value> evalJsonPath(const boost::json::value& root,
                                               std::string_view path);

// kube's duration.HumanDuration: "45s", "5m", "3h", "4d", "2y"; "<invalid>" in the future.
std::string humanDuration(std::chrono::seconds age);

enum class IncludeObject { kNone, kMetadata, kObject };

// A meta.k8s.io/v1 Table for `objects` (served in `resource`'s version). Without headers: for
// watch events after the first.
boost::json::object makeTable(const ResourceInfo& resource,
                              const std::vector<boost::json::object>& objects,
                              std::chrono::system_clock::time_point now, IncludeObject include,
                              bool withHeaders, const std::string& resourceVersion);

}  // namespace flotilla::sim
