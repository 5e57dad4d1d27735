#include "controllers/common/cache_transforms.h"

#include <boost/json.hpp>
#include <initializer_list>
#include <string_view>

namespace flotilla::controllers {
namespace json = boost::json;

namespace {

// Keeps only `keys` of `o[field]` when it is an object.
void keepOnly(json::object& o, std::string_view field,
              std::initializer_list<std::string_view> keys) {
  auto* v = o.if_contains(field);
  if (!v || !v->is_object()) return;
  json::object kept;
  for (auto key : keys)
    if (auto* x = v->as_object().if_contains(key)) kept[key] = std::move(*x);
  *v = std::move(kept);
}

void trimContainers(json::object& spec, std::string_view field) {
  auto* list = spec.if_contains(field);
  if (!list || !list->is_array()) return;
  for (auto& c : list->as_array())
    if (c.is_object()) {
      json::object kept;
      for (std::string_view key : {"name", "resources"})
        if (auto* x = c.as_object().if_contains(key)) kept[key] = std::move(*x);
      c = std::move(kept);
    }
}

void trimMetadata(json::object& o, bool keepAnnotations) {
  auto* m = o.if_contains("metadata");
  if (!m || !m->is_object()) return;
  auto& meta = m->as_object();
  meta.erase("managedFields");
  if (!keepAnnotations) meta.erase("annotations");
}

}  // namespace

void trimPod(json::object& pod) {
  trimMetadata(pod, false);
  keepOnly(pod, "spec", {"nodeName", "containers", "initContainers", "overhead"});
  if (auto* spec = pod.if_contains("spec"); spec && spec->is_object()) {
    trimContainers(spec->as_object(), "containers");
    trimContainers(spec->as_object(), "initContainers");
  }
  keepOnly(pod, "status", {"phase", "conditions"});
}

void trimReplicaSet(json::object& replicaSet) {
  trimMetadata(replicaSet, true);  // deployment.kubernetes.io/revision is read
  replicaSet.erase("spec");
  replicaSet.erase("status");
}

}  // namespace flotilla::controllers
