// Field ownership for server-side apply (metadata.managedFields, FieldsV1), simplified from
// kube-apiserver's structured-merge-diff but with its user-visible rules:
//   - an apply records the fields of the applied configuration as owned by (manager, Apply);
//   - applying a different value to a field another manager owns is a 409 Conflict listing each
//     field and owner, unless force=true, which takes the field over;
//   - fields a manager applied before and omits now are removed, unless someone else owns them;
//   - an ordinary write (create, update, patch) by manager M takes over the fields it changed,
//     recorded as (M, Update).
// Field paths are FieldsV1 keys: "f:<name>" for members, "k:{"name":"web"}" for items of
// associative lists (built-in lists with a merge key), "." for an item itself. Other lists are
// atomic: one field.
#pragma once

#include <boost/json/object.hpp>
#include <set>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::sim {

using FieldPath = std::vector<std::string>;
using FieldSet = std::set<FieldPath>;

// The fields an object sets (identity and server-owned metadata and status excluded).
FieldSet fieldsOf(const boost::json::object& object, bool builtin);
boost::json::object toFieldsV1(const FieldSet& fields);
FieldSet fromFieldsV1(const boost::json::object& fieldsV1);
// ".spec.replicas", ".spec.template.spec.containers[name=\"web\"].image" (conflict messages).
std::string describePath(const FieldPath& path);

struct ManagedContext {
  std::string manager;
  std::string apiVersion;  // of the request
  std::string time;        // RFC 3339, for entries that change
  bool builtin = true;
};

// Server-side apply: `merged` is `current` with the configuration merged in (the caller's merge);
// returns it with removed fields dropped and managedFields updated, or a Conflict error.
api::Result<boost::json::object> applyOwnership(const boost::json::object& current,
                                                boost::json::object merged,
                                                const boost::json::object& config, bool force,
                                                const ManagedContext& context);

// An ordinary write: `after` gets managedFields in which the manager owns what it changed.
// `before` is null for a create.
void recordUpdate(const boost::json::object* before, boost::json::object& after,
                  const ManagedContext& context);

// The manager of a write without fieldManager: the User-Agent's product ("kubectl/v1.32 ..." →
// "kubectl"), as kube-apiserver derives it.
std::string defaultManager(std::string_view userAgent);

}  // namespace flotilla::sim
