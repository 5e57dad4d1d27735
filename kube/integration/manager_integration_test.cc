// Leader election and the manager against a real API server (label: integration).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <csignal>
#include <thread>

#include "kube/integration/test_cluster.h"
#include "kube/leader/leader_elector.h"
#include "kube/manager/manager.h"
#include "kube/net/http_client.h"
#include "kube/net/test_server.h"

namespace flotilla::kube {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using net::testing::eventually;
using testing::TestCluster;
using Clock = std::chrono::steady_clock;

const ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};
const ResourceId kLeases{"coordination.k8s.io", "v1", "leases", true, "Lease"};

struct ManagerIntegration : testing::NamespacedTest {
  std::string holder(const std::string& lease) {
    const std::string none;
    auto current = io.run(client->get(kLeases, ns, lease, none));
    if (!current) return "<" + current.error().reason + ">";
    return std::string(current->at("spec").at("holderIdentity").as_string());
  }
};

// Records when each candidate believed it led, on one steady clock.
struct Intervals {
  std::mutex mutex;
  std::vector<std::tuple<std::string, Clock::time_point, Clock::time_point>> done;
  std::map<std::string, Clock::time_point> open;
  void start(const std::string& who) {
    std::lock_guard lock(mutex);
    open[who] = Clock::now();
  }
  void stop(const std::string& who) {
    std::lock_guard lock(mutex);
    done.emplace_back(who, open.at(who), Clock::now());
    open.erase(who);
  }
};

TEST_F(ManagerIntegration, LeaderElectionHandsOverWithoutOverlap) {
  LeaderElectionConfig base;
  base.leaseDuration = 3s;
  base.renewDeadline = 2s;
  base.retryPeriod = 200ms;
  const std::string lease = "flotilla-it-lease";
  RestConfig leaseConfig = TestCluster::get().config();
  leaseConfig.timeout = leaseRequestTimeout(base);
  RestClientOptions noRetries;
  noRetries.maxRetries = 0;
  auto leaseClient = RestClient::create(io.io().get_executor(), leaseConfig, noRetries).value();
  RestLeaseLock lockA(*leaseClient, io.io().get_executor(), ns, lease);
  RestLeaseLock lockB(*leaseClient, io.io().get_executor(), ns, lease);
  RestLeaseLock lockC(*leaseClient, io.io().get_executor(), ns, lease);
  api::RealSteadyClock clock;
  Intervals intervals;
  auto make = [&](RestLeaseLock& lock, const std::string& who, bool release) {
    LeaderElectionConfig c = base;
    c.identity = who;
    c.releaseOnStop = release;
    LeaderCallbacks callbacks{[&intervals, who] { intervals.start(who); },
                              [&intervals, who] { intervals.stop(who); }, nullptr};
    return std::make_unique<LeaderElector>(lock, c, callbacks, clock);
  };
  // a leads and then dies without releasing; b must wait out the lease, then lead.
  auto a = make(lockA, "a", false);
  auto b = make(lockB, "b", true);
  std::thread ta([&] { a->run(); });
  ASSERT_TRUE(eventually([&] { return a->isLeader(); }));
  std::thread tb([&] { b->run(); });
  ASSERT_TRUE(eventually([&] { return b->observedLeader() == "a"; }));
  EXPECT_FALSE(b->isLeader());
  a->stop();  // as if the process died: no release
  ta.join();
  const auto aGone = Clock::now();
  ASSERT_TRUE(eventually([&] { return b->isLeader(); }, 10s));
  const auto takeover = Clock::now() - aGone;
  EXPECT_LE(takeover, base.leaseDuration + 2 * base.retryPeriod + 500ms);
  EXPECT_EQ(holder(lease), "b");

  // b stops cleanly and releases: c takes over without waiting for the lease to lapse.
  auto c = make(lockC, "c", true);
  std::thread tc([&] { c->run(); });
  ASSERT_TRUE(eventually([&] { return c->observedLeader() == "b"; }));
  b->stop();
  tb.join();
  const auto bGone = Clock::now();
  ASSERT_TRUE(eventually([&] { return c->isLeader(); }, 10s));
  EXPECT_LT(Clock::now() - bGone, base.leaseDuration);
  c->stop();
  tc.join();

  std::lock_guard lock(intervals.mutex);
  ASSERT_EQ(intervals.done.size(), 3u);
  auto sorted = intervals.done;
  std::sort(sorted.begin(), sorted.end(),
            [](const auto& x, const auto& y) { return std::get<1>(x) < std::get<1>(y); });
  for (size_t i = 1; i < sorted.size(); ++i) {
    EXPECT_LE(std::get<2>(sorted[i - 1]), std::get<1>(sorted[i]))
        << std::get<0>(sorted[i - 1]) << " still led when " << std::get<0>(sorted[i]) << " started";
  }
}

