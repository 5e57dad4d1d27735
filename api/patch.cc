#include "api/patch.h"

#include <boost/json.hpp>

namespace flotilla::api {
namespace json = boost::json;

namespace {

api::Error patchError(const std::string& message) {
  return api::Error{api::reason::kBadRequest, 400, message, {}};
}

json::value mergePatch(json::value target, const json::value& patch) {
  if (!patch.is_object()) return patch;
  if (!target.is_object()) target = json::object{};
  auto& t = target.as_object();
  for (const auto& [key, value] : patch.as_object()) {
    if (value.is_null()) {
      t.erase(key);
    } else {
      json::value current = t.contains(key) ? t.at(key) : json::value(nullptr);
      t[key] = mergePatch(std::move(current), value);
    }
  }
  return target;
}

// RFC 6901 pointer tokens.
std::optional<std::vector<std::string>> pointerTokens(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty()) return tokens;
  if (pointer.front() != '/') return std::nullopt;
  size_t i = 1;
  while (true) {
    const size_t end = pointer.find('/', i);
    std::string token(
        pointer.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
    std::string decoded;
    for (size_t k = 0; k < token.size(); ++k) {
      if (token[k] == '~' && k + 1 < token.size() && (token[k + 1] == '0' || token[k + 1] == '1')) {
        decoded += token[k + 1] == '0' ? '~' : '/';
        ++k;
      } else {
        decoded += token[k];
      }
    }
    tokens.push_back(std::move(decoded));
    if (end == std::string_view::npos) break;
    i = end + 1;
  }
  return tokens;
}

std::optional<size_t> arrayIndex(const std::string& token, size_t size, bool allowEnd) {
  if (allowEnd && token == "-") return size;
  // More than 18 digits cannot be an index of any real list, and would wrap the count around.
  if (token.empty() || token.size() > 18 || (token.size() > 1 && token[0] == '0'))
    return std::nullopt;
  size_t n = 0;
  for (char c : token) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<size_t>(c - '0');
  }
  if (n > size || (!allowEnd && n == size)) return std::nullopt;
  return n;
}

// The container of the pointer's last token, or null.
json::value* parentOf(json::value& root, const std::vector<std::string>& tokens) {
  json::value* current = &root;
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (auto* o = current->if_object()) {
      current = o->if_contains(tokens[i]);
    } else if (auto* a = current->if_array()) {
      auto idx = arrayIndex(tokens[i], a->size(), false);
      current = idx ? &(*a)[*idx] : nullptr;
    } else {
      current = nullptr;
    }
    if (!current) return nullptr;
  }
  return current;
}

std::optional<json::value> getAt(json::value& root, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return root;
  json::value* parent = parentOf(root, tokens);
  if (!parent) return std::nullopt;
  if (auto* o = parent->if_object()) {
    if (auto* v = o->if_contains(tokens.back())) return *v;
  } else if (auto* a = parent->if_array()) {
    if (auto idx = arrayIndex(tokens.back(), a->size(), false)) return (*a)[*idx];
  }
  return std::nullopt;
}

bool removeAt(json::value& root, const std::vector<std::string>& tokens) {
  if (tokens.empty()) return false;
  json::value* parent = parentOf(root, tokens);
  if (!parent) return false;
  if (auto* o = parent->if_object()) return o->erase(tokens.back()) == 1;
  if (auto* a = parent->if_array()) {
    auto idx = arrayIndex(tokens.back(), a->size(), false);
    if (!idx) return false;
    a->erase(a->begin() + static_cast<std::ptrdiff_t>(*idx));
    return true;
  }
  return false;
}

bool addAt(json::value& root, const std::vector<std::string>& tokens, json::value value,
           bool replace) {
  if (tokens.empty()) {
    root = std::move(value);
    return true;
  }
  json::value* parent = parentOf(root, tokens);
  if (!parent) return false;
  if (auto* o = parent->if_object()) {
    if (replace && !o->contains(tokens.back())) return false;
    (*o)[tokens.back()] = std::move(value);
    return true;
  }
  if (auto* a = parent->if_array()) {
    auto idx = arrayIndex(tokens.back(), a->size(), !replace);
    if (!idx) return false;
    if (replace) {
      (*a)[*idx] = std::move(value);
    } else {
      a->insert(a->begin() + static_cast<std::ptrdiff_t>(*idx), std::move(value));
    }
    return true;
  }
  return false;
}

// ---- strategic merge ----

std::string mergeKeyFor(const std::string& field, const json::array& items) {
  if (field == "containers" || field == "initContainers" || field == "ephemeralContainers" ||
      field == "env" || field == "volumes" || field == "imagePullSecrets" ||
      field == "webhooks")  // Validating/MutatingWebhookConfiguration
    return "name";
  if (field == "volumeMounts" || field == "volumeDevices") return "mountPath";
  if (field == "conditions") return "type";
  if (field == "ownerReferences") return "uid";
  if (field == "hostAliases") return "ip";
  if (field == "ports") {
    for (const auto& item : items) {
      if (item.is_object() && item.as_object().contains("containerPort")) return "containerPort";
    }
    return "port";
  }
  return "";
}

json::value strategicMerge(json::value target, const json::value& patch, const std::string& field);

