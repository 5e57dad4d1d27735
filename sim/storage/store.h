// flotilla-sim's object store: every object of every resource as JSON, one global resourceVersion
// counter, a window of recent events for watch resume, and durability through a write-ahead log
// with group commit (see docs/sim.md, "Durability").
//
// A write is applied in memory at once, but it is only acknowledged (and only shown to watchers)
// after its log record reached the disk: callers wait with onDurable() before answering. So a
// crash, even kill -9, never loses a write a client saw succeed, and no watcher ever saw an event
// that a restart would take back.
#pragma once

#include <boost/json/object.hpp>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/result.h"

namespace flotilla::sim {

// "group/resource" ("/namespaces" for the core group): which collection an object belongs to.
struct ObjectKey {
  std::string resource;
  std::string namespace_;  // empty for cluster-scoped objects
  std::string name;
};

struct StoredEvent {
  enum class Type { kAdded, kModified, kDeleted };
  Type type;
  int64_t resourceVersion;
  std::string resource;
  std::string namespace_;
  boost::json::object object;  // the object after the change (before it, for kDeleted)
  std::string objectJson;      // serialized once, shared by every watcher
};
using EventPtr = std::shared_ptr<const StoredEvent>;
const char* eventTypeName(StoredEvent::Type type);

// Receives committed events, in resourceVersion order, on the store's commit thread. Must not
// block and must not call back into the store.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void deliver(const EventPtr& event) = 0;
};

struct StoreOptions {
  std::filesystem::path dataDir;  // empty: memory only (tests)
  size_t eventWindow = 100'000;   // recent events kept for watch resume; older versions get 410
  size_t compactAfterBytes = size_t{64} << 20;  // rewrite the snapshot once the log is this big
};

class Store {
 public:
  // Opens (or creates) the data directory and replays snapshot + log. A torn last record (crash
  // mid-write, never acknowledged) is dropped; any other corruption is an error.
  static api::Result<std::unique_ptr<Store>> open(StoreOptions options);
  ~Store();

  struct Written {
    boost::json::object object;  // as stored, metadata.resourceVersion set
    uint64_t commitSeq = 0;      // pass to onDurable before acknowledging
  };

  api::Result<boost::json::object> get(const ObjectKey& key) const;
  // The stored object itself (nullptr: none), for in-process readers (the member controller).
  std::shared_ptr<const boost::json::object> getShared(const ObjectKey& key) const;
  struct Listed {
    std::vector<boost::json::object> items;  // sorted by namespace, then name
    int64_t resourceVersion = 0;             // the store's version at the time of the list
  };
  // namespace_ empty: every namespace. `filter` (optional) selects objects.
  Listed list(const std::string& resource, const std::string& namespace_,
              const std::function<bool(const boost::json::object&)>& filter = {}) const;
  // The stored objects themselves, shared rather than copied (a write replaces an object, never
  // changes it), for in-process readers that scan whole collections (the member controller).
  std::vector<std::shared_ptr<const boost::json::object>> listShared(
      const std::string& resource, const std::string& namespace_) const;
  // One page: up to `limit` (0: all) selected objects whose "namespace/name" key sorts after
  // `afterKey`, without copying the rest (only counting them), so paging through N objects costs
  // O(N) copies rather than O(N²).
  struct Page {
    std::vector<boost::json::object> items;
    int64_t resourceVersion = 0;
    std::string lastKey;   // of the last item returned
    size_t remaining = 0;  // selected objects after the page
  };
  Page listPage(const std::string& resource, const std::string& namespace_,
                const std::function<bool(const boost::json::object&)>& filter,
                const std::string& afterKey, size_t limit) const;

  // create: AlreadyExists when present. update: NotFound when absent; Conflict when
  // expectedVersion is set and differs from the stored version. remove returns the last state.
  api::Result<Written> create(const ObjectKey& key, boost::json::object object);
  api::Result<Written> update(const ObjectKey& key, boost::json::object object,
                              std::optional<int64_t> expectedVersion);
  api::Result<Written> remove(const ObjectKey& key, std::optional<int64_t> expectedVersion);

  // Runs `done` (on the commit thread, or right away) once every write up to `commitSeq` is on
  // disk. Memory-only stores are durable at once.
  void onDurable(uint64_t commitSeq, std::function<void()> done);
  // Blocks until everything written so far is durable (tests, shutdown).
  void flush();

  int64_t resourceVersion() const;
  // Subscribes a sink to events after `fromVersion` (0: only new events). Events in the window
  // between fromVersion and now are replayed first. Gone (410) when fromVersion is older than the
  // window. The returned id unsubscribes.
  api::Result<uint64_t> subscribe(int64_t fromVersion, std::shared_ptr<EventSink> sink);
  void unsubscribe(uint64_t id);
  // Every object of `resource` removed (CRD deletion), with DELETED events.
  api::Result<uint64_t> removeAll(const std::string& resource);

  // Called with the collection ("group/resource") of every write, under the store's lock, before
  // the write is acknowledged (cache invalidation). Must not block or call back into the store.
  void setWriteObserver(std::function<void(const std::string& resource)> observer);

  // Counters for /metrics and benchmarks.
  uint64_t fsyncs() const;
  size_t objectCount() const;

 private:
  explicit Store(StoreOptions options);
  api::Result<void> load();
  uint64_t appendLocked(StoredEvent::Type type, const ObjectKey& key,
                        const boost::json::object& object, int64_t version);
  void publishLocked(EventPtr event);
  void commitLoop();
  api::Result<void> compactLocked();

  struct Entry {
    std::shared_ptr<const boost::json::object> object;  // immutable once stored
    int64_t version = 0;
  };
  using Collection = std::map<std::string, Entry>;  // "namespace/name" -> entry
  // The stored entry for an update or removal, or NotFound / Conflict (or the disk error).
  api::Result<std::pair<Collection*, Collection::iterator>> findForWriteLocked(
      const ObjectKey& key, std::optional<int64_t> expectedVersion);

  StoreOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, Collection> collections_;  // by resource
  int64_t version_ = 0;

  // Write-ahead log (group commit): records waiting for the commit thread.
  int logFd_ = -1;
  size_t logBytes_ = 0;
  std::string pendingLog_;
  std::vector<EventPtr> pendingEvents_;
  uint64_t appendedSeq_ = 0;
  uint64_t durableSeq_ = 0;
  uint64_t releasedSeq_ = 0;  // durable and its onDurable callbacks have run
  std::multimap<uint64_t, std::function<void()>> durableWaiters_;
  std::condition_variable commitWake_;
  std::condition_variable durableWake_;
  bool stopping_ = false;
  uint64_t fsyncs_ = 0;
  std::string diskError_;  // set when the log cannot be written: further writes fail
  std::thread commitThread_;

  // Watch fan-out and the resume window.
  std::deque<EventPtr> window_;
  struct Subscription {
    std::shared_ptr<EventSink> sink;
    int64_t after = 0;  // deliver only newer events (a list may include unpublished writes)
  };
  std::map<uint64_t, Subscription> sinks_;
  std::function<void(const std::string&)> writeObserver_;
  uint64_t nextSink_ = 1;
};

}  // namespace flotilla::sim
