// A controller: informers' events become keys in a work queue; workers hand keys to a Reconciler
// (controller-runtime's contract):
//   error                → requeue with the key's rate limit (backoff grows per key)
//   requeueAfter > 0     → forget the backoff, requeue after that delay
//   requeue              → requeue with the rate limit
//   success              → forget the backoff
// A reconcile that throws is caught, logged and treated as an error: one bad object cannot take
// the operator down.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api/clock.h"
#include "api/result.h"
#include "kube/cache/informer.h"
#include "kube/workqueue/work_queue.h"

namespace flotilla::kube {

struct ReconcileResult {
  bool requeue = false;
  std::chrono::nanoseconds requeueAfter{0};
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // `key` is what the watches' mapping produced: "ns/name", "name", or any string a mapping chose
  // (e.g. "member1/ns/name" for an object in a member cluster).
  virtual api::Result<ReconcileResult> reconcile(const std::string& key) = 0;
};

// Which events pass to the queue. Absent functions mean "always".
struct Predicate {
  std::function<bool(const ObjectPtr&)> create;
  std::function<bool(const ObjectPtr& oldObject, const ObjectPtr& newObject)> update;
  std::function<bool(const ObjectPtr&)> remove;
};
Predicate generationChanged();  // spec changes only (status writes are ignored)
Predicate labelsChanged();
Predicate annotationsChanged();
// deletionTimestamp or finalizers changed (the start of a deletion is not a generation change on
// every server).
Predicate deletionChanged();
// The generation moved and the spec differs in a field other than `ignored`: a controller that owns
// part of a spec is not woken by another controller's writes of its own part (a binding's
// spec.clusters is the scheduler's).
Predicate specChangedExcept(std::vector<std::string> ignored);
Predicate anyOf(std::vector<Predicate> predicates);  // updates pass when any passes
// `predicate`, except that no creation passes: for the objects a controller creates itself (its
// own create brings no second reconcile that finds nothing to do); the informer's first list is
// creations too, so the controller's primary watch must cover start-up.
Predicate skipCreates(Predicate predicate);

// From an object to the keys to reconcile.
using MapFunc = std::function<std::vector<std::string>(const ObjectPtr&)>;
MapFunc mapToSelf();
// The controlling owner of the given kind (and API group, "" = core): "ns/ownerName".
MapFunc mapToOwner(const std::string& ownerKind, const std::string& ownerGroup);
// Prefixes the object's key with a cluster name: "cluster/ns/name" (member → host mapping).
MapFunc mapWithCluster(const std::string& cluster, MapFunc inner = mapToSelf());

struct ControllerOptions {
  int workers = 2;
  const api::SteadyClockInterface* clock = nullptr;  // default: the real steady clock
  std::unique_ptr<WorkRateLimiter> rateLimiter;      // default: defaultControllerRateLimiter
};

struct ControllerStats {
  std::atomic<uint64_t> reconciles{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> exceptions{0};
  std::atomic<uint64_t> requeueAfters{0};
  std::atomic<int64_t> reconcileNanos{0};
};

class Controller {
 public:
  Controller(std::string name, Reconciler& reconciler, ControllerOptions options = {});
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Registers a handler on the informer (before it starts).
  void watch(SharedInformer& informer, MapFunc map = mapToSelf(), Predicate predicate = {});
  // As watch, but an update enqueues the keys of the object before the change too: for a map
  // that reads what the object points at (a reference dropped by the change still needs a look).
  void watchBoth(SharedInformer& informer, MapFunc map, Predicate predicate = {});

  void start();
  // Stops taking new work, waits for reconciles in progress, joins the workers. Idempotent.
  void stop();

  const std::string& name() const { return name_; }
  WorkQueue& queue() { return *queue_; }
  const ControllerStats& stats() const { return stats_; }

 private:
  void addWatch(SharedInformer& informer, MapFunc map, Predicate predicate, bool both);
  void worker();
  void processOne(const std::string& key);

  std::string name_;
  Reconciler& reconciler_;
  int workers_;
  api::RealSteadyClock realClock_;
  const api::SteadyClockInterface* clock_;
  std::unique_ptr<WorkQueue> queue_;
  ControllerStats stats_;
  std::vector<std::thread> threads_;
  std::atomic<bool> started_{false};
  std::atomic<bool> stopped_{false};
};

}  // namespace flotilla::kube
