#include "kube/client/resource.h"

#include <boost/json.hpp>

namespace flotilla::kube {
namespace json = boost::json;

std::string ResourceId::path(const std::string& ns, const std::string& name,
                             const std::string& subresource) const {
  std::string out = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  if (namespaced && !ns.empty()) out += "/namespaces/" + percentEncode(ns);
  out += "/" + resource;
  if (!name.empty()) out += "/" + percentEncode(name);
  if (!subresource.empty()) out += "/" + subresource;
  return out;
}

std::string ResourceId::str() const {
  return resource + "." + version + (group.empty() ? "" : "." + group);
}

const char* contentTypeFor(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
    case PatchType::kStrategic:
      return "application/strategic-merge-patch+json";
    case PatchType::kApply:
      return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

std::string percentEncode(const std::string& value) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

namespace {

void add(std::string& query, const char* key, const std::string& value) {
  if (value.empty()) return;
  query += query.empty() ? "?" : "&";
  query += key;
  query += "=";
  query += percentEncode(value);
}

}  // namespace

std::string listQuery(const ListOptions& o, bool watch) {
  std::string q;
  if (watch) add(q, "watch", "true");
  add(q, "labelSelector", o.labelSelector);
  add(q, "fieldSelector", o.fieldSelector);
  if (!watch && o.limit > 0) add(q, "limit", std::to_string(o.limit));
  if (!watch) add(q, "continue", o.continueToken);
  add(q, "resourceVersion", o.resourceVersion);
  if (!watch) add(q, "resourceVersionMatch", o.resourceVersionMatch);
  if (watch && o.allowWatchBookmarks) add(q, "allowWatchBookmarks", "true");
  if (watch && o.timeoutSeconds > 0) add(q, "timeoutSeconds", std::to_string(o.timeoutSeconds));
  return q;
}

std::string writeQuery(const WriteOptions& o, bool apply) {
  std::string q;
  if (o.dryRun) add(q, "dryRun", "All");
  add(q, "fieldManager", o.fieldManager);
  if (apply && o.force) add(q, "force", "true");
  add(q, "fieldValidation", o.fieldValidation);
  return q;
}

std::string deleteBody(const DeleteOptions& o) {
  json::object body{{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!o.propagationPolicy.empty()) body["propagationPolicy"] = o.propagationPolicy;
  if (o.gracePeriodSeconds) body["gracePeriodSeconds"] = *o.gracePeriodSeconds;
  if (o.dryRun) body["dryRun"] = json::array{"All"};
  if (o.preconditionUid || o.preconditionResourceVersion) {
    json::object pre;
    if (o.preconditionUid) pre["uid"] = *o.preconditionUid;
    if (o.preconditionResourceVersion) pre["resourceVersion"] = *o.preconditionResourceVersion;
    body["preconditions"] = std::move(pre);
  }
  return json::serialize(body);
}

}  // namespace flotilla::kube
