#include "kube/manager/manager.h"

#include <spdlog/spdlog.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <condition_variable>
#include <csignal>
#include <thread>

#include "kube/net/certs.h"
#include "kube/net/http_server.h"
#include "kube/net/tls.h"

namespace flotilla::kube {
namespace asio = boost::asio;
using namespace std::chrono;

struct Manager::Impl {
  // Declared first: destroyed last, after every object that holds sockets or timers on it.
  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::thread ioThread;
  // The health and metrics servers' own thread (docs/security.md, M3): a flood of connections
  // cannot delay Lease renewals or informers on `io`.
  asio::io_context serveIo{1};
  asio::executor_work_guard<asio::io_context::executor_type> serveWork{serveIo.get_executor()};
  std::thread serveThread;

  ManagerOptions options;
  std::unique_ptr<RestClient> client;
  std::unique_ptr<RestClient> leaseClient;  // short timeouts, no retries (see leaseRequestTimeout)
  std::unique_ptr<InformerFactory> informers;
  std::vector<std::unique_ptr<Controller>> controllers;
  MetricsRegistry metrics;
  std::unique_ptr<net::HttpServer> server;
  std::unique_ptr<net::HttpServer> metricsServer;
  std::vector<std::pair<std::function<void()>, std::function<void()>>> runnables;
  bool runnablesStarted = false;
  std::atomic<uint16_t> metricsPort{0};
  std::unique_ptr<asio::signal_set> signals;
  std::unique_ptr<RestLeaseLock> leaseLock;
  std::unique_ptr<LeaderElector> elector;
  std::thread electorThread;

  std::mutex mutex;
  std::condition_variable wake;
  bool stopRequested = false;
  bool leadershipLost = false;
  bool leadingNow = false;
  std::atomic<bool> ready{false};
  std::atomic<bool> leading{false};
  std::atomic<uint16_t> port{0};

  void stopRunnables() {
    if (!runnablesStarted) return;
    runnablesStarted = false;
    for (auto it = runnables.rbegin(); it != runnables.rend(); ++it) it->second();
  }

  ~Impl() {
    stopRunnables();
    for (auto& c : controllers) c->stop();
    if (elector) elector->stop();
    if (electorThread.joinable()) electorThread.join();
    if (informers) informers->stop();
    if (server) server->stop();
    if (metricsServer) metricsServer->stop();
    serveWork.reset();
    serveIo.stop();
    if (serveThread.joinable()) serveThread.join();
    if (signals) {
      asio::post(io, [s = signals.get()] { s->cancel(); });
    }
    work.reset();
    io.stop();
    if (ioThread.joinable()) ioThread.join();
    controllers.clear();
    informers.reset();
    server.reset();
    metricsServer.reset();
    signals.reset();
    leaseLock.reset();
    client.reset();
    leaseClient.reset();
  }

  void requestStop() {
    std::lock_guard lock(mutex);
    stopRequested = true;
    wake.notify_all();
  }

