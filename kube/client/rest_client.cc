#include "kube/client/rest_client.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include "api/base64.h"
#include "api/json_arena.h"
#include "api/json_codec.h"
#include "kube/client/rate_limiter.h"
#include "kube/client/status_error.h"
#include "kube/net/http_client.h"

// Coroutine rule for GCC 12 (docs/development.md): no non-trivial temporaries inside a co_await
// expression; every argument is a named local first.

namespace flotilla::kube {
namespace asio = boost::asio;
namespace json = boost::json;
using std::chrono::milliseconds;
using std::chrono::nanoseconds;

namespace {

class AsioDelayer final : public Delayer {
 public:
  asio::awaitable<void> sleep(nanoseconds duration) override {
    if (duration <= nanoseconds(0)) co_return;
    auto executor = co_await asio::this_coro::executor;
    asio::steady_timer timer(executor, duration);
    boost::system::error_code ec;
    auto token = asio::redirect_error(asio::use_awaitable, ec);
    co_await timer.async_wait(token);
  }
};

api::Error clientError(std::string message) {
  return api::Error{api::reason::kBadRequest, 0, std::move(message), {}};
}

std::string stringAt(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object& metadataOf(const json::object& object) {
  static const json::object kEmpty;
  const auto* m = object.if_contains("metadata");
  return m && m->is_object() ? m->as_object() : kEmpty;
}

}  // namespace

std::shared_ptr<Delayer> asioDelayer() { return std::make_shared<AsioDelayer>(); }

namespace {
// One request as the verbs describe it (a value, so coroutines can own it).
struct Call {
  std::string method;
  std::string target;
  std::string body;
  std::string contentType;
};
}  // namespace

struct RestClient::Impl {
  RestConfig config;
  RestClientOptions options;
  api::RealSteadyClock realClock;
  const api::SteadyClockInterface* clock = nullptr;
  std::unique_ptr<TokenBucket> limiter;
  std::unique_ptr<net::HttpClient> http;
  RequestCounters counters;

  std::mutex mutex;  // guards the token cache and discovery
  std::string fileToken;
  api::SteadyClockInterface::time_point fileTokenReadAt{};
  std::map<std::string, std::vector<ResourceId>> discovery;  // by groupVersion

