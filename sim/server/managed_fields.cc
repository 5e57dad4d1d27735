#include "sim/server/managed_fields.h"

#include <boost/json.hpp>
#include <map>

#include "sim/server/patch.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

// Metadata the server owns or that identifies the object: never tracked.
bool untrackedMetadata(std::string_view key) {
  return key == "name" || key == "namespace" || key == "uid" || key == "resourceVersion" ||
         key == "generation" || key == "creationTimestamp" || key == "deletionTimestamp" ||
         key == "deletionGracePeriodSeconds" || key == "managedFields" || key == "selfLink";
}

std::string itemKey(const std::string& mergeKey, const json::value& value) {
  return "k:" + json::serialize(json::object{{mergeKey, value}});
}

void collect(const json::value& value, const std::string& field, FieldPath& path, FieldSet& out,
             bool builtin) {
  if (value.is_object() && !value.as_object().empty()) {
    for (const auto& [k, v] : value.as_object()) {
      path.push_back("f:" + std::string(k));
      collect(v, std::string(k), path, out, builtin);
      path.pop_back();
    }
    return;
  }
  if (value.is_array() && builtin) {
    const auto& items = value.as_array();
    const std::string key = strategicMergeKey(field, items);
    bool keyed = !key.empty() && !items.empty();
    for (const auto& item : items)
      if (!item.is_object() || !item.as_object().contains(key)) keyed = false;
    if (keyed) {
      for (const auto& item : items) {
        path.push_back(itemKey(key, item.as_object().at(key)));
        path.push_back(".");
        out.insert(path);
        path.pop_back();
        for (const auto& [k, v] : item.as_object()) {
          path.push_back("f:" + std::string(k));
          collect(v, std::string(k), path, out, builtin);
          path.pop_back();
        }
        path.pop_back();
      }
      return;
    }
  }
  out.insert(path);  // a scalar, an empty object, or an atomic list
}

// The value at a path; nullptr when absent.
const json::value* valueAt(const json::value& root, const FieldPath& path) {
  const json::value* at = &root;
  for (const auto& segment : path) {
    if (segment == ".") return at;
    if (segment.rfind("f:", 0) == 0) {
      if (!at->is_object()) return nullptr;
      at = at->as_object().if_contains(segment.substr(2));
      if (!at) return nullptr;
    } else if (segment.rfind("k:", 0) == 0) {
      if (!at->is_array()) return nullptr;
      boost::system::error_code ec;
      json::value key = json::parse(segment.substr(2), ec);
      if (ec || !key.is_object() || key.as_object().size() != 1) return nullptr;
      const auto& [name, wanted] = *key.as_object().begin();
      const json::value* found = nullptr;
      for (const auto& item : at->as_array()) {
        if (item.is_object() && item.as_object().if_contains(name) &&
            item.as_object().at(name) == wanted)
          found = &item;
      }
      if (!found) return nullptr;
      at = found;
    } else {
      return nullptr;
    }
  }
  return at;
}

// Removes the field (or list item, for a path ending in ".") from `root`.
void removeAt(json::value& root, const FieldPath& path) {
  if (path.empty()) return;
  const bool item = path.back() == ".";
  FieldPath parentPath(path.begin(), path.end() - (item ? 2 : 1));
  const std::string& last = item ? path[path.size() - 2] : path.back();
  json::value* parent = const_cast<json::value*>(valueAt(root, parentPath));
  if (!parent) return;
  if (last.rfind("f:", 0) == 0 && parent->is_object()) {
    parent->as_object().erase(last.substr(2));
  } else if (last.rfind("k:", 0) == 0 && parent->is_array()) {
    const json::value* target = valueAt(*parent, FieldPath{last});
    auto& items = parent->as_array();
    for (auto it = items.begin(); it != items.end(); ++it) {
      if (&*it == target) {
        items.erase(it);
        break;
      }
    }
  }
}

struct Entry {
  std::string manager, operation, apiVersion, time;
  FieldSet fields;
  json::object original;  // kept verbatim when unchanged
  bool changed = false;
};

