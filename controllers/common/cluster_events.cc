#include "controllers/common/cluster_events.h"

#include <boost/json.hpp>

#include "scheduler/schedule_type.h"

namespace flotilla::controllers {
namespace json = boost::json;
namespace fs = flotilla::scheduler;

const json::object* readyCondition(const json::object& fc) {
  const auto* status = fc.if_contains("status");
  const auto* conditions =
      status && status->is_object() ? status->as_object().if_contains("conditions") : nullptr;
  if (!conditions || !conditions->is_array()) return nullptr;
  for (const auto& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    const auto* type = c.as_object().if_contains("type");
    if (type && type->is_string() && type->as_string() == "Ready") return &c.as_object();
  }
  return nullptr;
}

std::string readyStatus(const json::object& fc) {
  const auto* ready = readyCondition(fc);
  const auto* value = ready ? ready->if_contains("status") : nullptr;
  return value && value->is_string() ? std::string(value->as_string()) : "";
}

void addBindingsByClusterIndex(kube::SharedInformer& bindings) {
  bindings.addIndex(kBindingsByClusterIndex, [](const json::object& o) {
    std::vector<std::string> names;
    if (const auto* meta = o.if_contains("metadata"); meta && meta->is_object()) {
      const auto* annotations = meta->as_object().if_contains("annotations");
      const auto* record = annotations && annotations->is_object()
                               ? annotations->as_object().if_contains(fs::kScheduleRecordAnnotation)
                               : nullptr;
      if (record && record->is_string()) {
        if (auto decoded = fs::decodeRecord(std::string(record->as_string())))
          names = std::move(decoded->failedOver);
      }
    }
    const auto* spec = o.if_contains("spec");
    const auto* clusters =
        spec && spec->is_object() ? spec->as_object().if_contains("clusters") : nullptr;
    if (!clusters || !clusters->is_array()) return names;
    for (const auto& c : clusters->as_array()) {
      if (const auto* n = c.is_object() ? c.as_object().if_contains("name") : nullptr;
          n && n->is_string())
        names.emplace_back(n->as_string());
    }
    return names;
  });
}

void watchClusterReadiness(kube::Controller& controller, kube::SharedInformer& clusters,
                           kube::SharedInformer& bindings) {
  addBindingsByClusterIndex(bindings);
  controller.watch(
      clusters,
      [&bindings](const kube::ObjectPtr& fc) {
        std::vector<std::string> keys;
        for (const auto& rb :
             bindings.store().byIndex(kBindingsByClusterIndex, kube::objectKey(*fc)))
          keys.push_back(kube::objectKey(*rb));
        return keys;
      },
      kube::Predicate{nullptr,
                      [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                        return readyStatus(*a) != readyStatus(*b);
                      },
                      nullptr});
}

}  // namespace flotilla::controllers