  // The Authorization header value, re-reading a token file at most once a minute (rotation).
  std::string authorization() {
    if (!config.token.empty()) return "Bearer " + config.token;
    if (!config.tokenFile.empty()) {
      std::lock_guard lock(mutex);
      const auto now = clock->now();
      if (fileToken.empty() || now - fileTokenReadAt > std::chrono::minutes(1)) {
        std::ifstream in(config.tokenFile, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        std::string token = text.str();
        while (!token.empty() && (token.back() == '\n' || token.back() == '\r')) token.pop_back();
        if (!token.empty()) fileToken = token;  // keep the old one if the file is mid-rotation
        fileTokenReadAt = now;
      }
      return fileToken.empty() ? "" : "Bearer " + fileToken;
    }
    if (!config.username.empty())
      return "Basic " + api::base64Encode(config.username + ":" + config.password);
    return "";
  }

  net::HttpRequest makeRequest(const std::string& method, const std::string& target,
                               std::string body, const std::string& contentType) {
    net::HttpRequest request;
    request.method = method;
    request.target = target;
    request.headers.emplace_back("Accept", "application/json");
    if (!contentType.empty()) request.headers.emplace_back("Content-Type", contentType);
    if (auto auth = authorization(); !auth.empty())
      request.headers.emplace_back("Authorization", std::move(auth));
    request.body = std::move(body);
    return request;
  }

  nanoseconds backoff(int attempt) const {
    auto delay = options.initialBackoff * (1 << std::min(attempt, 16));
    return std::min<nanoseconds>(delay, options.maxBackoff);
  }

  // One request with rate limiting and retries; a 2xx response, or the typed error.
  asio::awaitable<api::Result<net::HttpResponse>> send(Call call) {
    const std::string& method = call.method;
    const std::string& target = call.target;
    const std::string& body = call.body;
    const std::string& contentType = call.contentType;
    const bool idempotent = method == "GET";
    for (int attempt = 0;; ++attempt) {
      const nanoseconds wait = limiter->reserve();
      if (wait > nanoseconds(0)) {
        counters.throttledNanos += static_cast<uint64_t>(wait.count());
        co_await options.delayer->sleep(wait);
      }
      net::HttpRequest request = makeRequest(method, target, body, contentType);
      const milliseconds timeout = config.timeout;
      ++counters.requests;
      auto response = co_await http->request(std::move(request), timeout);
      const bool lastAttempt = attempt >= options.maxRetries;
      if (!response) {
        // A write that failed in transit may have been applied: only reads are retried.
        if (!idempotent || lastAttempt) co_return response.error();
        ++counters.retries;
        const nanoseconds delay = backoff(attempt);
        co_await options.delayer->sleep(delay);
        continue;
      }
      if (response->status >= 200 && response->status < 300) co_return std::move(*response);
      // 429 is answered before the request is processed (priority and fairness), so any verb
      // may be retried; other overload answers only for reads, and only when the server asked.
      auto after = retryAfter(*response);
      const bool throttled = response->status == 429;
      const bool retriable =
          throttled ||
          (idempotent && after &&
           (response->status == 503 || response->status == 504 || response->status == 500));
      if (!retriable || lastAttempt) co_return errorFromResponse(*response);
      ++counters.retries;
      nanoseconds delay = after ? nanoseconds(std::min(*after, options.maxRetryAfter))
                                : nanoseconds(std::chrono::seconds(1));
      co_await options.delayer->sleep(delay);
    }
  }

  // An object the server sends back is parsed into an arena of its size (api/json_arena.h):
  // parsing and freeing the object of every write was a tenth of the operator's allocations. A
  // list page is not: its items outlive it one by one (the informer copies each into its own).
  asio::awaitable<api::Result<json::value>> sendJson(Call call, bool inArena = true) {
    auto response = co_await send(std::move(call));
    if (!response) co_return response.error();
    if (response->body.empty()) co_return json::value();
    boost::system::error_code ec;
    json::parse_options deep;
    deep.max_depth = api::kMaxJsonDepth;
    json::storage_ptr storage;
    if (inArena) storage = api::makeJsonArena(api::jsonArenaBytes(response->body.size()));
    json::value parsed = json::parse(response->body, ec, storage, deep);
    if (auto* arena = api::jsonArenaOf(storage)) arena->seal();
    if (ec)
      co_return api::Error{api::reason::kInternalError,
                           response->status,
                           "the server sent a response that is not JSON: " + ec.message(),
                           {}};
    co_return parsed;
  }

  asio::awaitable<api::Result<json::object>> sendObject(Call call, bool inArena = true) {
    auto value = co_await sendJson(std::move(call), inArena);
    if (!value) co_return value.error();
    if (!value->is_object())
      co_return api::Error{
          api::reason::kInternalError, 0, "the server sent JSON that is not an object", {}};
    co_return std::move(value->as_object());
  }
};

namespace {

class WatchStreamImpl final : public WatchStream {
 public:
  WatchStreamImpl(std::unique_ptr<net::HttpStream> stream, size_t maxEvent)
      : stream_(std::move(stream)), decoder_(maxEvent) {}

  asio::awaitable<api::Result<std::vector<WatchEvent>>> next(milliseconds idle) override {
    while (true) {
      auto bytes = co_await stream_->next(idle);
      if (!bytes) co_return bytes.error();
      if (bytes->empty()) {
        if (decoder_.midEvent())
          co_return api::Error{
              api::reason::kTransport, 0, "watch stream ended in the middle of an event", {}};
        co_return std::vector<WatchEvent>{};
      }
      auto events = decoder_.feed(*bytes);
      if (!events) co_return events.error();
      if (!events->empty()) co_return std::move(*events);
    }
  }
  void close() override { stream_->close(); }

