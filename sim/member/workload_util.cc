#include "sim/member/workload_util.h"

#include <algorithm>

#include "sim/server/defaults.h"
#include "sim/storage/ids.h"

namespace flotilla::sim::workload {

json::object controllerRef(const json::object& owner, const char* apiVersion, const char* kind) {
  return json::object{
      {"apiVersion", apiVersion},    {"kind", kind},       {"name", metaOf(owner, "name")},
      {"uid", metaOf(owner, "uid")}, {"controller", true}, {"blockOwnerDeletion", true}};
}

std::map<std::string, std::vector<const json::object*>> byController(const Shared& items) {
  std::map<std::string, std::vector<const json::object*>> index;
  for (const auto& shared : items) {
    const auto* refs = obj(*shared, "metadata").if_contains("ownerReferences");
    if (!refs || !refs->is_array()) continue;
    for (const auto& r : refs->as_array()) {
      if (!r.is_object() || !flag(r.as_object(), "controller")) continue;
      index[str(r.as_object(), "uid")].push_back(shared.get());
      break;
    }
  }
  return index;
}

const std::vector<const json::object*>& controlledBy(
    const std::map<std::string, std::vector<const json::object*>>& index, const std::string& uid) {
  static const std::vector<const json::object*> kNone;
  auto it = index.find(uid);
  return it == index.end() ? kNone : it->second;
}

const json::object* conditionOf(const json::object& status, std::string_view type) {
  const auto* conditions = status.if_contains("conditions");
  if (!conditions || !conditions->is_array()) return nullptr;
  for (const auto& c : conditions->as_array())
    if (c.is_object() && str(c.as_object(), "type") == type) return &c.as_object();
  return nullptr;
}

bool conditionIs(const json::object& status, std::string_view type, std::string_view value) {
  const json::object* c = conditionOf(status, type);
  return c && str(*c, "status") == value;
}

json::object makeCondition(const json::object& previousStatus, const std::string& type,
                           const std::string& status, const std::string& reason,
                           const std::string& message, const std::string& now, bool withProbeTime) {
  const json::object* before = conditionOf(previousStatus, type);
  const bool same = before && str(*before, "status") == status;
  json::object c{{"type", type}, {"status", status}};
  if (withProbeTime) c["lastProbeTime"] = same ? str(*before, "lastProbeTime") : now;
  c["lastTransitionTime"] = same ? str(*before, "lastTransitionTime") : now;
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

bool podTerminal(const json::object& pod) {
  const std::string phase = str(obj(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

bool podReady(const json::object& pod) {
  const auto& status = obj(pod, "status");
  return str(status, "phase") == "Running" && conditionIs(status, "Ready", "True");
}

json::object podFromTemplate(const json::object& podTemplate, const std::string& ns,
                             const std::string& name, const std::string& generateName,
                             json::object labels, json::object ownerRef, const std::string& now) {
  json::object metadata{{"name", name},
                        {"namespace", ns},
                        {"uid", newUid()},
                        {"creationTimestamp", now},
                        {"labels", std::move(labels)},
                        {"ownerReferences", json::array{std::move(ownerRef)}}};
  if (!generateName.empty()) metadata["generateName"] = generateName;
  const auto& annotations = obj(obj(podTemplate, "metadata"), "annotations");
  if (!annotations.empty()) metadata["annotations"] = annotations;
  json::object pod{{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata", std::move(metadata)},
                   {"spec", obj(podTemplate, "spec")}};
  applyDefaults("", "pods", pod);
  admitPod(pod, nullptr);
  pod["status"] = json::object{{"phase", "Pending"}, {"qosClass", podQosClass(pod)}};
  return pod;
}

std::string stableSuffix(std::string_view seed) {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : seed) h = (h ^ c) * 1099511628211ull;
  std::string out;
  for (int i = 0; i < 5; ++i) {
    out += kAlphabet[h % (sizeof kAlphabet - 1)];
    h /= (sizeof kAlphabet - 1);
  }
  return out;
}

int writeStatus(Store& store, const std::string& resource, const json::object& current,
                json::object status) {
  if (status == obj(current, "status")) return 0;
  json::object next = current;
  next["status"] = std::move(status);
  const bool written =
      bool(store.update({resource, metaOf(current, "namespace"), metaOf(current, "name")},
                        std::move(next), resourceVersionOf(current)));
  return written ? 1 : 0;
}

int removeObject(Store& store, const std::string& resource, const json::object& o) {
  const std::string ns = metaOf(o, "namespace");
  int writes = 0;
  if (resource == "batch/jobs") {
    const std::string uid = metaOf(o, "uid");
    for (const auto& pod : store.listShared("/pods", ns)) {
      const auto* refs = obj(*pod, "metadata").if_contains("ownerReferences");
      if (!refs || !refs->is_array()) continue;
      for (const auto& r : refs->as_array())
        if (r.is_object() && str(r.as_object(), "uid") == uid) {
          if (store.remove({"/pods", ns, metaOf(*pod, "name")}, std::nullopt)) ++writes;
          break;
        }
    }
  }
  if (store.remove({resource, ns, metaOf(o, "name")}, std::nullopt)) ++writes;
  return writes;
}

}  // namespace flotilla::sim::workload
