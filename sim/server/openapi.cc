#include "sim/server/openapi.h"

#include <boost/json.hpp>

namespace flotilla::sim {
namespace json = boost::json;

namespace {

std::string pathOf(const std::string& groupVersion) {
  return groupVersion.find('/') == std::string::npos ? "api/" + groupVersion
                                                     : "apis/" + groupVersion;
}

// "flotilla.io" -> "io.flotilla" (Kubernetes' schema naming).
std::string reversedGroup(const std::string& group) {
  std::string out;
  size_t end = group.size();
  while (true) {
    const size_t dot = group.rfind('.', end == 0 ? 0 : end - 1);
    const size_t start = dot == std::string::npos ? 0 : dot + 1;
    if (!out.empty()) out += '.';
    out += group.substr(start, end - start);
    if (dot == std::string::npos || start == 0) break;
    end = dot;
  }
  return out;
}

std::string schemaName(const ResourceInfo& r) {
  if (r.group.empty()) return "io.k8s.api.core." + r.version + "." + r.kind;
  return reversedGroup(r.group) + "." + r.version + "." + r.kind;
}

json::object gvk(const ResourceInfo& r) {
  return json::object{{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
}

json::object queryParameter(const char* name, const char* description) {
  return json::object{{"name", name},
                      {"in", "query"},
                      {"description", description},
                      {"schema", json::object{{"type", "string"}, {"uniqueItems", true}}}};
}

json::object operation(const ResourceInfo& r, const char* action, bool write) {
  const std::string ref = "#/components/schemas/" + schemaName(r);
  json::object op{
      {"x-kubernetes-action", action},
      {"x-kubernetes-group-version-kind", gvk(r)},
      {"responses",
       json::object{
           {"200", json::object{
                       {"description", "OK"},
                       {"content",
                        json::object{{"application/json",
                                      json::object{{"schema", json::object{{"$ref", ref}}}}}}}}}}}};
  if (write) {
    op["parameters"] = json::array{
        queryParameter("dryRun", "When present, modifications are not persisted (All)."),
        queryParameter("fieldManager", "The name of the actor making the change."),
        queryParameter("fieldValidation", "Ignore, Warn or Strict handling of unknown fields."),
        queryParameter("force", "Server-side apply: take ownership of conflicting fields.")};
  }
  return op;
}

json::object schemaFor(const ResourceInfo& r) {
  json::object schema;
  if (r.schema) {
    schema = *r.schema;
  } else {
    schema = json::object{
        {"type", "object"},
        {"description", r.kind + " (served by flotilla-sim without a detailed schema)."},
        {"x-kubernetes-preserve-unknown-fields", true}};
  }
  auto& properties = schema["properties"];
  if (!properties.is_object()) properties = json::object{};
  auto& p = properties.as_object();
  if (!p.contains("apiVersion"))
    p["apiVersion"] = json::object{
        {"type", "string"},
        {"description",
         "APIVersion defines the versioned schema of this representation of an object."}};
  if (!p.contains("kind"))
    p["kind"] = json::object{
        {"type", "string"},
        {"description",
         "Kind is a string value representing the REST resource this object represents."}};
  if (!p.contains("metadata") || p.at("metadata").as_object().size() <= 1)
    p["metadata"] =
        json::object{{"type", "object"}, {"description", "Standard object's metadata."}};
  schema["x-kubernetes-group-version-kind"] = json::array{gvk(r)};
  return schema;
}

}  // namespace

json::object openApiV3Root(const ResourceRegistry& registry) {
  json::object paths;
  const std::string hash = std::to_string(registry.generation());
  for (const auto& gv : registry.groupVersions()) {
    const std::string path = pathOf(gv);
    paths[path] = json::object{{"serverRelativeURL", "/openapi/v3/" + path + "?hash=" + hash}};
  }
  return json::object{{"paths", std::move(paths)}};
}

std::optional<json::object> openApiV3Document(const ResourceRegistry& registry,
                                              const std::string& groupVersionPath) {
  json::object paths;
  json::object schemas;
  bool any = false;
  for (const auto& r : registry.all()) {
    if (pathOf(r->groupVersion()) != groupVersionPath) continue;
    any = true;
    const std::string base = "/" + groupVersionPath + "/" +
                             (r->namespaced ? "namespaces/{namespace}/" : "") + r->resource;
    paths[base] = json::object{{"get", operation(*r, "list", false)},
                               {"post", operation(*r, "post", true)},
                               {"delete", operation(*r, "deletecollection", false)}};
    paths[base + "/{name}"] = json::object{{"get", operation(*r, "get", false)},
                                           {"put", operation(*r, "put", true)},
                                           {"patch", operation(*r, "patch", true)},
                                           {"delete", operation(*r, "delete", false)}};
    if (r->statusSubresource) {
      paths[base + "/{name}/status"] = json::object{{"get", operation(*r, "get", false)},
                                                    {"put", operation(*r, "put", true)},
                                                    {"patch", operation(*r, "patch", true)}};
    }
    schemas[schemaName(*r)] = schemaFor(*r);
  }
  if (!any) return std::nullopt;
  return json::object{{"openapi", "3.0.0"},
                      {"info", json::object{{"title", "Kubernetes"}, {"version", "v1.32.0"}}},
                      {"paths", std::move(paths)},
                      {"components", json::object{{"schemas", std::move(schemas)}}}};
}

}  // namespace flotilla::sim