 private:
  std::unique_ptr<net::HttpStream> stream_;
  WatchDecoder decoder_;
};

}  // namespace

api::Result<std::unique_ptr<RestClient>> RestClient::create(asio::any_io_executor executor,
                                                            RestConfig config,
                                                            RestClientOptions options) {
  auto endpoint = net::parseEndpoint(config.server);
  if (!endpoint) return clientError(config.source + ": server: " + endpoint.error().message);
  auto impl = std::make_unique<Impl>();
  impl->clock = options.clock ? options.clock : &impl->realClock;
  if (!options.delayer) options.delayer = asioDelayer();
  impl->limiter = std::make_unique<TokenBucket>(config.qps, config.burst, *impl->clock);
  net::HttpClientOptions http;
  http.userAgent = config.userAgent;
  http.maxIdleConnections = options.maxIdleConnections;
  http.maxResponseBody = options.maxResponseBody;
  http.serverName = config.tlsServerName;
  if (endpoint->tls) {
    net::TlsClientOptions tls;
    tls.caPem = config.caPem;
    tls.insecureSkipVerify = config.insecureSkipVerify;
    tls.certPem = config.certPem;
    tls.keyPem = config.keyPem;
    auto context = net::makeClientTlsContext(tls);
    if (!context) return clientError(config.source + ": " + context.error().message);
    http.tls = *context;
    http.verifyHostname = !config.insecureSkipVerify;
  }
  impl->http = std::make_unique<net::HttpClient>(executor, *endpoint, http);
  impl->config = std::move(config);
  impl->options = std::move(options);
  return std::unique_ptr<RestClient>(new RestClient(std::move(impl)));
}

RestClient::RestClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
RestClient::~RestClient() = default;
const RestConfig& RestClient::config() const { return impl_->config; }
const RequestCounters& RestClient::counters() const { return impl_->counters; }

asio::awaitable<api::Result<json::object>> RestClient::get(const ResourceId& resource,
                                                           const std::string& ns,
                                                           const std::string& name,
                                                           const std::string& subresource) {
  std::string target = resource.path(ns, name, subresource);
  Call call{"GET", std::move(target), "", ""};
  co_return co_await impl_->sendObject(std::move(call));
}

asio::awaitable<api::Result<json::object>> RestClient::listPage(const ResourceId& resource,
                                                                const std::string& ns,
                                                                const ListOptions& options) {
  std::string target = resource.path(ns) + listQuery(options, false);
  Call call{"GET", std::move(target), "", ""};
  co_return co_await impl_->sendObject(std::move(call), false);
}

asio::awaitable<api::Result<ListResult>> RestClient::list(const ResourceId& resource,
                                                          const std::string& ns,
                                                          ListOptions options) {
  if (options.limit <= 0) options.limit = 500;
  const ListOptions first = options;
  bool restarted = false;
  ListResult result;
  while (true) {
    auto page = co_await listPage(resource, ns, options);
    if (!page) {
      // The continue token outlived the server's compaction window: start over, once.
      if (isGone(page.error()) && !options.continueToken.empty() && !restarted) {
        restarted = true;
        options = first;
        result = ListResult{};
        continue;
      }
      co_return page.error();
    }
    result.kind = stringAt(*page, "kind");
    const auto& meta = metadataOf(*page);
    result.resourceVersion = stringAt(meta, "resourceVersion");
    if (auto* items = page->if_contains("items"); items && items->is_array()) {
      for (auto& item : items->as_array()) {
        if (item.is_object()) result.items.push_back(std::move(item.as_object()));
      }
    }
    if (options.maxItems && result.items.size() > options.maxItems) {
      co_return api::Error{api::reason::kTransport,
                           0,
                           "the list of " + resource.resource + " has more than " +
                               std::to_string(options.maxItems) + " items, the limit",
                           {}};
    }
    options.continueToken = stringAt(meta, "continue");
    if (options.continueToken.empty()) co_return result;
  }
}

asio::awaitable<api::Result<json::object>> RestClient::create(const ResourceId& resource,
                                                              const std::string& ns,
                                                              const json::object& object,
                                                              const WriteOptions& options) {
  std::string target = resource.path(ns) + writeQuery(options, false);
  std::string body = json::serialize(object);
  Call call{"POST", std::move(target), std::move(body), "application/json"};
  co_return co_await impl_->sendObject(std::move(call));
}

asio::awaitable<api::Result<json::object>> RestClient::update(const ResourceId& resource,
                                                              const json::object& object,
                                                              const WriteOptions& options) {
  const auto& meta = metadataOf(object);
  const std::string name = stringAt(meta, "name");
  if (name.empty()) co_return clientError("update: the object has no metadata.name");
  std::string target =
      resource.path(stringAt(meta, "namespace"), name) + writeQuery(options, false);
  std::string body = json::serialize(object);
  Call call{"PUT", std::move(target), std::move(body), "application/json"};
  co_return co_await impl_->sendObject(std::move(call));
}

asio::awaitable<api::Result<json::object>> RestClient::updateStatus(const ResourceId& resource,
                                                                    const json::object& object,
                                                                    const WriteOptions& options) {
  const auto& meta = metadataOf(object);
  const std::string name = stringAt(meta, "name");
  if (name.empty()) co_return clientError("update status: the object has no metadata.name");
  std::string target =
      resource.path(stringAt(meta, "namespace"), name, "status") + writeQuery(options, false);
  std::string body = json::serialize(object);
  Call call{"PUT", std::move(target), std::move(body), "application/json"};
  co_return co_await impl_->sendObject(std::move(call));
}

asio::awaitable<api::Result<json::object>> RestClient::remove(const ResourceId& resource,
                                                              const std::string& ns,
                                                              const std::string& name,
                                                              const DeleteOptions& options) {
  std::string target = resource.path(ns, name);
  std::string body = deleteBody(options);
  Call call{"DELETE", std::move(target), std::move(body), "application/json"};
  co_return co_await impl_->sendObject(std::move(call));
}

asio::awaitable<api::Result<json::object>> RestClient::patch(
    const ResourceId& resource, const std::string& ns, const std::string& name, PatchType type,
    std::string body, const WriteOptions& options, const std::string& subresource) {
  if (type == PatchType::kApply && options.fieldManager.empty())
    co_return clientError("server-side apply needs a fieldManager");
  std::string target =
      resource.path(ns, name, subresource) + writeQuery(options, type == PatchType::kApply);
  std::string contentType = contentTypeFor(type);
  Call call{"PATCH", std::move(target), std::move(body), std::move(contentType)};
  co_return co_await impl_->sendObject(std::move(call));
}

asio::awaitable<api::Result<json::object>> RestClient::apply(const ResourceId& resource,
                                                             const json::object& object,
                                                             const WriteOptions& options) {
  const auto& meta = metadataOf(object);
  const std::string ns = stringAt(meta, "namespace");
  const std::string name = stringAt(meta, "name");
  if (name.empty()) co_return clientError("apply: the object has no metadata.name");
  std::string body = json::serialize(object);  // JSON is valid YAML
  const std::string noSubresource;
  co_return co_await patch(resource, ns, name, PatchType::kApply, std::move(body), options,
                           noSubresource);
}

asio::awaitable<api::Result<json::object>> RestClient::updateWithRetry(
    const ResourceId& resource, const std::string& ns, const std::string& name,
    std::function<api::Result<bool>(json::object&)> mutate, int attempts) {
  const std::string noSubresource;
  const WriteOptions writeOptions;
  for (int attempt = 1;; ++attempt) {
    auto current = co_await get(resource, ns, name, noSubresource);
    if (!current) co_return current.error();
    auto changed = mutate(*current);
    if (!changed) co_return changed.error();
    if (!*changed) co_return std::move(*current);
    auto written = co_await update(resource, *current, writeOptions);
    if (written || !isConflict(written.error()) || attempt >= attempts) co_return written;
  }
}

asio::awaitable<api::Result<std::unique_ptr<WatchStream>>> RestClient::watch(
    const ResourceId& resource, const std::string& ns, const ListOptions& options) {
  const nanoseconds wait = impl_->limiter->reserve();
  if (wait > nanoseconds(0)) co_await impl_->options.delayer->sleep(wait);
  std::string target = resource.path(ns) + listQuery(options, true);
  net::HttpRequest request = impl_->makeRequest("GET", target, "", "");
  const milliseconds timeout = impl_->config.timeout;
  ++impl_->counters.requests;
  auto opened = co_await impl_->http->openStream(std::move(request), timeout);
  if (!opened) co_return opened.error();
  if (!opened->stream) co_return errorFromResponse(opened->response);
  std::unique_ptr<WatchStream> stream =
      std::make_unique<WatchStreamImpl>(std::move(opened->stream), impl_->options.maxWatchEvent);
  co_return stream;
}

asio::awaitable<api::Result<json::value>> RestClient::getPath(const std::string& path) {
  std::string target = path;
  Call call{"GET", std::move(target), "", ""};
  co_return co_await impl_->sendJson(std::move(call));
}

asio::awaitable<api::Result<std::string>> RestClient::getRaw(const std::string& path) {
  std::string target = path;
  Call call{"GET", std::move(target), "", ""};
  auto response = co_await impl_->send(std::move(call));
  if (!response) co_return response.error();
  co_return api::okString(std::move(response->body));
}

asio::awaitable<api::Result<ResourceId>> RestClient::resourceFor(const std::string& apiVersion,
                                                                 const std::string& kind) {
  auto lookup = [&]() -> std::optional<ResourceId> {
    std::lock_guard lock(impl_->mutex);
    auto it = impl_->discovery.find(apiVersion);
    if (it == impl_->discovery.end()) return std::nullopt;
    for (const auto& r : it->second) {
      if (r.kind == kind) return r;
    }
    return std::nullopt;
  };
  if (auto hit = lookup()) co_return *hit;
  const auto slash = apiVersion.find('/');
  const std::string group = slash == std::string::npos ? "" : apiVersion.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? apiVersion : apiVersion.substr(slash + 1);
  if (version.empty()) co_return clientError("apiVersion \"" + apiVersion + "\" is malformed");
  const std::string path = group.empty() ? "/api/" + version : "/apis/" + apiVersion;
  auto document = co_await getPath(path);
  if (!document) {
    if (isNotFound(document.error()))
      co_return api::Error{
          api::reason::kNotFound, 404, "the server does not serve " + apiVersion, {}};
    co_return document.error();
  }
  std::vector<ResourceId> resources;
  if (document->is_object()) {
    if (const auto* list = document->as_object().if_contains("resources");
        list && list->is_array()) {
      for (const auto& entry : list->as_array()) {
        if (!entry.is_object()) continue;
        const auto& r = entry.as_object();
        const std::string name = stringAt(r, "name");
        if (name.empty() || name.find('/') != std::string::npos) continue;  // subresources
        ResourceId id{group, version, name, true, stringAt(r, "kind")};
        if (const auto* n = r.if_contains("namespaced"); n && n->is_bool())
          id.namespaced = n->as_bool();
        resources.push_back(std::move(id));
      }
    }
  }
  {
    std::lock_guard lock(impl_->mutex);
    impl_->discovery[apiVersion] = std::move(resources);
  }
  if (auto hit = lookup()) co_return *hit;
  co_return api::Error{
      api::reason::kNotFound,
      404,
      "no resource for kind \"" + kind + "\" in " + apiVersion + " (is its CRD installed?)",
      {}};
}

}  // namespace flotilla::kube
