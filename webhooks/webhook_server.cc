#include "webhooks/webhook_server.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <map>
#include <mutex>
#include <thread>

#include "kube/net/http_server.h"
#include "webhooks/cert_watcher.h"
#include "webhooks/http_handler.h"

namespace flotilla::webhooks {
namespace asio = boost::asio;

struct WebhookServer::Impl {
  WebhookServerOptions options;
  const ClusterView& cluster;
  AccessReviewer* reviewer;
  KindDiscovery* discovery;
  CertWatcher certs;
  asio::io_context io{1};
  std::unique_ptr<net::HttpServer> server;
  std::thread thread;
  std::atomic<bool> stopped{false};

  mutable std::mutex mutex;
  std::map<std::pair<std::string, bool>, uint64_t> requests;  // (path, allowed) → count
  kube::Histogram latency{{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1}};

  Impl(WebhookServerOptions o, const ClusterView& c, AccessReviewer* r, KindDiscovery* d)
      : options(std::move(o)), cluster(c), reviewer(r), discovery(d), certs(options.certDir) {}

  asio::awaitable<void> handle(net::HttpExchange& exchange) {
    const auto started = std::chrono::steady_clock::now();
    HandledAdmission handled = handleAdmission(exchange.request(), cluster, options.trustedUsers);
    if (!handled.pendingAccess.empty()) {
      std::vector<api::Result<bool>> answers;
      for (const AccessCheck& check : handled.pendingAccess) {
        if (!reviewer) {
          answers.push_back(api::Error{
              api::reason::kInternalError, 500, "the webhook server has no access reviewer", {}});
          continue;
        }
        auto review = reviewer->allowed(handled.user, check);
        auto answer = co_await std::move(review);
        if (!answer) {
          spdlog::warn("webhook: cannot review whether {} may {} {} {}/{}: {}",
                       handled.user.username, check.verb, check.resource, check.namespace_,
                       check.name, answer.error().message);
        }
        answers.push_back(std::move(answer));
      }
      completeAdmission(handled, answers);
    }
    if (!handled.pendingServed.empty()) {
      std::vector<api::Result<bool>> answers;
      for (const ServedQuestion& q : handled.pendingServed) {
        if (!discovery) break;  // (no answers: no warnings)
        auto asked = discovery->serves(q.apiVersion, q.kind);
        auto answer = co_await std::move(asked);
        if (!answer)
          spdlog::warn("webhook: cannot ask the host's discovery for {} {}: {}", q.kind,
                       q.apiVersion, answer.error().message);
        answers.push_back(std::move(answer));
      }
      completeServed(handled, answers);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!handled.path.empty()) {
      latency.observe(seconds);
      std::lock_guard lock(mutex);
      ++requests[{handled.path, handled.allowed}];
    }
    if (handled.response.status != 200) {
      spdlog::warn("webhook: {} {} answered {}: {}", exchange.request().method,
                   exchange.request().path(), handled.response.status,
                   handled.response.body.substr(0, 300));
    }
    co_await exchange.respond(std::move(handled.response));
  }
};

WebhookServer::WebhookServer(WebhookServerOptions options, const ClusterView& cluster,
                             AccessReviewer* reviewer, KindDiscovery* discovery)
    : impl_(std::make_unique<Impl>(std::move(options), cluster, reviewer, discovery)) {}

WebhookServer::~WebhookServer() { stop(); }

api::Result<uint16_t> WebhookServer::start() {
  if (auto loaded = impl_->certs.load(); !loaded)
    return api::Error{loaded.error().reason,
                      0,
                      "webhook serving certificate (--cert-dir " + impl_->options.certDir.string() +
                          "): " + loaded.error().message,
                      {}};
  net::HttpServerOptions so;
  so.address = impl_->options.address;
  so.port = impl_->options.port;
  so.tlsProvider = [impl = impl_.get()] { return impl->certs.current(); };
  so.maxConnections = impl_->options.maxConnections;
  so.requestTimeout = impl_->options.requestTimeout;
  so.idleTimeout = std::chrono::seconds(90);  // kube-apiserver reuses its connections
  so.writeTimeout = impl_->options.requestTimeout;
  so.maxRequestBody = impl_->options.maxRequestBody;
  so.maxBufferedBodies = impl_->options.maxBufferedBodies;
  impl_->server = std::make_unique<net::HttpServer>(
      impl_->io, so, [impl = impl_.get()](net::HttpExchange& e) { return impl->handle(e); });
  auto port = impl_->server->start();
  if (!port)
    return api::Error{port.error().reason, 0, "webhook server: " + port.error().message, {}};
  impl_->thread = std::thread([impl = impl_.get()] {
    auto guard = asio::make_work_guard(impl->io);
    impl->io.run();
  });
  spdlog::info("webhook: serving admission on https://{}:{} (certificate from {})",
               impl_->options.address, *port, impl_->options.certDir.string());
  return *port;
}

void WebhookServer::stop() {
  if (impl_->stopped.exchange(true)) return;
  if (impl_->server) {
    impl_->server->stop();
    // Let the connections close on their strands (an answer being written goes out first)
    // before the I/O thread stops; bounded, so a stuck peer cannot hold the shutdown.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (impl_->thread.joinable() && impl_->server->openConnections() > 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  impl_->server.reset();
}

uint16_t WebhookServer::port() const { return impl_->server ? impl_->server->port() : 0; }

void WebhookServer::collectMetrics(kube::MetricsWriter& w) const {
  {
    std::lock_guard lock(impl_->mutex);
    for (const auto& [key, count] : impl_->requests)
      w.counter("flotilla_webhook_requests_total", "Admission requests answered, by endpoint.",
                {{"webhook", key.first}, {"allowed", key.second ? "true" : "false"}},
                static_cast<double>(count));
  }
  impl_->latency.write(w, "flotilla_webhook_duration_seconds",
                       "Time to decide one admission request.", {});
  w.counter("flotilla_webhook_certificate_reloads_total",
            "Serving certificates reloaded from --cert-dir after a change.", {},
            static_cast<double>(impl_->certs.reloads()));
}

}  // namespace flotilla::webhooks