std::vector<Entry> readEntries(const json::object& object) {
  std::vector<Entry> out;
  const auto* m = object.if_contains("metadata");
  const auto* list = m && m->is_object() ? m->as_object().if_contains("managedFields") : nullptr;
  if (!list || !list->is_array()) return out;
  for (const auto& v : list->as_array()) {
    if (!v.is_object()) continue;
    const auto& e = v.as_object();
    auto str = [&](const char* key) {
      const auto* s = e.if_contains(key);
      return s && s->is_string() ? std::string(s->as_string()) : std::string();
    };
    Entry entry{str("manager"), str("operation"), str("apiVersion"), str("time"), {}, e, false};
    if (const auto* f = e.if_contains("fieldsV1"); f && f->is_object())
      entry.fields = fromFieldsV1(f->as_object());
    out.push_back(std::move(entry));
  }
  return out;
}

void writeEntries(json::object& object, std::vector<Entry>& entries) {
  json::array list;
  for (auto& e : entries) {
    if (e.fields.empty()) continue;
    if (!e.changed && !e.original.empty()) {
      list.push_back(e.original);
      continue;
    }
    list.push_back(json::object{{"manager", e.manager},
                                {"operation", e.operation},
                                {"apiVersion", e.apiVersion},
                                {"time", e.time},
                                {"fieldsType", "FieldsV1"},
                                {"fieldsV1", toFieldsV1(e.fields)}});
  }
  auto& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object{};
  if (list.empty()) {
    meta.as_object().erase("managedFields");
  } else {
    meta.as_object()["managedFields"] = std::move(list);
  }
}

Entry& entryFor(std::vector<Entry>& entries, const ManagedContext& c, const char* operation) {
  for (auto& e : entries)
    if (e.manager == c.manager && e.operation == operation) return e;
  entries.push_back(Entry{c.manager, operation, c.apiVersion, c.time, {}, {}, true});
  return entries.back();
}

}  // namespace

FieldSet fieldsOf(const json::object& object, bool builtin) {
  FieldSet out;
  FieldPath path;
  for (const auto& [k, v] : object) {
    if (k == "apiVersion" || k == "kind" || k == "status") continue;
    if (k == "metadata" && v.is_object()) {
      for (const auto& [mk, mv] : v.as_object()) {
        if (untrackedMetadata(mk)) continue;
        path = {"f:metadata", "f:" + std::string(mk)};
        collect(mv, std::string(mk), path, out, builtin);
      }
      continue;
    }
    path = {"f:" + std::string(k)};
    collect(v, std::string(k), path, out, builtin);
  }
  return out;
}

json::object toFieldsV1(const FieldSet& fields) {
  json::object root;
  for (const auto& path : fields) {
    json::object* at = &root;
    for (const auto& segment : path) {
      auto& next = (*at)[segment];
      if (!next.is_object()) next = json::object{};
      at = &next.as_object();
    }
  }
  return root;
}

namespace {
void fromFieldsV1Into(const json::object& node, FieldPath& path, FieldSet& out) {
  for (const auto& [k, v] : node) {
    path.push_back(std::string(k));
    if (k == "." || !v.is_object() || v.as_object().empty()) {
      out.insert(path);
    } else {
      fromFieldsV1Into(v.as_object(), path, out);
    }
    path.pop_back();
  }
}
}  // namespace

FieldSet fromFieldsV1(const json::object& fieldsV1) {
  FieldSet out;
  FieldPath path;
  fromFieldsV1Into(fieldsV1, path, out);
  return out;
}

std::string describePath(const FieldPath& path) {
  std::string out;
  for (const auto& segment : path) {
    if (segment == ".") continue;
    if (segment.rfind("f:", 0) == 0) {
      out += "." + segment.substr(2);
    } else if (segment.rfind("k:", 0) == 0) {
      boost::system::error_code ec;
      json::value key = json::parse(segment.substr(2), ec);
      if (!ec && key.is_object() && key.as_object().size() == 1) {
        const auto& [name, value] = *key.as_object().begin();
        out += "[" + std::string(name) + "=" + json::serialize(value) + "]";
      }
    }
  }
  return out;
}

