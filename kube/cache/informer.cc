#include "kube/cache/informer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <condition_variable>
#include <random>
#include <thread>

#include "api/json_arena.h"
#include "kube/client/status_error.h"

// GCC 12 coroutine rule (docs/development.md): arguments of co_await calls are named locals.

namespace flotilla::kube {
namespace asio = boost::asio;
namespace json = boost::json;
using std::chrono::milliseconds;

struct SharedInformer::State {
  RestClient& client;
  ResourceId resource;
  InformerOptions options;
  Indexer indexer;
  std::vector<EventHandler> handlers;
  InformerStats stats;
  std::atomic<bool> started{false};
  std::atomic<bool> stopping{false};
  std::atomic<bool> synced{false};
  std::atomic<bool> watching{false};  // a watch stream is open
  asio::any_io_executor executor;
  std::unique_ptr<WatchStream> stream;  // touched only on the executor
  mutable std::mutex errorMutex;
  std::string lastError;
  // The list/watch coroutine has returned (it uses the RestClient until then).
  std::mutex finishMutex;
  std::condition_variable finishWake;
  bool finished = false;

  State(RestClient& c, ResourceId r, InformerOptions o)
      : client(c), resource(std::move(r)), options(std::move(o)) {}

  // Every failure is retried with backoff; a new kind of failure is also logged once (a missing
  // permission or CRD must be visible, not a silent wait for a cache that never syncs).
  void fail(const api::Error& error, const char* what) {
    ++stats.failures;
    std::string text = std::string(what) + " " + resource.str() + ": " + error.str();
    std::lock_guard lock(errorMutex);
    if (text != lastError) spdlog::warn("informer: {} (retrying with backoff)", text);
    lastError = std::move(text);
  }

