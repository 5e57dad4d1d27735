// Kubernetes Status bodies and messages worded as kube-apiserver words them (kubectl prints the
// message as-is: `Error from server (NotFound): deployments.apps "web" not found`).
#pragma once

#include <boost/json/object.hpp>
#include <string>

#include "api/result.h"
#include "sim/server/resources.h"

namespace flotilla::sim {

// "deployments.apps" / "pods": the qualified resource in messages.
std::string qualifiedResource(const ResourceInfo& r);

api::Error notFound(const ResourceInfo& r, const std::string& name);
api::Error alreadyExists(const ResourceInfo& r, const std::string& name);
api::Error conflict(const ResourceInfo& r, const std::string& name, const std::string& why);
// `Deployment.apps "web" is invalid: <causes>`
api::Error invalidObject(const ResourceInfo& r, const std::string& name, api::FieldErrors causes);
api::Error badRequest(const std::string& message);
api::Error methodNotAllowed(const std::string& message);

// The Status object for an error; details name the object when given.
boost::json::object statusBody(const api::Error& error, const ResourceInfo* resource = nullptr,
                               const std::string& name = "");
// The Status kube-apiserver returns for a successful delete of an object that is gone at once
// is the object itself; this is the Success status for deletecollection and similar.
boost::json::object successStatus();

}  // namespace flotilla::sim
