// OpenAPI v3 documents (`/openapi/v3` and `/openapi/v3/<api|apis/group>/<version>`), enough for
// kubectl: every resource's paths with x-kubernetes-group-version-kind and the patch operation's
// query parameters (kubectl checks `fieldValidation` there and then lets the server validate),
// and schemas (a CRD's own schema, so `kubectl explain` works; built-ins get an open schema).
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

#include "sim/server/resources.h"

namespace flotilla::sim {

boost::json::object openApiV3Root(const ResourceRegistry& registry);
// `groupVersionPath` is "api/v1" or "apis/<group>/<version>"; nullopt when nothing is served there.
std::optional<boost::json::object> openApiV3Document(const ResourceRegistry& registry,
                                                     const std::string& groupVersionPath);

}  // namespace flotilla::sim
