// The three patch formats of PATCH requests, as pure functions on JSON (flotilla-sim serves
// them; the sync controller applies FederatedDeployment overrides with the RFC 6902 one):
//  - JSON merge patch (RFC 7386, application/merge-patch+json): kubectl's default for custom
//    resources;
//  - JSON patch (RFC 6902, application/json-patch+json);
//  - strategic merge patch (application/strategic-merge-patch+json) for built-in types: lists with
//    a merge key (containers, env, volumes by name; container ports by containerPort; volume
//    mounts by mountPath; conditions by type; ownerReferences by uid) merge item by item, the
//    `$patch: delete|replace` directives and `$deleteFromPrimitiveList/<field>` are honoured,
//    metadata.finalizers merges as a set, and every other list is replaced.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <string>

#include "api/result.h"

namespace flotilla::api {

api::Result<boost::json::value> applyMergePatch(boost::json::value target,
                                                const boost::json::value& patch);
api::Result<boost::json::value> applyJsonPatch(boost::json::value target,
                                               const boost::json::value& operations);
api::Result<boost::json::value> applyStrategicMergePatch(boost::json::value target,
                                                         const boost::json::value& patch);

// The merge key of a built-in list field ("containers" → "name"), "" for atomic lists.
std::string strategicMergeKey(const std::string& field, const boost::json::array& items);

}  // namespace flotilla::api
