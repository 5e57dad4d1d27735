// The REST client for one Kubernetes API server (C++20 coroutines on Boost.Beast): every verb,
// typed errors from Status bodies, a client-side token bucket, retries of idempotent reads on
// transient failures, Retry-After on 429, watch streams and cached discovery. Nothing in it is
// specific to flotilla-sim: it speaks to kube-apiserver the way kubectl does.
//
// All methods are coroutines to be run on the executor given to create(); the object must outlive
// them. Thread-safe when that executor is one io_context thread (the usual set-up) and also when
// calls come from several threads of one io_context.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/clock.h"
#include "api/result.h"
#include "kube/client/resource.h"
#include "kube/client/watch_decoder.h"
#include "kube/config/rest_config.h"

namespace flotilla::kube {

// Waiting as a seam: tests record the waits (Retry-After, backoff, rate limit) instead of sleeping.
class Delayer {
 public:
  virtual ~Delayer() = default;
  virtual boost::asio::awaitable<void> sleep(std::chrono::nanoseconds duration) = 0;
};
// Waits on an Asio timer of the calling coroutine's executor.
std::shared_ptr<Delayer> asioDelayer();

struct RestClientOptions {
  std::shared_ptr<Delayer> delayer;                  // default: asioDelayer()
  const api::SteadyClockInterface* clock = nullptr;  // default: the real steady clock
  int maxRetries = 5;                                // per request, for retriable failures
  std::chrono::milliseconds initialBackoff{100};     // transport failures of reads, doubling
  std::chrono::milliseconds maxBackoff{5'000};
  std::chrono::seconds maxRetryAfter{60};  // a server asking for more is capped
  size_t maxIdleConnections = 32;
  // The largest response body and the largest single watch event accepted; a bigger one is a
  // transport error naming the limit (lists are paged, objects are at most etcd's 1.5 MiB).
  size_t maxResponseBody = size_t{256} << 20;
  size_t maxWatchEvent = size_t{64} << 20;
};

// A watch response being read: events in the order the server sent them.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // The next events (at least one), or an empty vector once the server ended the stream normally.
  // Fails with kTimeout when nothing (not even a bookmark) arrived within `idle`, kTransport when
  // the connection broke, or a decoding error.
  virtual boost::asio::awaitable<api::Result<std::vector<WatchEvent>>> next(
      std::chrono::milliseconds idle) = 0;
  virtual void close() = 0;
};

struct ListResult {
  std::vector<boost::json::object> items;
  std::string resourceVersion;  // of the list: where a following watch starts
  std::string kind;             // "DeploymentList"
};

struct RequestCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> throttledNanos{0};  // time spent waiting for the client-side limiter
};

class RestClient {
 public:
  static api::Result<std::unique_ptr<RestClient>> create(boost::asio::any_io_executor executor,
                                                         RestConfig config,
                                                         RestClientOptions options = {});
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  const RestConfig& config() const;
  const RequestCounters& counters() const;

  template <class T>
  using Task = boost::asio::awaitable<api::Result<T>>;

  Task<boost::json::object> get(const ResourceId& resource, const std::string& ns,
                                const std::string& name, const std::string& subresource = "");
  // One page (`limit`/`continue` as given); the List object as the server returned it.
  Task<boost::json::object> listPage(const ResourceId& resource, const std::string& ns,
                                     const ListOptions& options);
  // Every page, following `continue` (pages of options.limit, 500 when unset). A continue token
  // that expired meanwhile (410) restarts the list from scratch once.
  Task<ListResult> list(const ResourceId& resource, const std::string& ns, ListOptions options);
  Task<boost::json::object> create(const ResourceId& resource, const std::string& ns,
                                   const boost::json::object& object,
                                   const WriteOptions& options = {});
  // PUT of the whole object; namespace and name come from its metadata, and its resourceVersion
  // makes the write conditional (409 Conflict when stale).
  Task<boost::json::object> update(const ResourceId& resource, const boost::json::object& object,
                                   const WriteOptions& options = {});
  Task<boost::json::object> updateStatus(const ResourceId& resource,
                                         const boost::json::object& object,
                                         const WriteOptions& options = {});
  // The deleted object (or the object with its deletionTimestamp when finalizers hold it), or the
  // Status the server answered with.
  Task<boost::json::object> remove(const ResourceId& resource, const std::string& ns,
                                   const std::string& name, const DeleteOptions& options = {});
  Task<boost::json::object> patch(const ResourceId& resource, const std::string& ns,
                                  const std::string& name, PatchType type, std::string body,
                                  const WriteOptions& options = {},
                                  const std::string& subresource = "");
  // Server-side apply of `object` (apiVersion, kind, metadata.name required); fieldManager is
  // required.
  Task<boost::json::object> apply(const ResourceId& resource, const boost::json::object& object,
                                  const WriteOptions& options);
  // Reads the object, lets `mutate` change it (returning false means "nothing to do") and writes
  // it back, re-reading and retrying on 409 Conflict up to `attempts` times.
  Task<boost::json::object> updateWithRetry(
      const ResourceId& resource, const std::string& ns, const std::string& name,
      std::function<api::Result<bool>(boost::json::object&)> mutate, int attempts = 5);

  Task<std::unique_ptr<WatchStream>> watch(const ResourceId& resource, const std::string& ns,
                                           const ListOptions& options);

  // Discovery: the resource serving `kind` in `apiVersion`. Cached per group-version; a miss
  // re-reads that group-version once (a CRD may have been created since), then is NotFound.
  Task<ResourceId> resourceFor(const std::string& apiVersion, const std::string& kind);
  // Raw GET of a path (discovery documents, /version); the parsed JSON body.
  Task<boost::json::value> getPath(const std::string& path);
  // Raw GET of a path whose body is not JSON (/readyz, /healthz answer "ok"): the body of a 2xx
  // answer, or the typed error.
  Task<std::string> getRaw(const std::string& path);

  struct Impl;

 private:
  explicit RestClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::kube
