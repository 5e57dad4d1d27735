// Admission latency of the operator's webhook server under concurrency: C clients, each with its
// own HTTPS connection (as kube-apiserver replicas keep theirs), send validating and mutating
// reviews of a full PropagationPolicy back to back; every request's latency is recorded.
// Prints p50/p99/max and requests/s. Numbers, not pass/fail.
//   webhook_bench [--clients 200] [--requests 50]
#include <algorithm>
#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/temp_dir.h"
#include "kube/net/certs.h"
#include "kube/net/http_client.h"
#include "webhooks/webhook_server.h"

namespace {

using namespace flotilla;
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct NoCluster : webhooks::ClusterView {
  std::optional<bool> schedulingProfileExists(const std::string&) const override { return true; }
};

std::string review(bool mutating, int i) {
  (void)mutating;
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-)" +
         std::to_string(i) + R"(","operation":"CREATE",
    "kind":{"group":"flotilla.io","version":"v1alpha1","kind":"PropagationPolicy"},
    "namespace":"demo","name":"p",
    "object":{"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy",
      "metadata":{"name":"p","namespace":"demo"},
      "spec":{"resourceSelectors":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web"}],
        "placement":{"clusterAffinity":{"labelSelector":{"matchLabels":{"env":"prod"}}},
          "spreadConstraints":[{"spreadByField":"region","minGroups":2},
                               {"spreadByField":"cluster","minGroups":2,"maxGroups":4}],
          "replicaScheduling":{"type":"Divided","division":"Weighted",
            "weights":[{"targetCluster":{"clusterNames":["member1"]},"weight":2}]}}}}}})";
}

}  // namespace

int main(int argc, char** argv) {
  int clients = 200, perClient = 50;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--clients")) clients = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--requests")) perClient = std::atoi(argv[i + 1]);
  }
  api::testing::TempDir dir("flotilla-webhook-bench");
  auto ca = net::generateCertificateAuthority("bench-ca").value();
  net::CertificateRequest req;
  req.commonName = "webhook";
  req.ipAddresses = {"127.0.0.1"};
  auto pair = net::issueCertificate(ca, req).value();
  std::ofstream(dir.path() / "tls.crt") << pair.certPem;
  std::ofstream(dir.path() / "tls.key") << pair.keyPem;

  NoCluster cluster;
  webhooks::WebhookServerOptions options;
  options.address = "127.0.0.1";
  options.port = 0;
  options.certDir = dir.path();
  options.maxConnections = static_cast<size_t>(clients) + 16;
  webhooks::WebhookServer server(options, cluster);
  auto port = server.start();
  if (!port) {
    std::cerr << port.error().message << "\n";
    return 1;
  }

  // The load runs on its own thread (the server has one of its own), as the API server would.
  asio::io_context io;
  auto tls = net::makeClientTlsContext({.caPem = ca.certPem}).value();
  auto endpoint = net::parseEndpoint("https://127.0.0.1:" + std::to_string(*port)).value();
  std::vector<std::unique_ptr<net::HttpClient>> pool;
  for (int c = 0; c < clients; ++c) {
    net::HttpClientOptions o;
    o.tls = tls;
    pool.push_back(std::make_unique<net::HttpClient>(io.get_executor(), endpoint, o));
  }
  std::mutex mutex;
  std::vector<double> latencies;
  std::atomic<int> failures{0}, done{0}, ready{0};
  Clock::time_point measuredFrom;
  const auto started = Clock::now();
  for (int c = 0; c < clients; ++c) {
    asio::co_spawn(
        io,
        [&, c]() -> asio::awaitable<void> {
          // One request first to open the connection (TLS handshake), not counted: the API
          // server keeps its webhook connections, so steady state is what admission costs.
          net::HttpRequest warm{"POST",
                                "/validate-flotilla-io-v1alpha1-propagationpolicy",
                                {{"Content-Type", "application/json"}},
                                review(false, -1 - c)};
          auto warmed = co_await pool[c]->request(std::move(warm), std::chrono::seconds(30));
          if (!warmed) ++failures;
          ++ready;
          while (ready.load() < clients) {  // everyone connected: then the measured load starts
            asio::steady_timer tick(io, std::chrono::milliseconds(1));
            co_await tick.async_wait(asio::use_awaitable);
          }
          if (c == 0) measuredFrom = Clock::now();
          for (int i = 0; i < perClient; ++i) {
            const bool mutating = (i % 2) == 1;
            net::HttpRequest request{"POST",
                                     mutating ? "/mutate-flotilla-io-v1alpha1-propagationpolicy"
                                              : "/validate-flotilla-io-v1alpha1-propagationpolicy",
                                     {{"Content-Type", "application/json"}},
                                     review(mutating, c * perClient + i)};
            const auto t0 = Clock::now();
            auto r = co_await pool[c]->request(std::move(request), std::chrono::seconds(30));
            const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
            if (!r || r->status != 200) ++failures;
            std::lock_guard lock(mutex);
            latencies.push_back(ms);
          }
          ++done;
        },
        asio::detached);
  }
  io.run();
  const double seconds = std::chrono::duration<double>(Clock::now() - measuredFrom).count();
  const double connectSeconds = std::chrono::duration<double>(measuredFrom - started).count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double p) {
    return latencies.empty() ? 0.0 : latencies[static_cast<size_t>(p * (latencies.size() - 1))];
  };
  std::printf(
      "webhook_bench: %d concurrent clients x %d requests (validate+mutate, TLS, keep-alive)\n",
      clients, perClient);
  std::printf("  connect       %.2f s for %d TLS connections (not in the latencies)\n",
              connectSeconds, clients);
  std::printf("  requests      %zu (failed %d)\n", latencies.size(), failures.load());
  std::printf("  throughput    %.0f requests/s\n", static_cast<double>(latencies.size()) / seconds);
  std::printf("  latency p50   %.2f ms\n  latency p99   %.2f ms\n  latency max   %.2f ms\n",
              pct(0.50), pct(0.99), latencies.empty() ? 0.0 : latencies.back());
  server.stop();
  return failures.load() == 0 ? 0 : 1;
}