class RecordingReconciler final : public Reconciler {
 public:
  api::Result<ReconcileResult> reconcile(const std::string& key) override {
    std::lock_guard lock(mutex);
    keys.push_back(key);
    return ReconcileResult{};
  }
  bool saw(const std::string& key) {
    std::lock_guard lock(mutex);
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  }
  std::mutex mutex;
  std::vector<std::string> keys;
};

// A manager with one controller on this namespace's ConfigMaps, running on its own thread.
struct RunningManager {
  RunningManager(const ManagerOptions& options, const std::string& ns)
      : manager(TestCluster::get().config(), options) {
    auto& controller = manager.addController("configmaps", reconciler);
    controller.watch(*manager.informers().informerFor(kConfigMaps, ns));
    runner = std::thread([this] { exitCode = manager.run(); });
  }
  int join() {
    runner.join();
    return exitCode;
  }
  Manager manager;
  RecordingReconciler reconciler;
  std::thread runner;
  int exitCode = -1;
};

api::Result<net::HttpResponse> scrape(net::testing::IoThread& io, uint16_t port,
                                      const std::string& path) {
  net::TlsClientOptions tls;
  tls.insecureSkipVerify = true;  // the manager's self-signed certificate
  net::HttpClientOptions options;
  options.tls = net::makeClientTlsContext(tls).value();
  options.verifyHostname = false;
  net::HttpClient http(io.io().get_executor(),
                       net::parseEndpoint("https://127.0.0.1:" + std::to_string(port)).value(),
                       options);
  net::HttpRequest request;
  request.target = path;
  return io.run(http.request(request, 5s));
}

TEST_F(ManagerIntegration, ManagerLeadsReconcilesServesHealthAndStopsGracefully) {
  ManagerOptions options;
  options.healthPort = 0;
  options.handleSignals = false;
  options.leaderElection = true;
  options.leaseNamespace = ns;
  options.leaseName = "manager-it";
  options.metricsWithHealth = true;
  options.election.identity = "manager-1";
  options.election.leaseDuration = 3s;
  options.election.renewDeadline = 2s;
  options.election.retryPeriod = 200ms;
  RunningManager running(options, ns);
  Manager& manager = running.manager;
  ASSERT_TRUE(eventually([&] { return manager.ready() && manager.leading(); }, 20s));

  json::object cm{{"apiVersion", "v1"},
                  {"kind", "ConfigMap"},
                  {"metadata", json::object{{"name", "watched"}, {"namespace", ns}}}};
  ASSERT_TRUE(io.run(client->create(kConfigMaps, ns, cm, {})));
  EXPECT_TRUE(eventually([&] { return running.reconciler.saw(ns + "/watched"); }));

  auto health = scrape(io, manager.healthPort(), "/healthz");
  ASSERT_TRUE(health) << health.error();
  EXPECT_EQ(health->status, 200);
  auto ready = scrape(io, manager.healthPort(), "/readyz");
  ASSERT_TRUE(ready) << ready.error();
  EXPECT_EQ(ready->status, 200);
  auto metrics = scrape(io, manager.healthPort(), "/metrics");
  ASSERT_TRUE(metrics) << metrics.error();
  EXPECT_NE(metrics->body.find("flotilla_controller_reconcile_total{controller=\"configmaps\"}"),
            std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find("flotilla_leader_election_leader{name=\"manager-it\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics->body.find("# TYPE flotilla_workqueue_depth gauge"), std::string::npos);
  EXPECT_EQ(holder("manager-it"), "manager-1");

  manager.stop();
  EXPECT_EQ(running.join(), 0);
  EXPECT_EQ(holder("manager-it"), "");  // released on the way out
}

TEST_F(ManagerIntegration, SigtermStopsTheManagerCleanly) {
  ManagerOptions options;
  options.healthPort = 0;
  options.handleSignals = true;
  RunningManager running(options, ns);
  ASSERT_TRUE(eventually([&] { return running.manager.ready(); }, 20s));
  ::kill(::getpid(), SIGTERM);  // handled by the manager, not fatal
  EXPECT_EQ(running.join(), 0);
  EXPECT_FALSE(running.manager.ready());
}

}  // namespace
}  // namespace flotilla::kube
