#include "kube/controller/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/json.hpp>

namespace flotilla::kube {
namespace json = boost::json;

namespace {

const json::object* metadata(const ObjectPtr& o) {
  const auto* m = o ? o->if_contains("metadata") : nullptr;
  return m && m->is_object() ? &m->as_object() : nullptr;
}

// Compared in place: predicates run for every update event of every watched object, and copying
// labels or annotations (a binding's schedule record is one) to compare them was a measurable
// share of the informers' dispatch (docs/performance.md, round 2).
bool sameMetaField(const ObjectPtr& a, const ObjectPtr& b, const char* key) {
  static const json::value kAbsent;
  const auto* ma = metadata(a);
  const auto* mb = metadata(b);
  const auto* va = ma ? ma->if_contains(key) : nullptr;
  const auto* vb = mb ? mb->if_contains(key) : nullptr;
  return (va ? *va : kAbsent) == (vb ? *vb : kAbsent);
}

}  // namespace

Predicate generationChanged() {
  return Predicate{
      nullptr,
      [](const ObjectPtr& a, const ObjectPtr& b) { return !sameMetaField(a, b, "generation"); },
      nullptr};
}

Predicate labelsChanged() {
  return Predicate{
      nullptr,
      [](const ObjectPtr& a, const ObjectPtr& b) { return !sameMetaField(a, b, "labels"); },
      nullptr};
}

Predicate deletionChanged() {
  return Predicate{nullptr,
                   [](const ObjectPtr& a, const ObjectPtr& b) {
                     return !sameMetaField(a, b, "deletionTimestamp") ||
                            !sameMetaField(a, b, "finalizers");
                   },
                   nullptr};
}

Predicate annotationsChanged() {
  return Predicate{
      nullptr,
      [](const ObjectPtr& a, const ObjectPtr& b) { return !sameMetaField(a, b, "annotations"); },
      nullptr};
}

Predicate specChangedExcept(std::vector<std::string> ignored) {
  return Predicate{nullptr,
                   [ignored = std::move(ignored)](const ObjectPtr& a, const ObjectPtr& b) {
                     if (sameMetaField(a, b, "generation")) return false;
                     static const json::object kEmpty;
                     auto specOf = [](const ObjectPtr& o) -> const json::object& {
                       const auto* s = o ? o->if_contains("spec") : nullptr;
                       return s && s->is_object() ? s->as_object() : kEmpty;
                     };
                     const json::object& sa = specOf(a);
                     const json::object& sb = specOf(b);
                     auto skip = [&ignored](std::string_view key) {
                       return std::find(ignored.begin(), ignored.end(), key) != ignored.end();
                     };
                     // Every field of one is in the other with the same value, both ways.
                     for (const auto& [key, value] : sa) {
                       if (skip(key)) continue;
                       const auto* other = sb.if_contains(key);
                       if (!other || *other != value) return true;
                     }
                     for (const auto& [key, value] : sb) {
                       if (!skip(key) && !sa.contains(key)) return true;
                     }
                     return false;
                   },
                   nullptr};
}

Predicate anyOf(std::vector<Predicate> predicates) {
  return Predicate{nullptr,
                   [predicates](const ObjectPtr& a, const ObjectPtr& b) {
                     for (const auto& p : predicates) {
                       if (!p.update || p.update(a, b)) return true;
                     }
                     return false;
                   },
                   nullptr};
}

Predicate skipCreates(Predicate predicate) {
  predicate.create = [](const ObjectPtr&) { return false; };
  return predicate;
}

MapFunc mapToSelf() {
  return [](const ObjectPtr& o) { return std::vector<std::string>{objectKey(*o)}; };
}

MapFunc mapToOwner(const std::string& ownerKind, const std::string& ownerGroup) {
  return [ownerKind, ownerGroup](const ObjectPtr& o) {
    std::vector<std::string> keys;
    const auto* m = metadata(o);
    const auto* refs = m ? m->if_contains("ownerReferences") : nullptr;
    if (!refs || !refs->is_array()) return keys;
    static const json::value kNoNamespace;
    const auto* nsField = m->if_contains("namespace");
    const json::value& ns = nsField ? *nsField : kNoNamespace;
    for (const auto& ref : refs->as_array()) {
      if (!ref.is_object()) continue;
      const auto& r = ref.as_object();
      const auto* kind = r.if_contains("kind");
      const auto* apiVersion = r.if_contains("apiVersion");
      const auto* name = r.if_contains("name");
      const auto* controller = r.if_contains("controller");
      if (!kind || !kind->is_string() || kind->as_string() != ownerKind) continue;
      if (!name || !name->is_string() || !apiVersion || !apiVersion->is_string()) continue;
      if (!controller || !controller->is_bool() || !controller->as_bool()) continue;
      const std::string av(apiVersion->as_string());
      const auto slash = av.find('/');
      const std::string group = slash == std::string::npos ? "" : av.substr(0, slash);
      if (group != ownerGroup) continue;
      const std::string n(name->as_string());
      keys.push_back(
          ns.is_string() && !ns.as_string().empty() ? std::string(ns.as_string()) + "/" + n : n);
    }
    return keys;
  };
}

MapFunc mapWithCluster(const std::string& cluster, MapFunc inner) {
  return [cluster, inner](const ObjectPtr& o) {
    auto keys = inner(o);
    for (auto& k : keys) k = cluster + "/" + k;
    return keys;
  };
}

Controller::Controller(std::string name, Reconciler& reconciler, ControllerOptions options)
    : name_(std::move(name)),
      reconciler_(reconciler),
      workers_(std::max(1, options.workers)),
      clock_(options.clock ? options.clock : &realClock_) {
  auto limiter =
      options.rateLimiter ? std::move(options.rateLimiter) : defaultControllerRateLimiter(*clock_);
  queue_ = std::make_unique<WorkQueue>(*clock_, std::move(limiter));
}

Controller::~Controller() { stop(); }

void Controller::watch(SharedInformer& informer, MapFunc map, Predicate predicate) {
  addWatch(informer, std::move(map), std::move(predicate), false);
}

void Controller::watchBoth(SharedInformer& informer, MapFunc map, Predicate predicate) {
  addWatch(informer, std::move(map), std::move(predicate), true);
}

void Controller::addWatch(SharedInformer& informer, MapFunc map, Predicate predicate, bool both) {
  WorkQueue* queue = queue_.get();
  auto enqueue = [queue, map](const ObjectPtr& o) {
    for (const auto& key : map(o)) queue->add(key);
  };
  EventHandler handler;
  handler.onAdd = [enqueue, predicate](const ObjectPtr& o) {
    if (!predicate.create || predicate.create(o)) enqueue(o);
  };
  handler.onUpdate = [enqueue, predicate, both](const ObjectPtr& before, const ObjectPtr& after) {
    if (before == after) {  // resync: always reconcile
      enqueue(after);
      return;
    }
    if (!predicate.update || predicate.update(before, after)) {
      if (both) enqueue(before);
      enqueue(after);
    }
  };
  handler.onDelete = [enqueue, predicate](const ObjectPtr& last, bool) {
    if (!predicate.remove || predicate.remove(last)) enqueue(last);
  };
  informer.addHandler(std::move(handler));
}

void Controller::start() {
  if (started_.exchange(true)) return;
  for (int i = 0; i < workers_; ++i) threads_.emplace_back([this] { worker(); });
}

void Controller::stop() {
  if (stopped_.exchange(true)) return;
  if (started_) {
    queue_->shutDownWithDrain();
  } else {
    queue_->shutDown();
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void Controller::worker() {
  while (auto key = queue_->get()) {
    processOne(*key);
    queue_->done(*key);
  }
}

void Controller::processOne(const std::string& key) {
  ++stats_.reconciles;
  const auto start = clock_->now();
  api::Result<ReconcileResult> result = ReconcileResult{};
  try {
    result = reconciler_.reconcile(key);
  } catch (const std::exception& e) {
    ++stats_.exceptions;
    spdlog::error("controller {}: reconcile of {} threw: {}", name_, key, e.what());
    result = api::Error{api::reason::kInternalError, 0, e.what(), {}};
  } catch (...) {
    ++stats_.exceptions;
    spdlog::error("controller {}: reconcile of {} threw a non-exception", name_, key);
    result = api::Error{api::reason::kInternalError, 0, "unknown exception", {}};
  }
  stats_.reconcileNanos += (clock_->now() - start).count();
  if (!result) {
    ++stats_.errors;
    spdlog::warn("controller {}: reconcile of {} failed (retry {}): {}", name_, key,
                 queue_->numRequeues(key) + 1, result.error().str());
    queue_->addRateLimited(key);
    return;
  }
  if (result->requeueAfter.count() > 0) {
    ++stats_.requeueAfters;
    queue_->forget(key);
    queue_->addAfter(key, result->requeueAfter);
  } else if (result->requeue) {
    queue_->addRateLimited(key);
  } else {
    queue_->forget(key);
  }
}

}  // namespace flotilla::kube
