#include "controllers/common/finalizers.h"

#include <algorithm>
#include <boost/json.hpp>

namespace flotilla::controllers {

namespace json = boost::json;

bool hasFinalizer(const api::ObjectMeta& meta, const std::string& finalizer) {
  return std::find(meta.finalizers.begin(), meta.finalizers.end(), finalizer) !=
         meta.finalizers.end();
}

api::Result<bool> addFinalizer(json::object& object, const std::string& finalizer) {
  auto& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object{};
  auto& list = meta.as_object()["finalizers"];
  if (!list.is_array()) list = json::array{};
  for (const auto& f : list.as_array())
    if (f.is_string() && f.as_string() == finalizer) return false;
  list.as_array().emplace_back(finalizer);
  return true;
}

api::Result<bool> removeFinalizer(json::object& object, const std::string& finalizer) {
  auto* meta = object.if_contains("metadata");
  auto* list = meta && meta->is_object() ? meta->as_object().if_contains("finalizers") : nullptr;
  if (!list || !list->is_array()) return false;
  auto& items = list->as_array();
  const auto before = items.size();
  items.erase(std::remove_if(items.begin(), items.end(),
                             [&](const json::value& f) {
                               return f.is_string() && f.as_string() == finalizer;
                             }),
              items.end());
  return items.size() != before;
}

}  // namespace flotilla::controllers