  // `withMetrics`: this server also answers /metrics (the metrics server, or the health server
  // when they share an address); otherwise /metrics is a 404 here (docs/security.md, L3).
  asio::awaitable<void> serveHealth(net::HttpExchange& ex, bool withMetrics) {
    const std::string path(ex.request().path());
    net::HttpResponse response;
    response.headers.emplace_back("Content-Type", "text/plain; charset=utf-8");
    if (ex.request().method != "GET" && ex.request().method != "HEAD") {
      response.status = 405;
      response.body = "method not allowed\n";
    } else if (path == "/healthz" || path == "/livez") {
      response.body = "ok\n";
    } else if (path == "/readyz") {
      response.status = ready ? 200 : 503;
      response.body = ready ? "ok\n" : "informer caches are not synced yet\n";
    } else if (path == "/metrics" && withMetrics) {
      response.headers.clear();
      response.headers.emplace_back("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      response.body = metrics.render();
    } else {
      response.status = 404;
      response.body = "not found\n";
    }
    co_await ex.respond(std::move(response));
  }

  void registerMetrics() {
    metrics.add([this](MetricsWriter& w) {
      const auto& c = client->counters();
      w.counter("flotilla_rest_client_requests_total", "Requests sent to the API server.", {},
                static_cast<double>(c.requests.load()));
      w.counter("flotilla_rest_client_retries_total",
                "Requests retried (429, overload, transport).", {},
                static_cast<double>(c.retries.load()));
      w.counter("flotilla_rest_client_throttle_seconds_total",
                "Time spent waiting for the client-side rate limiter.", {},
                static_cast<double>(c.throttledNanos.load()) / 1e9);
      w.gauge("flotilla_leader_election_leader", "1 when this process holds the Lease.",
              {{"name", options.leaseName}}, leading ? 1 : 0);
      w.gauge("flotilla_informer_caches_synced", "1 once every informer cache is synced.", {},
              ready ? 1 : 0);
      for (const auto& controller : controllers) {
        const Labels name = {{"controller", controller->name()}};
        const auto& s = controller->stats();
        w.counter("flotilla_controller_reconcile_total", "Reconciles run.", name,
                  static_cast<double>(s.reconciles.load()));
        w.counter("flotilla_controller_reconcile_errors_total", "Reconciles that failed.", name,
                  static_cast<double>(s.errors.load()));
        w.counter("flotilla_controller_reconcile_panics_total",
                  "Reconciles that threw (caught and requeued).", name,
                  static_cast<double>(s.exceptions.load()));
        w.counter("flotilla_controller_reconcile_time_seconds_total", "Time spent reconciling.",
                  name, static_cast<double>(s.reconcileNanos.load()) / 1e9);
        const auto q = controller->queue().stats();
        const Labels queue = {{"name", controller->name()}};
        w.gauge("flotilla_workqueue_depth", "Keys waiting to be processed.", queue,
                static_cast<double>(q.depth));
        w.gauge("flotilla_workqueue_delayed", "Keys waiting for their delay or backoff.", queue,
                static_cast<double>(q.delayed));
        w.counter("flotilla_workqueue_adds_total", "Keys added.", queue,
                  static_cast<double>(q.adds));
        w.counter("flotilla_workqueue_retries_total", "Rate-limited re-adds.", queue,
                  static_cast<double>(q.retries));
        w.counter("flotilla_workqueue_queue_duration_seconds_sum",
                  "Time keys waited between add and processing.", queue,
                  duration<double>(q.totalQueueLatency).count());
        w.counter("flotilla_workqueue_queue_duration_seconds_count", "Keys taken for processing.",
                  queue, static_cast<double>(q.gets));
        w.gauge("flotilla_workqueue_longest_running_processor_seconds",
                "How long the longest reconcile in progress has been running.", queue,
                duration<double>(q.longestRunning).count());
      }
    });
  }
};

Manager::Manager(RestConfig config, ManagerOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = std::move(options);
  auto client = RestClient::create(m.io.get_executor(), config, m.options.clientOptions);
  if (!client) throw std::runtime_error("manager: " + client.error().message);
  m.client = std::move(*client);
  if (m.options.leaderElection) {
    RestConfig leaseConfig = config;
    leaseConfig.timeout = leaseRequestTimeout(m.options.election);
    RestClientOptions leaseOptions;
    leaseOptions.maxRetries = 0;
    m.leaseClient = RestClient::create(m.io.get_executor(), leaseConfig, leaseOptions).value();
  }
  m.informers = std::make_unique<InformerFactory>(*m.client, m.options.informerDefaults);
  m.ioThread = std::thread([&io = m.io] { io.run(); });
  m.serveThread = std::thread([&io = m.serveIo] { io.run(); });
  m.registerMetrics();
}

Manager::~Manager() = default;

RestClient& Manager::client() { return *impl_->client; }
InformerFactory& Manager::informers() { return *impl_->informers; }
asio::any_io_executor Manager::executor() { return impl_->io.get_executor(); }
MetricsRegistry& Manager::metrics() { return impl_->metrics; }
uint16_t Manager::healthPort() const { return impl_->port; }
uint16_t Manager::metricsPort() const { return impl_->metricsPort; }

void Manager::addRunnable(std::function<void()> start, std::function<void()> stop) {
  impl_->runnables.emplace_back(std::move(start), std::move(stop));
}
bool Manager::ready() const { return impl_->ready; }
bool Manager::leading() const { return impl_->leading; }

Controller& Manager::addController(std::string name, Reconciler& reconciler,
                                   ControllerOptions options) {
  impl_->controllers.push_back(
      std::make_unique<Controller>(std::move(name), reconciler, std::move(options)));
  return *impl_->controllers.back();
}

void Manager::stop() { impl_->requestStop(); }

int Manager::run() {
  Impl& m = *impl_;
  // 1. Health, readiness and metrics over HTTPS.
  std::string certPem = m.options.tlsCertPem, keyPem = m.options.tlsKeyPem;
  if (certPem.empty()) {
    auto ca = net::generateCertificateAuthority("flotilla-manager-self-signed");
    if (!ca) throw std::runtime_error("manager: " + ca.error().message);
    net::CertificateRequest request;
    request.commonName = "flotilla-manager";
    request.dnsNames = {"localhost"};
    request.ipAddresses = {"127.0.0.1"};
    if (m.options.healthAddress != "127.0.0.1" && m.options.healthAddress != "0.0.0.0")
      request.ipAddresses.push_back(m.options.healthAddress);
    auto pair = net::issueCertificate(*ca, request);
    if (!pair) throw std::runtime_error("manager: " + pair.error().message);
    certPem = pair->certPem + ca->certPem;
    keyPem = pair->keyPem;
  }
  net::TlsServerOptions tls;
  tls.certPem = certPem;
  tls.keyPem = keyPem;
  auto context = net::makeServerTlsContext(tls);
  if (!context) throw std::runtime_error("manager: health server TLS: " + context.error().message);
  net::HttpServerOptions serverOptions;
  serverOptions.address = m.options.healthAddress;
  serverOptions.port = m.options.healthPort;
  serverOptions.tls = *context;
  serverOptions.maxRequestBody = 64 << 10;
  serverOptions.maxConnections = m.options.serverMaxConnections;
  serverOptions.requestTimeout = m.options.serverRequestTimeout;
  serverOptions.idleTimeout = m.options.serverIdleTimeout;
  serverOptions.writeTimeout = m.options.serverRequestTimeout;
  const bool metricsWithHealth = m.options.metricsWithHealth;
  m.server = std::make_unique<net::HttpServer>(m.serveIo, serverOptions,
                                               [&m, metricsWithHealth](net::HttpExchange& ex) {
                                                 return m.serveHealth(ex, metricsWithHealth);
                                               });
  auto port = m.server->start();
  if (!port) {
    spdlog::error("manager: cannot serve health endpoints on {}:{}: {}", m.options.healthAddress,
                  m.options.healthPort, port.error().message);
    return 1;
  }
  m.port = *port;
  spdlog::info("manager: serving /healthz, /readyz{} on https://{}:{}",
               metricsWithHealth ? " and /metrics" : "", m.options.healthAddress, m.port.load());
  if (!m.options.metricsAddress.empty()) {
    net::HttpServerOptions metricsOptions = serverOptions;
    metricsOptions.address = m.options.metricsAddress;
    metricsOptions.port = m.options.metricsPort;
    m.metricsServer = std::make_unique<net::HttpServer>(
        m.serveIo, metricsOptions, [&m](net::HttpExchange& ex) { return m.serveHealth(ex, true); });
    auto mport = m.metricsServer->start();
    if (!mport) {
      spdlog::error("manager: cannot serve metrics on {}:{}: {}", m.options.metricsAddress,
                    m.options.metricsPort, mport.error().message);
      m.server->stop();
      return 1;
    }
    m.metricsPort = *mport;
    spdlog::info("manager: serving /metrics on https://{}:{}", m.options.metricsAddress,
                 m.metricsPort.load());
  }
  if (m.options.handleSignals) {
    m.signals = std::make_unique<asio::signal_set>(m.io, SIGTERM, SIGINT);
    m.signals->async_wait([&m](const boost::system::error_code& ec, int signal) {
      if (ec) return;
      spdlog::info("manager: signal {} received, shutting down", signal);
      m.requestStop();
    });
  }

  // 2. Caches.
  m.informers->start(m.io.get_executor());
  const auto syncDeadline = steady_clock::now() + m.options.cacheSyncTimeout;
  while (!m.informers->hasSynced()) {
    std::unique_lock lock(m.mutex);
    if (m.stopRequested) return 0;
    if (steady_clock::now() >= syncDeadline) {
      spdlog::error("manager: informer caches did not sync within {} ms",
                    m.options.cacheSyncTimeout.count());
      return 1;
    }
    m.wake.wait_for(lock, milliseconds(10));
  }
  m.ready = true;

  auto startControllers = [&m] {
    for (auto& c : m.controllers) c->start();
    m.runnablesStarted = true;
    for (auto& r : m.runnables) r.first();
  };
  // 3. Leadership.
  if (m.options.leaderElection) {
    m.leaseLock = std::make_unique<RestLeaseLock>(*m.leaseClient, m.io.get_executor(),
                                                  m.options.leaseNamespace, m.options.leaseName);
    static const api::RealSteadyClock kClock;
    LeaderCallbacks callbacks;
    callbacks.onStartedLeading = [&m] {
      std::lock_guard lock(m.mutex);
      m.leadingNow = true;
      m.leading = true;
      m.wake.notify_all();
    };
    callbacks.onStoppedLeading = [&m] { m.leading = false; };
    m.elector =
        std::make_unique<LeaderElector>(*m.leaseLock, m.options.election, callbacks, kClock);
    m.electorThread = std::thread([&m] {
      const bool byStop = m.elector->run();
      if (!byStop) {
        std::lock_guard lock(m.mutex);
        m.leadershipLost = true;
        m.wake.notify_all();
      }
    });
    std::unique_lock lock(m.mutex);
    m.wake.wait(lock, [&m] { return m.leadingNow || m.stopRequested || m.leadershipLost; });
    if (m.leadingNow && !m.stopRequested && !m.leadershipLost) {
      lock.unlock();
      startControllers();
    }
  } else {
    startControllers();
  }

  // 4. Until told to stop or the Lease is lost.
  bool lost = false;
  {
    std::unique_lock lock(m.mutex);
    m.wake.wait(lock, [&m] { return m.stopRequested || m.leadershipLost; });
    lost = m.leadershipLost && !m.stopRequested;
  }
  if (lost) {
    spdlog::error("manager: leadership lost; exiting so that a fresh process can start over");
  }
  m.ready = false;
  for (auto& c : m.controllers) c->stop();  // drains reconciles in progress
  m.stopRunnables();
  if (m.elector) m.elector->stop();  // releases the Lease after controllers stopped
  if (m.electorThread.joinable()) m.electorThread.join();
  m.informers->stop();
  m.server->stop();
  if (m.metricsServer) m.metricsServer->stop();
  return lost ? 1 : 0;
}

}  // namespace flotilla::kube
