#include "controllers/common/cluster_events.h"

#include <boost/json.hpp>

namespace flotilla::controllers {
namespace json = boost::json;

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

void watchClusterReadiness(kube::Controller& controller, kube::SharedInformer& clusters,
                           kube::SharedInformer& bindings) {
  controller.watch(
      clusters,
      [&bindings](const kube::ObjectPtr& fc) {
        std::vector<std::string> keys;
        for (const auto& rb : bindings.store().byIndex("cluster", kube::objectKey(*fc)))
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