  // A handler that throws (a bug: handlers only enqueue keys) is logged and the others still
  // run; the exception must not end the informer's coroutine, which would leave a cache that
  // looks synced and never changes again.
  void dispatch(const Change& change) {
    for (const auto& h : handlers) {
      try {
        switch (change.type) {
          case Change::Type::kAdded:
            if (h.onAdd) h.onAdd(change.newObject);
            break;
          case Change::Type::kUpdated:
            if (h.onUpdate) h.onUpdate(change.oldObject, change.newObject);
            break;
          case Change::Type::kDeleted:
            if (h.onDelete) h.onDelete(change.oldObject, change.finalStateUnknown);
            break;
        }
      } catch (const std::exception& e) {
        spdlog::error("informer: an event handler of {} threw: {}", resource.str(), e.what());
      }
    }
  }
};

namespace {

using StatePtr = std::shared_ptr<SharedInformer::State>;

// What the cache keeps of an object: managedFields are dropped unless asked for (they are often
// larger than the rest of a small object and controllers do not read them). It is kept in an
// arena of its own size (api/json_arena.h): a watch event's tree already is, unless trimmed
// here; a listed object or a trimmed one is copied into one.
ObjectPtr cached(const SharedInformer::State& s, json::object object) {
  bool trimmed = false;
  if (s.options.dropManagedFields) {
    if (auto* m = object.if_contains("metadata"); m && m->is_object())
      trimmed = m->as_object().erase("managedFields") > 0;
  }
  if (s.options.transform) {
    s.options.transform(object);
    trimmed = true;
  }
  const auto* arena = api::jsonArenaOf(object.storage());
  // (Also when the event's arena was sized badly: an event that spanned reads, or text that
  // makes a smaller tree than most, such as a ConfigMap's long strings.)
  if (trimmed || !arena || !arena->sealed() || arena->slack())
    return std::make_shared<const json::object>(api::compactCopy(object));
  return std::make_shared<const json::object>(std::move(object));
}

milliseconds nextBackoff(milliseconds current, const InformerOptions& o) {
  return std::min(current * 2, o.maxBackoff);
}

// Lists everything and replaces the cache; returns the list's resourceVersion.
asio::awaitable<api::Result<std::string>> relist(StatePtr s) {
  ListOptions options;
  options.labelSelector = s->options.labelSelector;
  options.fieldSelector = s->options.fieldSelector;
  options.limit = s->options.pageSize;
  options.maxItems = s->options.maxObjects;
  const std::string ns = s->options.ns;
  auto listed = co_await s->client.list(s->resource, ns, options);
  ++s->stats.lists;
  if (!listed) co_return listed.error();
  std::vector<ObjectPtr> objects;
  objects.reserve(listed->items.size());
  for (auto& item : listed->items) objects.push_back(cached(*s, std::move(item)));
  for (const auto& change : s->indexer.replace(std::move(objects))) s->dispatch(change);
  s->synced = true;
  co_return api::okString(listed->resourceVersion);
}

enum class WatchEnd { kResume, kRelist, kFailed };

// Watches from `resourceVersion` until the stream ends; advances it with every event.
asio::awaitable<WatchEnd> watchOnce(StatePtr s, std::string& resourceVersion,
                                    std::minstd_rand& rng) {
  ListOptions options;
  options.labelSelector = s->options.labelSelector;
  options.fieldSelector = s->options.fieldSelector;
  options.resourceVersion = resourceVersion;
  options.allowWatchBookmarks = true;
  // Like client-go, ask the server to end the watch after 5-10 minutes so load spreads out.
  options.timeoutSeconds = 300 + static_cast<int>(rng() % 300);
  const std::string ns = s->options.ns;
  auto opened = co_await s->client.watch(s->resource, ns, options);
  if (!opened) {
    if (isGone(opened.error())) co_return WatchEnd::kRelist;
    s->fail(opened.error(), "watch");
    co_return WatchEnd::kFailed;
  }
  ++s->stats.watches;
  s->stream = std::move(*opened);
  s->watching = true;
  const milliseconds idle = s->options.idleTimeout;
  WatchEnd end = WatchEnd::kResume;
  while (!s->stopping) {
    auto batch = co_await s->stream->next(idle);
    if (!batch) {
      // Idle or broken: reconnect from where we are (the server replays what we missed).
      if (batch.error().reason != api::reason::kTimeout) s->fail(batch.error(), "watch stream");
      end = batch.error().reason == api::reason::kTimeout ? WatchEnd::kResume : WatchEnd::kFailed;
      break;
    }
    if (batch->empty()) break;  // the server ended the watch (timeoutSeconds): resume
    bool relistNow = false;
    for (auto& event : *batch) {
      ++s->stats.events;
      if (event.type == WatchEvent::Type::kError) {
        auto error = errorFromWatchEvent(event);
        if (isGone(error)) {
          relistNow = true;
        } else {
          s->fail(error, "watch event");
          end = WatchEnd::kFailed;
        }
        break;
      }
      const std::string rv = resourceVersionOf(event.object);
      if (event.type == WatchEvent::Type::kBookmark) {
        if (!rv.empty()) resourceVersion = rv;
        continue;
      }
      // A new object past the limit is not cached: the watch ends before it (its
      // resourceVersion not taken), and resumes after a backoff to meet it again.
      if (event.type != WatchEvent::Type::kDeleted && s->options.maxObjects &&
          s->indexer.size() >= s->options.maxObjects && !s->indexer.get(objectKey(event.object))) {
        s->fail(api::Error{api::reason::kTransport,
                           0,
                           "the cache of " + s->resource.resource + " is full at " +
                               std::to_string(s->options.maxObjects) + " objects, the limit",
                           {}},
                "watch");
        end = WatchEnd::kFailed;
        break;
      }
      std::optional<Change> change;
      if (event.type == WatchEvent::Type::kDeleted) {
        change = s->indexer.remove(event.object);
      } else {
        change = s->indexer.upsert(cached(*s, std::move(event.object)));
      }
      if (!rv.empty()) resourceVersion = rv;
      if (change) s->dispatch(*change);
    }
    if (relistNow) {
      end = WatchEnd::kRelist;
      break;
    }
    if (end == WatchEnd::kFailed) break;
  }
  s->watching = false;
  s->stream->close();
  s->stream.reset();
  co_return end;
}

// Waits out a backoff in slices, so that stop() ends the wait within one slice rather than up to
// maxBackoff later: removing a member joins its informers, and a member that has been failing for
// a while sits in a 30 s backoff (a deleted FederatedCluster waited that long for each).
asio::awaitable<void> backoffSleep(StatePtr s, std::chrono::nanoseconds wait) {
  constexpr std::chrono::nanoseconds kSlice = milliseconds(100);
  while (wait.count() > 0 && !s->stopping) {
    const std::chrono::nanoseconds step = std::min(wait, kSlice);
    co_await s->options.delayer->sleep(step);
    wait -= step;
  }
}

asio::awaitable<void> run(StatePtr s) {
  std::minstd_rand rng(std::random_device{}());
  milliseconds backoff = s->options.initialBackoff;
  std::string resourceVersion;
  bool needList = true;
  auto listed = std::chrono::steady_clock::now();
  while (!s->stopping) {
    if (needList) {
      auto list = co_await relist(s);
      if (!list) {
        s->fail(list.error(), "list");
        const std::chrono::nanoseconds wait = backoff;
        co_await backoffSleep(s, wait);
        backoff = nextBackoff(backoff, s->options);
        continue;
      }
      resourceVersion = std::move(*list);
      needList = false;
      listed = std::chrono::steady_clock::now();
    }
    const WatchEnd end = co_await watchOnce(s, resourceVersion, rng);
    if (end == WatchEnd::kRelist) {
      ++s->stats.relistsAfterGone;
      needList = true;
      // A watch sent back to list soon after the last list means a server that keeps doing so:
      // relisting at once would have the client decode its whole list in a loop, starving
      // everything else on the thread (docs/security.md, M4). That backs off as failures do,
      // whether the 410 comes at once or a little later; a 410 after a quiet while (etcd
      // compaction) relists at once.
      if (std::chrono::steady_clock::now() - listed < s->options.quietRelist) {
        const std::chrono::nanoseconds wait = backoff;
        co_await backoffSleep(s, wait);
        backoff = nextBackoff(backoff, s->options);
      } else {
        backoff = s->options.initialBackoff;
      }
      continue;
    }
    if (end == WatchEnd::kFailed) {
      const std::chrono::nanoseconds wait = backoff;
      co_await backoffSleep(s, wait);
      backoff = nextBackoff(backoff, s->options);
    } else if (std::chrono::steady_clock::now() - listed >= s->options.quietRelist) {
      // A watch that ended normally resets the backoff only after a quiet while: a server that
      // alternates "end the watch" and "410" must not keep every relist at the first step.
      backoff = s->options.initialBackoff;
    }
  }
}

asio::awaitable<void> resync(StatePtr s) {
  asio::steady_timer timer(s->executor);
  while (!s->stopping) {
    timer.expires_after(s->options.resyncPeriod);
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await timer.async_wait(token);
    if (s->stopping) break;
    if (!s->synced) continue;
    for (const auto& object : s->indexer.list()) {
      for (const auto& h : s->handlers) {
        if (h.onUpdate) h.onUpdate(object, object);
      }
    }
  }
}

}  // namespace

SharedInformer::SharedInformer(RestClient& client, ResourceId resource, InformerOptions options)
    : state_(std::make_shared<State>(client, std::move(resource), std::move(options))) {
  if (!state_->options.delayer) state_->options.delayer = asioDelayer();
}

SharedInformer::~SharedInformer() {
  stop();
  join();
}

void SharedInformer::join() {
  if (!state_->started) return;
  // While the executor's io_context runs, the coroutine will notice stop() promptly; once it is
  // stopped, the coroutine never resumes again and its frame goes with the io_context.
  const auto* ioExecutor = state_->executor.target<asio::io_context::executor_type>();
  asio::io_context* io = ioExecutor ? &ioExecutor->context() : nullptr;
  std::unique_lock lock(state_->finishMutex);
  while (!state_->finished) {
    if (io && io->stopped()) return;
    state_->finishWake.wait_for(lock, std::chrono::milliseconds(5));
  }
}

void SharedInformer::addIndex(const std::string& name, IndexFunc func) {
  state_->indexer.addIndex(name, std::move(func));
}

void SharedInformer::addHandler(EventHandler handler) {
  if (state_->started)
    throw std::logic_error("SharedInformer::addHandler after start (" + state_->resource.str() +
                           ")");
  state_->handlers.push_back(std::move(handler));
}

void SharedInformer::start(asio::any_io_executor executor) {
  if (state_->started.exchange(true)) return;
  state_->executor = executor;
  asio::co_spawn(executor, run(state_), [s = state_](std::exception_ptr error) {
    if (error) {
      // Not expected (failures are values and retried); said loudly, since the cache stops here.
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        spdlog::error("informer: {} stopped on an exception: {}", s->resource.str(), e.what());
      } catch (...) {
        spdlog::error("informer: {} stopped on an exception", s->resource.str());
      }
    }
    std::lock_guard lock(s->finishMutex);
    s->finished = true;
    s->finishWake.notify_all();
  });
  if (state_->options.resyncPeriod.count() > 0)
    asio::co_spawn(executor, resync(state_), asio::detached);
}

