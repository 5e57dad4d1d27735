// What the workload controllers of a member (statefulset_controller.cc, daemonset_controller.cc,
// job_controller.cc, cronjob_controller.cc, hpa_controller.cc) share: JSON access, owner
// references, pods made from templates as the API server would store them, and status writes
// that happen only when something changed. Functions live in a named namespace (not anonymous
// ones): the unity build compiles these files together with member_controller.cc.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/time.h"
#include "sim/storage/store.h"

namespace flotilla::sim::workload {

namespace json = boost::json;
using Shared = std::vector<std::shared_ptr<const json::object>>;

inline const json::object& obj(const json::object& o, std::string_view key) {
  static const json::object kEmpty;
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : kEmpty;
}
inline std::string str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
inline int64_t num(const json::object& o, std::string_view key, int64_t fallback) {
  const auto* v = o.if_contains(key);
  if (v && v->is_int64()) return v->as_int64();
  if (v && v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return fallback;
}
inline bool flag(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}
inline std::string metaOf(const json::object& o, std::string_view key) {
  return str(obj(o, "metadata"), key);
}
inline std::string annotation(const json::object& o, std::string_view key) {
  return str(obj(obj(o, "metadata"), "annotations"), key);
}
inline std::string label(const json::object& o, std::string_view key) {
  return str(obj(obj(o, "metadata"), "labels"), key);
}
inline int64_t resourceVersionOf(const json::object& o) {
  try {
    return std::stoll(metaOf(o, "resourceVersion"));
  } catch (const std::exception&) {
    return 0;
  }
}
inline int64_t generationOf(const json::object& o) {
  return num(obj(o, "metadata"), "generation", 1);
}
inline bool deleting(const json::object& o) { return !metaOf(o, "deletionTimestamp").empty(); }

// The owner reference a controller sets on what it creates.
json::object controllerRef(const json::object& owner, const char* apiVersion, const char* kind);
// Objects by the uid of their controller (ownerReferences with controller: true).
std::map<std::string, std::vector<const json::object*>> byController(const Shared& items);
const std::vector<const json::object*>& controlledBy(
    const std::map<std::string, std::vector<const json::object*>>& index, const std::string& uid);

const json::object* conditionOf(const json::object& status, std::string_view type);
bool conditionIs(const json::object& status, std::string_view type, std::string_view value);
// A condition; lastTransitionTime kept from `previous` when its status is the same.
json::object makeCondition(const json::object& previousStatus, const std::string& type,
                           const std::string& status, const std::string& reason,
                           const std::string& message, const std::string& now, bool withProbeTime);

bool podTerminal(const json::object& pod);
bool podReady(const json::object& pod);  // Running with Ready=True

// A pod from a template as the API server stores a controller's pod: defaults, the pod admission
// plugins, status {phase Pending, qosClass}; uid and creationTimestamp set.
json::object podFromTemplate(const json::object& podTemplate, const std::string& ns,
                             const std::string& name, const std::string& generateName,
                             json::object labels, json::object ownerRef, const std::string& now);

// Five lower-case characters derived from `seed` (kube's random suffix alphabet).
std::string stableSuffix(std::string_view seed);

// Writes `status` into the stored object when it differs (ignoring the listed condition time
// fields); returns 1 for a write, 0 otherwise.
int writeStatus(Store& store, const std::string& resource, const json::object& current,
                json::object status);

// Deletes the object (and, for a Job, its pods: an in-process delete has no garbage collector).
int removeObject(Store& store, const std::string& resource, const json::object& o);

}  // namespace flotilla::sim::workload
