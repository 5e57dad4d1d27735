#include "sim/server/status.h"

#include <boost/json.hpp>

namespace flotilla::sim {
namespace json = boost::json;

std::string qualifiedResource(const ResourceInfo& r) {
  return r.group.empty() ? r.resource : r.resource + "." + r.group;
}

api::Error notFound(const ResourceInfo& r, const std::string& name) {
  return {api::reason::kNotFound, 404, qualifiedResource(r) + " \"" + name + "\" not found", {}};
}

api::Error alreadyExists(const ResourceInfo& r, const std::string& name) {
  return {api::reason::kAlreadyExists,
          409,
          qualifiedResource(r) + " \"" + name + "\" already exists",
          {}};
}

api::Error conflict(const ResourceInfo& r, const std::string& name, const std::string& why) {
  return {api::reason::kConflict,
          409,
          "Operation cannot be fulfilled on " + qualifiedResource(r) + " \"" + name + "\": " + why,
          {}};
}

api::Error invalidObject(const ResourceInfo& r, const std::string& name, api::FieldErrors causes) {
  std::string kind = r.group.empty() ? r.kind : r.kind + "." + r.group;
  std::string message = kind + " \"" + name + "\" is invalid: ";
  if (causes.size() == 1) {
    message += causes.front().str();
  } else {
    message += "[";
    for (size_t i = 0; i < causes.size(); ++i) message += (i ? ", " : "") + causes[i].str();
    message += "]";
  }
  return {api::reason::kInvalid, 422, std::move(message), std::move(causes)};
}

api::Error badRequest(const std::string& message) {
  return {api::reason::kBadRequest, 400, message, {}};
}

api::Error methodNotAllowed(const std::string& message) {
  return {api::reason::kMethodNotAllowed, 405, message, {}};
}

json::object statusBody(const api::Error& error, const ResourceInfo* resource,
                        const std::string& name) {
  json::object status{{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{}},
                      {"status", "Failure"},
                      {"message", error.message}};
  if (!error.reason.empty()) status["reason"] = error.reason;  // a webhook may send none
  status["code"] = error.code == 0 ? 500 : error.code;
  json::object details;
  if (!name.empty()) details["name"] = name;
  if (resource) {
    if (!resource->group.empty()) details["group"] = resource->group;
    details["kind"] = resource->resource;
  }
  if (!error.causes.empty()) {
    json::array causes;
    for (const auto& c : error.causes)
      causes.push_back(json::object{
          {"reason", "FieldValueInvalid"}, {"message", c.message}, {"field", c.field}});
    details["causes"] = std::move(causes);
  }
  if (!details.empty()) status["details"] = std::move(details);
  return status;
}

json::object successStatus() {
  return json::object{{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{}},
                      {"status", "Success"}};
}

}  // namespace flotilla::sim
