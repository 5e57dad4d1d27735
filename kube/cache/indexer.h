// The in-memory cache behind an informer: objects by "namespace/name" (or "name" when
// cluster-scoped), with a namespace index and any number of custom indexes. Thread-safe: the
// reflector writes on the I/O thread while reconcilers read from worker threads. Objects are
// immutable shared pointers, so readers never copy JSON and never see a half-written object.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace flotilla::kube {

using ObjectPtr = std::shared_ptr<const boost::json::object>;

// "ns/name", or "name" for cluster-scoped objects: the key work queues carry.
std::string objectKey(const boost::json::object& object);
std::string resourceVersionOf(const boost::json::object& object);

using IndexFunc = std::function<std::vector<std::string>(const boost::json::object&)>;
inline constexpr const char* kNamespaceIndex = "namespace";
// Index values "key=value" for every label, so selectors on one label are a lookup.
std::vector<std::string> labelIndexValues(const boost::json::object& object);

// What a write did, for the informer's handlers.
struct Change {
  enum class Type { kAdded, kUpdated, kDeleted };
  Type type;
  ObjectPtr oldObject;  // updated, deleted
  ObjectPtr newObject;  // added, updated
  // Deleted while no watch event said so (found missing on relist): oldObject is the last state
  // we saw, not necessarily the final one (client-go's DeletedFinalStateUnknown).
  bool finalStateUnknown = false;
};

class Indexer {
 public:
  Indexer();
  // Must be called before objects arrive.
  void addIndex(const std::string& name, IndexFunc func);

  // Insert or replace; no change when the stored object has the same resourceVersion (a duplicate
  // delivery). Returns the change made, if any.
  std::optional<Change> upsert(ObjectPtr object);
  // Remove by the object's key; nullopt when it was not there.
  std::optional<Change> remove(const boost::json::object& object);
  // The whole content after a relist: adds, updates and (final-state-unknown) deletes that turn
  // the old content into `objects`, in that order.
  std::vector<Change> replace(std::vector<ObjectPtr> objects);

  ObjectPtr get(const std::string& key) const;
  std::vector<ObjectPtr> list() const;
  std::vector<std::string> keys() const;
  std::vector<ObjectPtr> byIndex(const std::string& index, const std::string& value) const;
  // How many objects byIndex would return, without collecting them.
  size_t countInIndex(const std::string& index, const std::string& value) const;
  size_t size() const;

 private:
  void indexLocked(const std::string& key, const boost::json::object& object, bool add);
  void reindexLocked(const std::string& key, const boost::json::object& old,
                     const boost::json::object& now);
  std::optional<Change> upsertLocked(ObjectPtr object);

  mutable std::shared_mutex mutex_;
  std::map<std::string, ObjectPtr> objects_;
  std::map<std::string, IndexFunc> indexFuncs_;
  // index name → value → keys
  std::map<std::string, std::unordered_map<std::string, std::set<std::string>>> indexes_;
};

}  // namespace flotilla::kube