void SharedInformer::stop() {
  if (state_->stopping.exchange(true) || !state_->started) return;
  asio::post(state_->executor, [s = state_] {
    if (s->stream) s->stream->close();
  });
}

bool SharedInformer::hasSynced() const { return state_->synced; }
bool SharedInformer::watching() const { return state_->synced && state_->watching; }
const Indexer& SharedInformer::store() const { return state_->indexer; }
const ResourceId& SharedInformer::resource() const { return state_->resource; }
const InformerStats& SharedInformer::stats() const { return state_->stats; }
std::string SharedInformer::lastError() const {
  std::lock_guard lock(state_->errorMutex);
  return state_->lastError;
}

InformerFactory::InformerFactory(RestClient& client, InformerOptions defaults)
    : client_(client), defaults_(std::move(defaults)) {}

InformerFactory::~InformerFactory() { stop(); }

std::shared_ptr<SharedInformer> InformerFactory::informerFor(const ResourceId& resource,
                                                             const std::string& ns) {
  std::lock_guard lock(mutex_);
  const std::string key = resource.str() + "|" + ns;
  auto& slot = informers_[key];
  if (!slot) {
    InformerOptions options = defaults_;
    options.ns = ns;
    slot = std::make_shared<SharedInformer>(client_, resource, options);
  }
  return slot;
}

void InformerFactory::start(asio::any_io_executor executor) {
  std::lock_guard lock(mutex_);
  for (auto& [key, informer] : informers_) informer->start(executor);
}

void InformerFactory::stop() {
  std::lock_guard lock(mutex_);
  for (auto& [key, informer] : informers_) informer->stop();
}

bool InformerFactory::hasSynced() const {
  std::lock_guard lock(mutex_);
  for (const auto& [key, informer] : informers_) {
    if (!informer->hasSynced()) return false;
  }
  return true;
}

bool InformerFactory::waitForCacheSync(milliseconds limit) const {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!hasSynced()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

}  // namespace flotilla::kube
