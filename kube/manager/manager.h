// The manager runs an operator process: one I/O thread for the REST client, informers and the
// health server; controllers with their worker threads; optional leader election. run() blocks:
//
//   1. serve /healthz, /readyz and /metrics over HTTPS (a self-signed certificate unless one is
//      given; kubelet probes do not verify it);
//   2. start the informers the controllers asked for and wait until their caches are synced
//      (/readyz answers 200 from then on);
//   3. with leader election, wait for the Lease; then start the controllers;
//   4. on SIGTERM/SIGINT or stop(): stop the controllers (letting reconciles in progress finish),
//      release the Lease, stop informers and the server, and return 0. Losing the Lease returns 1
//      at once so the supervisor restarts the process (the only safe way to drop all state).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/config/rest_config.h"
#include "kube/controller/controller.h"
#include "kube/leader/leader_elector.h"
#include "kube/manager/metrics.h"

namespace flotilla::kube {

struct ManagerOptions {
  std::string healthAddress = "127.0.0.1";
  uint16_t healthPort = 8443;  // 0: any free port (tests)
  // /metrics (kubebuilder's --metrics-bind-address): on its own address, or with the health
  // endpoints when `metricsWithHealth`; neither: not served at all.
  std::string metricsAddress;
  uint16_t metricsPort = 0;
  bool metricsWithHealth = false;
  // Both servers (docs/security.md, M3): on their own thread, never the one that renews the
  // Lease and runs the informers; at most this many connections each, and a request must arrive
  // within requestTimeout (a probe or a scrape is one small GET).
  size_t serverMaxConnections = 32;
  std::chrono::milliseconds serverRequestTimeout{10'000};
  std::chrono::milliseconds serverIdleTimeout{30'000};
  std::string tlsCertPem;  // empty: a self-signed certificate is generated at start
  std::string tlsKeyPem;
  bool leaderElection = false;
  std::string leaseNamespace = "flotilla-system";
  std::string leaseName = "flotilla-controller-manager";
  LeaderElectionConfig election;
  std::chrono::milliseconds cacheSyncTimeout{120'000};
  bool handleSignals = true;  // SIGTERM/SIGINT stop the manager
  RestClientOptions clientOptions;
  InformerOptions informerDefaults;
};

class Manager {
 public:
  // Throws std::runtime_error on start-up misconfiguration (bad server URL or TLS material).
  Manager(RestConfig config, ManagerOptions options = {});
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  RestClient& client();
  InformerFactory& informers();
  boost::asio::any_io_executor executor();
  MetricsRegistry& metrics();

  // Runs a coroutine on the I/O thread and waits for it: how reconcilers on worker threads call
  // the REST client. Never call it from the I/O thread itself.
  template <class T>
  T sync(boost::asio::awaitable<T> task) {
    return boost::asio::co_spawn(executor(), std::move(task), boost::asio::use_future).get();
  }

  // The controller is started by run() (after caches sync and, with election, leadership).
  Controller& addController(std::string name, Reconciler& reconciler,
                            ControllerOptions options = {});

  // Work that is not a Controller (a scheduler's own queue and workers, member clusters'
  // informers): started with the controllers (after the caches synced and, with election,
  // leadership) and stopped before them.
  void addRunnable(std::function<void()> start, std::function<void()> stop);

  int run();
  void stop();  // thread-safe; also what SIGTERM does

  // Valid once run() is serving (tests poll for it).
  uint16_t healthPort() const;
  uint16_t metricsPort() const;
  bool ready() const;
  bool leading() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::kube
