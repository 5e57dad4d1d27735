// Client runtime numbers against a flotilla-sim process (a separate process, so this one's memory
// is the client's alone):
//   1. list + watch of N small ConfigMaps into an informer: time to sync and resident memory per
//      cached object; then how fast watch events reach the cache;
//   2. one client doing sequential get and update requests: requests/s.
// Usage: kube_bench [--objects N] [--seconds S]   (defaults 100000 and 3)
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/testing/sim_process.h"

namespace asio = boost::asio;
namespace json = boost::json;
using namespace flotilla;
using namespace flotilla::kube;
using Clock = std::chrono::steady_clock;

namespace {

const ResourceId kNamespaces{"", "v1", "namespaces", false, "Namespace"};
const ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};

size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

json::object configMap(const std::string& ns, int i) {
  return json::object{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", json::object{{"name", "cm-" + std::to_string(i)},
                                                {"namespace", ns},
                                                {"labels", json::object{{"app", "bench"}}}}},
                      {"data", json::object{{"value", std::to_string(i)}}}};
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// `workers` coroutines create objects [from, to) between them.
asio::awaitable<void> createRange(RestClient& client, std::string ns, int from, int to, int step) {
  for (int i = from; i < to; i += step) {
    const json::object object = configMap(ns, i);
    const WriteOptions options;
    auto created = co_await client.create(kConfigMaps, ns, object, options);
    if (!created) {
      std::fprintf(stderr, "create: %s\n", created.error().str().c_str());
      co_return;
    }
  }
}

asio::awaitable<void> patchRange(RestClient& client, std::string ns, int from, int to, int step) {
  for (int i = from; i < to; i += step) {
    const std::string key = "cm-" + std::to_string(i);
    const std::string patch = R"({"data":{"value":"changed"}})";
    const WriteOptions options;
    const std::string none;
    auto done =
        co_await client.patch(kConfigMaps, ns, key, PatchType::kMerge, patch, options, none);
    if (!done) std::fprintf(stderr, "patch: %s\n", done.error().str().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int objects = 100'000;
  int runSeconds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--objects")) objects = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--seconds")) runSeconds = std::atoi(argv[i + 1]);
  }
  testing::SimProcess sim(FLOTILLA_SIM_BINARY);
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread ioThread([&] { io.run(); });
  RestConfig config = sim.config();
  config.qps = 0;  // measure the server and the client, not the limiter
  auto client = RestClient::create(io.get_executor(), config).value();
  auto run = [&](auto task) { return asio::co_spawn(io, std::move(task), asio::use_future).get(); };

  const std::string ns = "bench";
  json::object namespaceObject{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", ns}}}};
  run(client->create(kNamespaces, "", namespaceObject, {})).value();

  std::printf("flotilla kube client benchmark (flotilla-sim pid %d, %d objects)\n", sim.pid(),
              objects);
  const auto fillStart = Clock::now();
  {
    constexpr int kWriters = 16;
    std::vector<std::future<void>> writers;
    for (int w = 0; w < kWriters; ++w)
      writers.push_back(
          asio::co_spawn(io, createRange(*client, ns, w, objects, kWriters), asio::use_future));
    for (auto& f : writers) f.get();
  }
  std::printf("  fill: %d creates in %.1f s (%.0f/s, 16 concurrent)\n", objects,
              seconds(Clock::now() - fillStart), objects / seconds(Clock::now() - fillStart));

  // 1. Informer.
  const size_t before = residentBytes();
  InformerOptions options;
  options.ns = ns;
  SharedInformer informer(*client, kConfigMaps, options);
  std::atomic<int> updates{0};
  informer.addHandler(
      EventHandler{nullptr, [&](const ObjectPtr&, const ObjectPtr&) { ++updates; }, nullptr});
  const auto listStart = Clock::now();
  informer.start(io.get_executor());
  while (!informer.hasSynced()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const double listSeconds = seconds(Clock::now() - listStart);
  const size_t after = residentBytes();
  std::printf("  informer list of %zu objects: %.2f s (%.0f objects/s)\n", informer.store().size(),
              listSeconds, informer.store().size() / listSeconds);
  std::printf("  resident memory: %.1f MiB more, %.0f bytes per cached object\n",
              (after - before) / 1048576.0, static_cast<double>(after - before) / objects);

  const int watched = std::min(objects, 20'000);
  const auto watchStart = Clock::now();
  {
    constexpr int kWriters = 16;
    std::vector<std::future<void>> writers;
    for (int w = 0; w < kWriters; ++w)
      writers.push_back(
          asio::co_spawn(io, patchRange(*client, ns, w, watched, kWriters), asio::use_future));
    for (auto& f : writers) f.get();
  }
  while (updates < watched && seconds(Clock::now() - watchStart) < 120)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::printf("  watch: %d updates written and seen by the informer in %.2f s (%.0f events/s)\n",
              updates.load(), seconds(Clock::now() - watchStart),
              updates / seconds(Clock::now() - watchStart));
  informer.stop();

  // 2. One client, sequential requests.
  auto sequential = [&](bool write) {
    auto task = [&client, ns, write, runSeconds]() -> asio::awaitable<int> {
      const auto end = Clock::now() + std::chrono::seconds(runSeconds);
      int done = 0;
      const std::string none;
      const WriteOptions options;
      while (Clock::now() < end) {
        const std::string name = "cm-" + std::to_string(done % 1000);
        if (write) {
          const std::string patch = R"({"data":{"value":")" + std::to_string(done) + R"("}})";
          auto r = co_await client->patch(kConfigMaps, ns, name, PatchType::kMerge, patch, options,
                                          none);
          if (!r) co_return done;
        } else {
          auto r = co_await client->get(kConfigMaps, ns, name, none);
          if (!r) co_return done;
        }
        ++done;
      }
      co_return done;
    };
    return asio::co_spawn(io, task(), asio::use_future).get();
  };
  const int gets = sequential(false);
  std::printf("  single client get:    %.0f requests/s\n", static_cast<double>(gets) / runSeconds);
  const int writes = sequential(true);
  std::printf("  single client update: %.0f requests/s (durable: each waits for fdatasync)\n",
              static_cast<double>(writes) / runSeconds);
  std::printf("  client counters: %llu requests, %llu retries\n",
              static_cast<unsigned long long>(client->counters().requests.load()),
              static_cast<unsigned long long>(client->counters().retries.load()));
  client.reset();
  work.reset();
  io.stop();
  ioThread.join();
  return 0;
}
