// flotilla-sim end-to-end numbers over real HTTPS on loopback with durable storage (fdatasync per
// group commit): sustained creates/s and updates/s at several client concurrencies, watch fan-out
// to 100 watchers, and kubectl's round-trip latency. Prints numbers; pass/fail is for humans.
//
//   sim_bench [--seconds N] [--kubectl]
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <thread>

#include "kube/net/certs.h"
#include "kube/net/http_client.h"
#include "kube/net/http_server.h"
#include "sim/serve.h"
#include "sim/server/api_server.h"

namespace asio = boost::asio;
namespace json = boost::json;
using namespace flotilla;
using Clock = std::chrono::steady_clock;

namespace {

std::string configMap(const std::string& name, int value) {
  return json::serialize(json::object{{"apiVersion", "v1"},
                                      {"kind", "ConfigMap"},
                                      {"metadata", json::object{{"name", name}}},
                                      {"data", json::object{{"v", std::to_string(value)}}}});
}

struct Fixture {
  std::filesystem::path dir;
  std::unique_ptr<sim::Store> store;
  std::unique_ptr<sim::ApiServer> api;
  asio::io_context serverIo;
  std::unique_ptr<net::HttpServer> server;
  std::vector<std::thread> serverThreads;
  net::PemPair ca;
  const std::string token = "bench-token";

  Fixture() {
    std::random_device rd;
    dir = std::filesystem::temp_directory_path() / ("flotilla-sim-bench-" + std::to_string(rd()));
    sim::StoreOptions storeOptions;
    storeOptions.dataDir = dir / "data";
    store = sim::Store::open(storeOptions).value();
    sim::ApiServerOptions options;
    options.tokens = {token};
    api = std::make_unique<sim::ApiServer>(*store, options);
    api->bootstrap().value();
    ca = net::generateCertificateAuthority("bench-ca").value();
    net::CertificateRequest request;
    request.commonName = "127.0.0.1";
    request.ipAddresses = {"127.0.0.1"};
    auto serving = net::issueCertificate(ca, request).value();
    net::HttpServerOptions serverOptions;
    serverOptions.tls = net::makeServerTlsContext({serving.certPem, serving.keyPem, ""}).value();
    serverOptions.errorResponse = sim::ApiServer::errorResponse;
    server = std::make_unique<net::HttpServer>(serverIo, serverOptions, api->handler());
    server->start().value();
    auto work = std::make_shared<asio::executor_work_guard<asio::io_context::executor_type>>(
        serverIo.get_executor());
    for (int i = 0; i < 2; ++i) serverThreads.emplace_back([this, work] { serverIo.run(); });
    workGuard = work;
  }
  ~Fixture() {
    server->stop();
    workGuard.reset();
    serverIo.stop();
    for (auto& t : serverThreads) t.join();
    std::filesystem::remove_all(dir);
  }
  std::shared_ptr<void> workGuard;

  std::unique_ptr<net::HttpClient> client(asio::io_context& io) {
    net::HttpClientOptions options;
    options.tls = net::makeClientTlsContext({ca.certPem}).value();
    options.maxIdleConnections = 256;
    return std::make_unique<net::HttpClient>(io.get_executor(),
                                             net::parseEndpoint(server->url()).value(), options);
  }
  net::HttpRequest request(std::string method, std::string target, std::string body,
                           std::string type = "application/json") {
    return net::HttpRequest{
        std::move(method),
        std::move(target),
        {{"Authorization", "Bearer " + token}, {"Content-Type", std::move(type)}},
        std::move(body)};
  }
};

// `clients` coroutines issue requests back to back for `seconds`; returns completed requests/s.
double sustained(Fixture& f, int clients, double seconds, bool update) {
  asio::io_context io;
  auto http = f.client(io);
  std::atomic<long> done{0};
  std::atomic<long> failed{0};
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(seconds));
  static std::atomic<int> run{0};
  const int runId = run++;
  for (int c = 0; c < clients; ++c) {
    asio::co_spawn(
        io,
        [&, c]() -> asio::awaitable<void> {
          const std::string base = "r" + std::to_string(runId) + "c" + std::to_string(c);
          if (update) {
            auto create =
                f.request("POST", "/api/v1/namespaces/default/configmaps", configMap(base, 0));
            co_await http->request(std::move(create), std::chrono::seconds(10));
          }
          for (int i = 0; Clock::now() < deadline; ++i) {
            net::HttpRequest req =
                update ? f.request("PATCH", "/api/v1/namespaces/default/configmaps/" + base,
                                   "{\"data\":{\"v\":\"" + std::to_string(i) + "\"}}",
                                   "application/merge-patch+json")
                       : f.request("POST", "/api/v1/namespaces/default/configmaps",
                                   configMap(base + "-" + std::to_string(i), i));
            auto r = co_await http->request(std::move(req), std::chrono::seconds(10));
            if (r && (r->status == 200 || r->status == 201)) {
              ++done;
            } else {
              ++failed;
            }
          }
        },
        asio::detached);
  }
  const auto start = Clock::now();
  io.run();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  if (failed) std::cout << "    (" << failed << " failed requests)\n";
  return static_cast<double>(done) / elapsed;
}

