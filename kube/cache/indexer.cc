#include "kube/cache/indexer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json.hpp>
#include <mutex>

namespace flotilla::kube {
namespace json = boost::json;

namespace {

const json::object* metadata(const json::object& object) {
  const auto* m = object.if_contains("metadata");
  return m && m->is_object() ? &m->as_object() : nullptr;
}

std::string metaString(const json::object& object, const char* key) {
  const auto* m = metadata(object);
  if (!m) return "";
  const auto* v = m->if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

std::string objectKey(const json::object& object) {
  const std::string ns = metaString(object, "namespace");
  const std::string name = metaString(object, "name");
  return ns.empty() ? name : ns + "/" + name;
}

std::string resourceVersionOf(const json::object& object) {
  return metaString(object, "resourceVersion");
}

std::vector<std::string> labelIndexValues(const json::object& object) {
  std::vector<std::string> out;
  const auto* m = metadata(object);
  if (!m) return out;
  const auto* labels = m->if_contains("labels");
  if (!labels || !labels->is_object()) return out;
  for (const auto& [k, v] : labels->as_object()) {
    if (v.is_string()) out.push_back(std::string(k) + "=" + std::string(v.as_string()));
  }
  return out;
}

Indexer::Indexer() {
  addIndex(kNamespaceIndex, [](const json::object& o) {
    return std::vector<std::string>{metaString(o, "namespace")};
  });
}

namespace {
// An index function reads outside data; one that throws on an object it did not expect (a bug)
// indexes that object under no value rather than leaving the store half updated.
std::vector<std::string> indexValues(const std::string& name, const IndexFunc& func,
                                     const json::object& object) {
  try {
    return func(object);
  } catch (const std::exception& e) {
    spdlog::error("indexer: index {} failed on {}: {}", name, objectKey(object), e.what());
    return {};
  }
}
}  // namespace

void Indexer::addIndex(const std::string& name, IndexFunc func) {
  std::unique_lock lock(mutex_);
  indexFuncs_[name] = std::move(func);
  auto& index = indexes_[name];
  index.clear();
  for (const auto& [key, object] : objects_) {
    for (const auto& value : indexValues(name, indexFuncs_[name], *object))
      index[value].insert(key);
  }
}

void Indexer::indexLocked(const std::string& key, const json::object& object, bool add) {
  for (const auto& [name, func] : indexFuncs_) {
    auto& index = indexes_[name];
    for (const auto& value : indexValues(name, func, object)) {
      if (add) {
        index[value].insert(key);
      } else if (auto it = index.find(value); it != index.end()) {
        it->second.erase(key);
        if (it->second.empty()) index.erase(it);
      }
    }
  }
}

// Most updates (a status written) leave every index value as it was: those keys are not moved.
// (Removing and re-adding a key under a value shared by thousands, a namespace, was most of an
// update's cost in the indexer.)
void Indexer::reindexLocked(const std::string& key, const json::object& old,
                            const json::object& now) {
  for (const auto& [name, func] : indexFuncs_) {
    auto before = indexValues(name, func, old);
    auto after = indexValues(name, func, now);
    if (before == after) continue;
    auto& index = indexes_[name];
    for (const auto& value : before) {
      if (std::find(after.begin(), after.end(), value) != after.end()) continue;
      if (auto it = index.find(value); it != index.end()) {
        it->second.erase(key);
        if (it->second.empty()) index.erase(it);
      }
    }
    for (const auto& value : after)
      if (std::find(before.begin(), before.end(), value) == before.end()) index[value].insert(key);
  }
}

std::optional<Change> Indexer::upsertLocked(ObjectPtr object) {
  const std::string key = objectKey(*object);
  auto it = objects_.find(key);
  if (it == objects_.end()) {
    indexLocked(key, *object, true);
    objects_.emplace(key, object);
    return Change{Change::Type::kAdded, nullptr, std::move(object)};
  }
  if (resourceVersionOf(*it->second) == resourceVersionOf(*object)) return std::nullopt;
  ObjectPtr old = it->second;
  reindexLocked(key, *old, *object);
  it->second = object;
  return Change{Change::Type::kUpdated, std::move(old), std::move(object)};
}

std::optional<Change> Indexer::upsert(ObjectPtr object) {
  std::unique_lock lock(mutex_);
  return upsertLocked(std::move(object));
}

std::optional<Change> Indexer::remove(const json::object& object) {
  std::unique_lock lock(mutex_);
  auto it = objects_.find(objectKey(object));
  if (it == objects_.end()) return std::nullopt;
  ObjectPtr old = it->second;
  indexLocked(it->first, *old, false);
  objects_.erase(it);
  return Change{Change::Type::kDeleted, std::move(old), nullptr};
}

std::vector<Change> Indexer::replace(std::vector<ObjectPtr> objects) {
  std::unique_lock lock(mutex_);
  std::vector<Change> changes;
  std::set<std::string> present;
  for (auto& object : objects) {
    present.insert(objectKey(*object));
    if (auto change = upsertLocked(std::move(object))) changes.push_back(std::move(*change));
  }
  for (auto it = objects_.begin(); it != objects_.end();) {
    if (present.count(it->first)) {
      ++it;
      continue;
    }
    indexLocked(it->first, *it->second, false);
    changes.push_back(Change{Change::Type::kDeleted, it->second, nullptr, true});
    it = objects_.erase(it);
  }
  return changes;
}

ObjectPtr Indexer::get(const std::string& key) const {
  std::shared_lock lock(mutex_);
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Indexer::list() const {
  std::shared_lock lock(mutex_);
  std::vector<ObjectPtr> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(object);
  return out;
}

std::vector<std::string> Indexer::keys() const {
  std::shared_lock lock(mutex_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(key);
  return out;
}

std::vector<ObjectPtr> Indexer::byIndex(const std::string& index, const std::string& value) const {
  std::shared_lock lock(mutex_);
  std::vector<ObjectPtr> out;
  auto i = indexes_.find(index);
  if (i == indexes_.end()) return out;
  auto v = i->second.find(value);
  if (v == i->second.end()) return out;
  for (const auto& key : v->second) out.push_back(objects_.at(key));
  return out;
}

size_t Indexer::countInIndex(const std::string& index, const std::string& value) const {
  std::shared_lock lock(mutex_);
  auto i = indexes_.find(index);
  if (i == indexes_.end()) return 0;
  auto v = i->second.find(value);
  return v == i->second.end() ? 0 : v->second.size();
}

size_t Indexer::size() const {
  std::shared_lock lock(mutex_);
  return objects_.size();
}

}  // namespace flotilla::kube
