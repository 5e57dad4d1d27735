#include "sim/server/events.h"

#include <array>
#include <boost/json.hpp>
#include <utility>

namespace flotilla::sim {
namespace json = boost::json;

namespace {

// core/v1 name, events.k8s.io/v1 name.
constexpr std::array<std::pair<std::string_view, std::string_view>, 7> kRenamed = {{
    {"involvedObject", "regarding"},
    {"message", "note"},
    {"source", "deprecatedSource"},
    {"reportingComponent", "reportingController"},
    {"count", "deprecatedCount"},
    {"firstTimestamp", "deprecatedFirstTimestamp"},
    {"lastTimestamp", "deprecatedLastTimestamp"},
}};

bool empty(const json::value* v) {
  return !v || v->is_null() || (v->is_string() && v->as_string().empty()) ||
         (v->is_int64() && v->as_int64() == 0) || (v->is_uint64() && v->as_uint64() == 0);
}

// Moves `key` from `from` to `to` as Go serializes it: `always` fields get `fallback` when empty,
// the others (omitempty) are left out when empty.
void move(json::object& from, json::object& to, std::string_view key, std::string_view as,
          bool always, const json::value& fallback) {
  json::value* v = from.if_contains(key);
  if (!empty(v)) {
    to[as] = std::move(*v);
  } else if (always) {
    to[as] = fallback;
  }
  from.erase(key);
}

}  // namespace

json::object eventToCore(json::object e) {
  const auto* apiVersion = e.if_contains("apiVersion");
  if (apiVersion && apiVersion->is_string() && apiVersion->as_string() == "events.k8s.io/v1") {
    for (const auto& [core, v1] : kRenamed) {
      if (auto* v = e.if_contains(v1)) {
        json::value value = std::move(*v);  // inserting into `e` may move its elements
        e.erase(v1);
        e[core] = std::move(value);
      }
    }
  }
  const json::value null;
  const json::value emptyObject = json::object{};
  const json::value emptyString = "";
  json::object out{{"kind", "Event"}, {"apiVersion", "v1"}};
  e.erase("kind");
  e.erase("apiVersion");
  move(e, out, "metadata", "metadata", true, emptyObject);
  move(e, out, "involvedObject", "involvedObject", true, emptyObject);
  move(e, out, "reason", "reason", false, null);
  move(e, out, "message", "message", false, null);
  move(e, out, "source", "source", true, emptyObject);
  move(e, out, "firstTimestamp", "firstTimestamp", true, null);
  move(e, out, "lastTimestamp", "lastTimestamp", true, null);
  move(e, out, "count", "count", false, null);
  move(e, out, "type", "type", false, null);
  move(e, out, "eventTime", "eventTime", true, null);
  move(e, out, "series", "series", false, null);
  move(e, out, "action", "action", false, null);
  move(e, out, "related", "related", false, null);
  move(e, out, "reportingComponent", "reportingComponent", true, emptyString);
  move(e, out, "reportingInstance", "reportingInstance", true, emptyString);
  for (auto& [key, value] : e) out[key] = std::move(value);  // fields neither API knows: kept
  return out;
}

json::object eventToEventsV1(const json::object& stored) {
  json::object core = eventToCore(stored);
  const json::value null;
  const json::value emptyObject = json::object{};
  json::object out{{"kind", "Event"}, {"apiVersion", "events.k8s.io/v1"}};
  core.erase("kind");
  core.erase("apiVersion");
  move(core, out, "metadata", "metadata", true, emptyObject);
  move(core, out, "eventTime", "eventTime", true, null);
  move(core, out, "series", "series", false, null);
  move(core, out, "reportingComponent", "reportingController", false, null);
  move(core, out, "reportingInstance", "reportingInstance", false, null);
  move(core, out, "action", "action", false, null);
  move(core, out, "reason", "reason", false, null);
  move(core, out, "involvedObject", "regarding", true, emptyObject);
  move(core, out, "related", "related", false, null);
  move(core, out, "message", "note", false, null);
  move(core, out, "type", "type", false, null);
  move(core, out, "source", "deprecatedSource", true, emptyObject);
  move(core, out, "firstTimestamp", "deprecatedFirstTimestamp", true, null);
  move(core, out, "lastTimestamp", "deprecatedLastTimestamp", true, null);
  move(core, out, "count", "deprecatedCount", false, null);
  for (auto& [key, value] : core) out[key] = std::move(value);
  return out;
}

std::string eventsV1FieldToCore(const std::string& path) {
  for (const auto& [core, v1] : kRenamed) {
    if (path == v1) return std::string(core);
    if (path.size() > v1.size() && path.compare(0, v1.size(), v1) == 0 && path[v1.size()] == '.')
      return std::string(core) + path.substr(v1.size());
  }
  return path;
}

std::string coreEventSourceLabel(const json::object& core) {
  std::string component;
  if (const auto* source = core.if_contains("source"); source && source->is_object())
    if (const auto* c = source->as_object().if_contains("component"); c && c->is_string())
      component = c->as_string();
  if (component.empty())
    if (const auto* r = core.if_contains("reportingComponent"); r && r->is_string())
      component = r->as_string();
  return component;
}

}  // namespace flotilla::sim