void watchFanOut(Fixture& f, int watchers, int events) {
  asio::io_context io;
  auto http = f.client(io);
  std::atomic<int> ready{0};
  std::atomic<long> received{0};
  const std::string rv = std::to_string(f.store->resourceVersion());
  for (int w = 0; w < watchers; ++w) {
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
          auto req = f.request(
              "GET", "/api/v1/namespaces/fanout/configmaps?watch=true&resourceVersion=" + rv, "");
          auto opened = co_await http->openStream(std::move(req), std::chrono::seconds(10));
          if (!opened || !opened->stream) co_return;
          ++ready;
          long mine = 0;
          while (mine < events) {
            auto part = co_await opened->stream->next(std::chrono::seconds(20));
            if (!part || part->empty()) break;
            for (char c : *part) mine += c == '\n';
          }
          received += mine;
          opened->stream->close();
        },
        asio::detached);
  }
  std::thread ioThread([&] { io.run(); });
  while (ready < watchers) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  asio::io_context writerIo;
  auto writer = f.client(writerIo);
  auto ns = f.request("POST", "/api/v1/namespaces",
                      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fanout"}})");
  const auto start = Clock::now();
  asio::co_spawn(
      writerIo,
      [&]() -> asio::awaitable<void> {
        co_await writer->request(std::move(ns), std::chrono::seconds(10));
        for (int i = 0; i < events; ++i) {
          auto req = f.request("POST", "/api/v1/namespaces/fanout/configmaps",
                               configMap("e" + std::to_string(i), i));
          co_await writer->request(std::move(req), std::chrono::seconds(10));
        }
      },
      asio::detached);
  writerIo.run();
  const double writeSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  ioThread.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf(
      "  watch fan-out: %d watchers x %d events = %ld delivered in %.2f s (%.0f events/s; writer "
      "alone %.2f s)\n",
      watchers, events, received.load(), seconds, received / seconds, writeSeconds);
}

void kubectlLatency(Fixture& f) {
  const auto kubeconfig = f.dir / "bench.kubeconfig";
  std::ofstream(kubeconfig) << sim::kubeconfigYaml("bench", f.server->url(), f.ca.certPem, f.token);
  std::vector<double> ms;
  const std::string command = "HOME=" + f.dir.string() + " kubectl --kubeconfig " +
                              kubeconfig.string() +
                              " get namespace default --request-timeout=10s >/dev/null 2>&1";
  for (int i = 0; i < 11; ++i) {
    const auto start = Clock::now();
    if (std::system(command.c_str()) != 0) {
      std::cout << "  kubectl failed\n";
      return;
    }
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "  kubectl get namespace default (process start to exit, discovery cached): median %.0f ms, "
      "min "
      "%.0f ms\n",
      ms[ms.size() / 2], ms.front());
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  bool kubectl = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) seconds = std::stod(argv[++i]);
    if (a == "--kubectl") kubectl = true;
  }
  Fixture f;
  std::cout << std::unitbuf;
  std::cout << "flotilla-sim over HTTPS on loopback, durable store (group-committed fdatasync)\n";
  for (int clients : {1, 8, 32}) {
    const uint64_t syncsBefore = f.store->fsyncs();
    const double rate = sustained(f, clients, seconds, false);
    const double syncs = static_cast<double>(f.store->fsyncs() - syncsBefore) / seconds;
    std::printf("  creates: %2d clients  %7.0f writes/s  (%.0f fdatasync/s)\n", clients, rate,
                syncs);
  }
  for (int clients : {1, 8, 32}) {
    const double rate = sustained(f, clients, seconds, true);
    std::printf("  updates: %2d clients  %7.0f writes/s  (merge patch)\n", clients, rate);
  }
  watchFanOut(f, 100, 1000);
  if (kubectl) kubectlLatency(f);
  std::printf("  objects stored: %zu\n", f.store->objectCount());
  return 0;
}
