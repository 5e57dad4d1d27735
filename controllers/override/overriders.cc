#include "controllers/override/overriders.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "api/patch.h"
#include "api/unstructured.h"
#include "interpreter/interpreter.h"

namespace flotilla::controllers::override {

namespace json = boost::json;
namespace u = api::unstructured;

ImageRef ImageRef::parse(const std::string& image) {
  ImageRef out;
  std::string rest = image;
  if (const auto at = rest.find('@'); at != std::string::npos) {
    out.digest = rest.substr(at + 1);
    rest.resize(at);
  }
  if (const auto slash = rest.find('/'); slash != std::string::npos) {
    const std::string first = rest.substr(0, slash);
    if (first.find('.') != std::string::npos || first.find(':') != std::string::npos ||
        first == "localhost") {
      out.registry = first;
      rest = rest.substr(slash + 1);
    }
  }
  // A tag is after the last ':' of the last path part (a registry's port is not in `rest`).
  const auto lastSlash = rest.rfind('/');
  const auto colon = rest.rfind(':');
  if (colon != std::string::npos && (lastSlash == std::string::npos || colon > lastSlash)) {
    out.tag = rest.substr(colon + 1);
    rest.resize(colon);
  }
  out.repository = rest;
  return out;
}

std::string ImageRef::str() const {
  std::string out = registry.empty() ? repository : registry + "/" + repository;
  if (!tag.empty()) out += ":" + tag;
  if (!digest.empty()) out += "@" + digest;
  return out;
}

namespace {

// The containers and initContainers of `pod` (a pod spec), each with its list name.
std::vector<json::object*> containersOf(json::object* pod) {
  std::vector<json::object*> out;
  if (pod == nullptr) return out;
  for (const char* list : {"initContainers", "containers"}) {
    auto* items = pod->if_contains(list);
    if (items == nullptr || !items->is_array()) continue;
    for (auto& c : items->as_array())
      if (c.is_object()) out.push_back(&c.as_object());
  }
  return out;
}

json::object* podSpecOf(json::object& object) {
  const auto interpreter = interpreter::Registry::builtIn().of(u::stringAt(object, {"apiVersion"}),
                                                               u::stringAt(object, {"kind"}));
  const auto& path = interpreter.podSpecPath();
  if (path.empty()) return nullptr;
  json::object* at = &object;
  for (const auto& step : path) {
    auto* next = at->if_contains(step);
    if (next == nullptr || !next->is_object()) return nullptr;
    at = &next->as_object();
  }
  return at;
}

std::string nameOf(const json::object& container) { return u::stringAt(container, {"name"}); }

// Sets, keeps or removes one component of an image (addIfAbsent: only where it has none).
// Returns false when the operation cannot be made (a repository deleted).
bool overrideImage(ImageRef& ref, const api::ImageOverrider& o) {
  std::string* part = o.component == "Registry"     ? &ref.registry
                      : o.component == "Repository" ? &ref.repository
                      : o.component == "Tag"        ? &ref.tag
                                                    : &ref.digest;
  if (o.operator_ == "delete") {
    if (part == &ref.repository) return false;
    part->clear();
  } else if (o.operator_ == "addIfAbsent") {
    if (part->empty()) *part = o.value;
  } else {  // overwrite
    *part = o.value;
  }
  return true;
}

// A container's command or args, changed as `o` says.
void overrideList(json::object& container, const char* field, const api::CommandArgsOverrider& o) {
  json::array current;
  if (auto* v = container.if_contains(field); v && v->is_array()) current = v->as_array();
  if (o.operator_ == "overwrite") {
    current.clear();
    for (const auto& s : o.value) current.push_back(json::value(s));
  } else if (o.operator_ == "append") {
    for (const auto& s : o.value) current.push_back(json::value(s));
  } else {  // delete: the values listed, or all of them when none is
    if (o.value.empty()) {
      current.clear();
    } else {
      json::array kept;
      for (const auto& item : current)
        if (!item.is_string() || std::find(o.value.begin(), o.value.end(),
                                           std::string(item.as_string())) == o.value.end())
          kept.push_back(item);
      current = std::move(kept);
    }
  }
  if (current.empty())
    container.erase(field);
  else
    container[field] = std::move(current);
}

void overrideEnv(json::object& container, const api::EnvOverrider& o) {
  json::array env;
  if (auto* v = container.if_contains("env"); v && v->is_array()) env = v->as_array();
  auto find = [&](const std::string& name) {
    return std::find_if(env.begin(), env.end(), [&](const json::value& e) {
      return e.is_object() && u::stringAt(e.as_object(), {"name"}) == name;
    });
  };
  for (const auto& var : o.value) {
    const std::string name = u::stringAt(var, {"name"});
    auto it = find(name);
    if (o.operator_ == "delete") {
      if (it != env.end()) env.erase(it);
    } else if (it == env.end()) {
      env.push_back(var);
    } else if (o.operator_ == "overwrite") {
      *it = var;
    }
  }
  if (env.empty())
    container.erase("env");
  else
    container["env"] = std::move(env);
}

void overrideMetadata(json::object& object, const char* field, const api::MetadataOverrider& o) {
  auto& meta = u::ensureObject(object, {"metadata"});
  json::object values;
  if (auto* v = meta.if_contains(field); v && v->is_object()) values = v->as_object();
  for (const auto& [key, value] : o.value) {
    if (o.operator_ == "delete")
      values.erase(key);
    else if (o.operator_ == "overwrite" || !values.contains(key))
      values[key] = value;
  }
  if (values.empty())
    meta.erase(field);
  else
    meta[field] = std::move(values);
}

std::string kindOf(const json::object& object) { return u::stringAt(object, {"kind"}); }

}  // namespace

OverrideResult applyRules(json::object& object, const std::vector<RuleRef>& rules) {
  OverrideResult out;
  auto applied = [&](const std::string& policy) {
    if (std::find(out.applied.begin(), out.applied.end(), policy) == out.applied.end())
      out.applied.push_back(policy);
  };
  for (const auto& ref : rules) {
    if (ref.rule == nullptr) continue;
    const api::Overriders& o = ref.rule->overriders;
    const std::string where = ref.policy + " rule " + std::to_string(ref.index);
    auto skip = [&](const char* overrider, const std::string& why) {
      out.skipped.push_back(where + ": " + overrider + ": " + why);
    };
    bool did = false;
    // Container overriders: the pod spec's containers (looked up again per rule: a jsonPatch of
    // an earlier rule may have changed them).
    const bool containerWork =
        !o.image.empty() || !o.command.empty() || !o.args.empty() || !o.env.empty();
    json::object* pod = containerWork ? podSpecOf(object) : nullptr;
    if (containerWork && pod == nullptr) {
      for (const auto& [name, present] :
           {std::pair{"image", !o.image.empty()}, std::pair{"command", !o.command.empty()},
            std::pair{"args", !o.args.empty()}, std::pair{"env", !o.env.empty()}})
        if (present) skip(name, kindOf(object) + " has no pod template");
    } else if (containerWork) {
      const auto containers = containersOf(pod);
      for (const auto& image : o.image) {
        bool any = false;
        for (json::object* c : containers) {
          if (!image.containerNames.empty() &&
              std::find(image.containerNames.begin(), image.containerNames.end(), nameOf(*c)) ==
                  image.containerNames.end())
            continue;
          ImageRef ref = ImageRef::parse(u::stringAt(*c, {"image"}));
          if (!overrideImage(ref, image)) {
            skip("image", "a Repository cannot be deleted");
            break;
          }
          (*c)["image"] = ref.str();
          any = true;
        }
        if (any)
          did = true;
        else if (!image.containerNames.empty())
          skip("image", "no container of those names");
      }
      for (const auto& [field, list] :
           {std::pair{"command", &o.command}, std::pair{"args", &o.args}})
        for (const auto& change : *list) {
          auto it = std::find_if(containers.begin(), containers.end(), [&](json::object* c) {
            return nameOf(*c) == change.containerName;
          });
          if (it == containers.end()) {
            skip(field, "no container named \"" + change.containerName + "\"");
            continue;
          }
          overrideList(**it, field, change);
          did = true;
        }
      for (const auto& change : o.env) {
        auto it = std::find_if(containers.begin(), containers.end(),
                               [&](json::object* c) { return nameOf(*c) == change.containerName; });
        if (it == containers.end()) {
          skip("env", "no container named \"" + change.containerName + "\"");
          continue;
        }
        overrideEnv(**it, change);
        did = true;
      }
    }
    for (const auto& change : o.labels) {
      overrideMetadata(object, "labels", change);
      did = true;
    }
    for (const auto& change : o.annotations) {
      overrideMetadata(object, "annotations", change);
      did = true;
    }
    for (const auto& p : o.jsonPatch) {
      json::object op{{"op", p.op}, {"path", p.path}};
      if (p.op != "remove") op["value"] = p.value;
      auto next = api::applyJsonPatch(json::value(object), json::array{op});
      if (!next || !next->is_object()) {
        out.error = where + ": jsonPatch " + p.op + " " + p.path + ": " +
                    (next ? std::string("did not leave an object") : next.error().message);
        return out;
      }
      object = std::move(next->as_object());
      did = true;
    }
    if (did) applied(ref.policy);
  }
  return out;
}

std::vector<std::string> describeOperations(const api::Overriders& o) {
  std::vector<std::string> out;
  auto quoted = [](const std::string& v) { return json::serialize(json::value(v)); };
  auto list = [&](const std::vector<std::string>& items) {
    std::string s;
    for (const auto& i : items) s += (s.empty() ? "" : ", ") + quoted(i);
    return "[" + s + "]";
  };
  for (const auto& i : o.image) {
    std::string names;
    for (const auto& n : i.containerNames) names += (names.empty() ? "" : ", ") + n;
    out.push_back("image " + i.component + " " + i.operator_ +
                  (i.operator_ == "delete" ? "" : " " + quoted(i.value)) +
                  (names.empty() ? " (every container)" : " (containers " + names + ")"));
  }
  for (const auto& [field, changes] :
       {std::pair{"command", &o.command}, std::pair{"args", &o.args}})
    for (const auto& c : *changes)
      out.push_back(std::string(field) + " " + c.operator_ + " " + list(c.value) + " (container " +
                    c.containerName + ")");
  for (const auto& e : o.env) {
    std::string vars;
    for (const auto& v : e.value) vars += (vars.empty() ? "" : ", ") + json::serialize(v);
    out.push_back("env " + e.operator_ + " [" + vars + "] (container " + e.containerName + ")");
  }
  for (const auto& [field, changes] :
       {std::pair{"labels", &o.labels}, std::pair{"annotations", &o.annotations}})
    for (const auto& c : *changes) {
      std::string values;
      for (const auto& [k, v] : c.value)
        values +=
            (values.empty() ? "" : ", ") + k + (c.operator_ == "delete" ? "" : ": " + quoted(v));
      out.push_back(std::string(field) + " " + c.operator_ + " {" + values + "}");
    }
  for (const auto& p : o.jsonPatch)
    out.push_back("jsonPatch " + p.op + " " + p.path +
                  (p.op == "remove" ? "" : " " + json::serialize(p.value)));
  return out;
}

std::string appliedList(const std::vector<std::string>& policies) {
  std::string out;
  for (const auto& p : policies) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::vector<std::string> parseAppliedList(const std::string& annotation) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < annotation.size()) {
    size_t comma = annotation.find(',', start);
    if (comma == std::string::npos) comma = annotation.size();
    if (comma > start) out.push_back(annotation.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace flotilla::controllers::override