json::value mergeList(json::value target, const json::array& patch, const std::string& field,
                      bool setSemantics) {
  json::array result = target.is_array() ? target.as_array() : json::array{};
  if (setSemantics) {  // finalizers: union, order kept
    for (const auto& item : patch) {
      if (std::find(result.begin(), result.end(), item) == result.end()) result.push_back(item);
    }
    return result;
  }
  const std::string key = mergeKeyFor(field, patch);
  if (key.empty()) return patch;  // replace
  for (const auto& item : patch) {
    if (!item.is_object()) return patch;
    const auto& o = item.as_object();
    const json::value* id = o.if_contains(key);
    const json::value* directive = o.if_contains("$patch");
    auto found = std::find_if(result.begin(), result.end(), [&](const json::value& existing) {
      const auto* e = existing.if_object();
      const auto* v = e ? e->if_contains(key) : nullptr;
      return id && v && *v == *id;
    });
    if (directive && directive->is_string() && directive->as_string() == "delete") {
      if (found != result.end()) result.erase(found);
      continue;
    }
    if (found != result.end()) {
      *found = strategicMerge(*found, item, "");
    } else {
      result.push_back(strategicMerge(json::object{}, item, ""));
    }
  }
  return result;
}

json::value strategicMerge(json::value target, const json::value& patch, const std::string& field) {
  (void)field;
  if (!patch.is_object()) return patch;
  const auto& p = patch.as_object();
  if (const auto* d = p.if_contains("$patch"); d && d->is_string() && d->as_string() == "replace") {
    json::object replaced = p;
    replaced.erase("$patch");
    return replaced;
  }
  if (!target.is_object()) target = json::object{};
  auto& t = target.as_object();
  for (const auto& [rawKey, value] : p) {
    const std::string key(rawKey);
    if (key == "$patch" || key == "$retainKeys" || key.rfind("$setElementOrder/", 0) == 0) continue;
    if (key.rfind("$deleteFromPrimitiveList/", 0) == 0) {
      const std::string list = key.substr(std::string("$deleteFromPrimitiveList/").size());
      if (auto* existing = t.if_contains(list);
          existing && existing->is_array() && value.is_array()) {
        auto& a = existing->as_array();
        for (const auto& remove : value.as_array())
          a.erase(std::remove(a.begin(), a.end(), remove), a.end());
      }
      continue;
    }
    if (value.is_null()) {
      t.erase(key);
    } else if (value.is_array()) {
      json::value current = t.contains(key) ? t.at(key) : json::value(nullptr);
      t[key] = mergeList(std::move(current), value.as_array(), key, key == "finalizers");
    } else if (value.is_object()) {
      json::value current = t.contains(key) ? t.at(key) : json::value(nullptr);
      t[key] = strategicMerge(std::move(current), value, key);
    } else {
      t[key] = value;
    }
  }
  return target;
}

}  // namespace

api::Result<json::value> applyMergePatch(json::value target, const json::value& patch) {
  if (!patch.is_object()) return patchError("a merge patch must be a JSON object");
  return mergePatch(std::move(target), patch);
}

api::Result<json::value> applyJsonPatch(json::value target, const json::value& operations) {
  if (!operations.is_array()) return patchError("a JSON patch must be an array of operations");
  size_t n = 0;
  for (const auto& operation : operations.as_array()) {
    const std::string where = "operation " + std::to_string(n++);
    const auto* op = operation.if_object();
    if (!op) return patchError(where + ": must be an object");
    const auto* name = op->if_contains("op");
    const auto* path = op->if_contains("path");
    if (!name || !name->is_string() || !path || !path->is_string())
      return patchError(where + ": \"op\" and \"path\" are required");
    auto tokens = pointerTokens(path->as_string());
    if (!tokens)
      return patchError(where + ": invalid path \"" + std::string(path->as_string()) + "\"");
    const std::string verb(name->as_string());
    const json::value* value = op->if_contains("value");
    auto missing = [&] {
      return patchError(where + " (" + verb + "): path \"" + std::string(path->as_string()) +
                        "\" does not exist");
    };
    if (verb == "add" || verb == "replace") {
      if (!value) return patchError(where + ": \"value\" is required");
      if (!addAt(target, *tokens, *value, verb == "replace")) return missing();
    } else if (verb == "remove") {
      if (!removeAt(target, *tokens)) return missing();
    } else if (verb == "test") {
      auto current = getAt(target, *tokens);
      if (!value || !current || *current != *value)
        return patchError(where + " (test): the value at \"" + std::string(path->as_string()) +
                          "\" differs");
    } else if (verb == "move" || verb == "copy") {
      const auto* from = op->if_contains("from");
      auto fromTokens = from && from->is_string() ? pointerTokens(from->as_string()) : std::nullopt;
      if (!fromTokens) return patchError(where + ": \"from\" is required");
      auto moved = getAt(target, *fromTokens);
      if (!moved) return missing();
      if (verb == "move" && !removeAt(target, *fromTokens)) return missing();
      if (!addAt(target, *tokens, *moved, false)) return missing();
    } else {
      return patchError(where + ": unknown op \"" + verb + "\"");
    }
  }
  return target;
}

api::Result<json::value> applyStrategicMergePatch(json::value target, const json::value& patch) {
  if (!patch.is_object()) return patchError("a strategic merge patch must be a JSON object");
  return strategicMerge(std::move(target), patch, "");
}

std::string strategicMergeKey(const std::string& field, const json::array& items) {
  return mergeKeyFor(field, items);
}

}  // namespace flotilla::api
