// A shared informer: lists a resource, then watches it, keeping an Indexer in step and telling
// handlers what changed (client-go's reflector + shared informer).
//
// Correctness across failures: a dropped or idle watch resumes from the last resourceVersion seen
// (events or bookmarks), so nothing is replayed or skipped; a 410 Gone (when opening the watch or
// as an ERROR event) triggers a relist whose diff against the cache produces exactly the adds,
// updates and deletes that were missed. Duplicate deliveries (same resourceVersion) are dropped.
//
// Threading: the informer runs on one executor (an io_context thread). Handlers are called there,
// in event order, and must be quick (typically they enqueue a key). The store may be read from
// any thread.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/cache/indexer.h"
#include "kube/client/rest_client.h"

namespace flotilla::kube {

struct EventHandler {
  std::function<void(const ObjectPtr&)> onAdd;
  std::function<void(const ObjectPtr& oldObject, const ObjectPtr& newObject)> onUpdate;
  // `finalStateUnknown`: the delete was inferred on relist; `last` is the last state seen.
  std::function<void(const ObjectPtr& last, bool finalStateUnknown)> onDelete;
};

struct InformerOptions {
  std::string ns;  // "" = all namespaces (or cluster-scoped)
  std::string labelSelector;
  std::string fieldSelector;
  std::chrono::milliseconds resyncPeriod{0};       // 0: never; else onUpdate(o, o) for every object
  std::chrono::milliseconds idleTimeout{120'000};  // no event or bookmark for this long: reconnect
  std::chrono::milliseconds initialBackoff{200};   // after a failed list/watch, doubling
  std::chrono::milliseconds maxBackoff{30'000};
  // A watch sent back to list (410 Gone) this long after the last list relists at once; sooner,
  // it backs off as failures do (a server that keeps doing so; docs/security.md, M4). etcd
  // compacts every 5 minutes, so a healthy server's 410s are further apart than this.
  std::chrono::milliseconds quietRelist{60'000};
  int64_t pageSize = 500;
  // More objects than this is a failure (the list errs, a watch that grows past it relists,
  // backing off): bounds the memory one source can take; 0: no limit.
  size_t maxObjects = 0;
  bool dropManagedFields = true;  // controller-runtime's recommended cache transform
  // Applied to every object before it is cached (after dropManagedFields): strip what no reader
  // of this cache uses. Must keep metadata.name, namespace and resourceVersion.
  std::function<void(boost::json::object&)> transform;
  std::shared_ptr<Delayer> delayer;  // default: asioDelayer()
};

struct InformerStats {
  std::atomic<uint64_t> lists{0};
  std::atomic<uint64_t> watches{0};
  std::atomic<uint64_t> events{0};
  std::atomic<uint64_t> relistsAfterGone{0};
  std::atomic<uint64_t> failures{0};
};

class SharedInformer {
 public:
  SharedInformer(RestClient& client, ResourceId resource, InformerOptions options = {});
  ~SharedInformer();
  SharedInformer(const SharedInformer&) = delete;
  SharedInformer& operator=(const SharedInformer&) = delete;

  // Before start().
  void addIndex(const std::string& name, IndexFunc func);
  void addHandler(EventHandler handler);

  void start(boost::asio::any_io_executor executor);
  // Ends the watch; the informer's coroutine finishes at its next step. Idempotent.
  void stop();
  // Waits until the coroutine has returned (it uses the RestClient until then); the destructor
  // does this too. Never call it on the informer's own executor thread.
  void join();

  bool hasSynced() const;
  // Synced and a watch open now: the cache follows the server. False between watches and while
  // watching fails (a 403, an unreachable server), when the cache may be frozen in the past.
  bool watching() const;
  const Indexer& store() const;
  const ResourceId& resource() const;
  const InformerStats& stats() const;
  std::string lastError() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
};

// One informer per (resource, namespace) however many controllers ask for it.
class InformerFactory {
 public:
  InformerFactory(RestClient& client, InformerOptions defaults = {});
  ~InformerFactory();

  std::shared_ptr<SharedInformer> informerFor(const ResourceId& resource,
                                              const std::string& ns = "");
  void start(boost::asio::any_io_executor executor);  // starts informers not yet started
  void stop();
  bool hasSynced() const;
  // Polls (from a thread that is not the informers' executor) until every informer has synced.
  bool waitForCacheSync(std::chrono::milliseconds limit) const;
  RestClient& client() { return client_; }

 private:
  RestClient& client_;
  InformerOptions defaults_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<SharedInformer>> informers_;
  std::vector<std::string> started_;
};

}  // namespace flotilla::kube