api::Result<json::object> applyOwnership(const json::object& current, json::object merged,
                                         const json::object& config, bool force,
                                         const ManagedContext& c) {
  std::vector<Entry> entries = readEntries(current);
  const FieldSet applied = fieldsOf(config, c.builtin);
  const json::value currentValue(current);
  const json::value configValue(config);

  // Conflicts: another manager owns a field this apply sets to a different value.
  std::map<std::pair<std::string, std::string>, std::vector<FieldPath>> conflicts;
  for (auto& e : entries) {
    if (e.manager == c.manager) continue;
    for (const auto& path : applied) {
      if (path.back() == "." || !e.fields.count(path)) continue;
      const json::value* now = valueAt(currentValue, path);
      const json::value* wanted = valueAt(configValue, path);
      if (now && wanted && *now == *wanted) continue;  // same value: shared ownership
      conflicts[{e.manager, e.apiVersion}].push_back(path);
    }
  }
  if (!conflicts.empty() && !force) {
    size_t count = 0;
    for (const auto& [owner, paths] : conflicts) count += paths.size();
    std::string message = "Apply failed with " + std::to_string(count) +
                          (count == 1 ? " conflict: " : " conflicts: ");
    api::FieldErrors causes;
    bool first = true;
    for (const auto& [owner, paths] : conflicts) {
      const std::string with = "conflict" + std::string(paths.size() == 1 ? "" : "s") + " with \"" +
                               owner.first + "\" using " + owner.second;
      if (!first) message += "\n";
      first = false;
      if (paths.size() == 1) {
        message += with + ": " + describePath(paths.front());
      } else {
        message += with + ":";
        for (const auto& p : paths) message += "\n- " + describePath(p);
      }
      for (const auto& p : paths)
        causes.push_back(
            {describePath(p), "conflict with \"" + owner.first + "\" using " + owner.second});
    }
    return api::Error{api::reason::kConflict, 409, message, std::move(causes)};
  }
  for (auto& e : entries) {  // force: the fields change hands
    auto it = conflicts.find({e.manager, e.apiVersion});
    if (it == conflicts.end()) continue;
    for (const auto& p : it->second) e.fields.erase(p);
    e.changed = true;
    e.time = c.time;
  }

  // Fields this manager applied before and omits now go, unless someone else owns them.
  Entry& mine = entryFor(entries, c, "Apply");
  json::value result(std::move(merged));
  std::vector<FieldPath> dropped;
  for (const auto& path : mine.fields)
    if (!applied.count(path)) dropped.push_back(path);
  std::sort(dropped.begin(), dropped.end(),
            [](const FieldPath& a, const FieldPath& b) { return a.size() > b.size(); });
  for (const auto& path : dropped) {
    bool ownedElsewhere = false;
    for (const auto& e : entries)
      if (&e != &mine && e.fields.count(path)) ownedElsewhere = true;
    if (!ownedElsewhere) removeAt(result, path);
  }
  if (mine.fields != applied) {
    mine.fields = applied;
    mine.changed = true;
    mine.time = c.time;
    mine.apiVersion = c.apiVersion;
  }
  json::object out = std::move(result.as_object());
  writeEntries(out, entries);
  return out;
}

void recordUpdate(const json::object* before, json::object& after, const ManagedContext& c) {
  std::vector<Entry> entries = before ? readEntries(*before) : std::vector<Entry>{};
  const FieldSet now = fieldsOf(after, c.builtin);
  const FieldSet was = before ? fieldsOf(*before, c.builtin) : FieldSet{};
  const json::value beforeValue = before ? json::value(*before) : json::value();
  const json::value afterValue(after);
  FieldSet changed;
  for (const auto& path : now) {
    const json::value* old = before ? valueAt(beforeValue, path) : nullptr;
    const json::value* cur = valueAt(afterValue, path);
    if (!old || !cur || *old != *cur) changed.insert(path);
  }
  FieldSet removed;
  for (const auto& path : was)
    if (!now.count(path)) removed.insert(path);
  if (!changed.empty() || !removed.empty()) {
    for (auto& e : entries) {
      bool touched = false;
      for (const auto& p : changed) touched |= e.manager != c.manager && e.fields.erase(p) > 0;
      for (const auto& p : removed) touched |= e.fields.erase(p) > 0;
      if (touched) {
        e.changed = true;
        e.time = c.time;
      }
    }
    if (!changed.empty()) {
      Entry& mine = entryFor(entries, c, "Update");
      const size_t size = mine.fields.size();
      mine.fields.insert(changed.begin(), changed.end());
      if (mine.fields.size() != size || mine.changed) {
        mine.changed = true;
        mine.time = c.time;
        mine.apiVersion = c.apiVersion;
      }
    }
  }
  writeEntries(after, entries);
}

std::string defaultManager(std::string_view userAgent) {
  const auto slash = userAgent.find('/');
  std::string product(userAgent.substr(0, slash));
  return product.empty() ? "unknown" : product;
}

}  // namespace flotilla::sim
