// The property test of issue 14: random fleets and random event sequences (capacity drops,
// recoveries, outages, returns), with fixed seeds, run through the real decisions — auto-migration
// estimates (estimate.h), when and how to schedule (scheduler/schedule_type.h) and the scheduler
// itself — over a simulated member that runs what fits and leaves the rest Unschedulable. Checked:
// a running workload's placement is never emptied; between events, placements change only by
// the bounded upward probes capacityTTL allows (no ping-pong); after the fleet recovers the
// placement converges and stays.
#include <gtest/gtest.h>

#include <random>

#include "api/conditions.h"
#include "controllers/automigration/estimate.h"
#include "scheduler/available_replicas.h"
#include "scheduler/schedule_type.h"
#include "scheduler/scheduler.h"

namespace flotilla::controllers::automigration {
namespace {

using namespace std::chrono;
namespace fs = flotilla::scheduler;

constexpr int64_t kUnlimited = 1000;

struct Member {
  std::string name;
  int64_t capacity = kUnlimited;  // replicas of this workload its nodes can run
  // Free CPU no replica fits into (spread over nodes): reported as available all the same, so
  // the cluster's free resources overstate what it can run, as fragmented nodes do.
  int64_t fragmented = 0;
  bool ready = true;
  api::Clock::time_point readySince;
  std::optional<api::Clock::time_point> pendingSince;
  int64_t running = 0;
  int64_t pending = 0;
};

api::Quantity cpu(int64_t n) { return api::Quantity::parse(std::to_string(n)).value(); }

api::FederatedCluster federated(const Member& m) {
  api::FederatedCluster c;
  c.metadata.name = m.name;
  c.spec.provider = "sim";
  c.status.conditions.push_back({"Ready", m.ready ? "True" : "Unknown", 0,
                                 api::formatRfc3339(m.readySince),
                                 m.ready ? "ClusterReady" : "ClusterUnreachable", ""});
  c.status.apiEnablements.push_back({"apps/v1", {{"deployments", "Deployment"}}});
  c.status.resources.allocatable = {{"cpu", cpu(m.capacity + m.fragmented)},
                                    {"pods", api::Quantity::parse("2000").value()}};
  c.status.resources.allocated = {{"cpu", cpu(m.running)}};
  c.status.resources.allocating = {{"cpu", cpu(m.pending)}};
  return c;
}

std::string placementOf(const api::ResourceBinding& rb) {
  std::string out;
  for (const auto& c : rb.spec.clusters) out += c.name + "=" + std::to_string(c.replicas) + " ";
  return out;
}

struct Scenario {
  uint32_t seed;
  std::mt19937 rng;
  std::vector<Member> members;
  api::ResourceBinding rb;
  Settings settings;
  bool keep = false;
  bool failbackRebalance = true;
  api::Clock::time_point now = *api::parseRfc3339("2026-11-23T00:00:00Z");
  std::vector<std::string> history;  // placement after each step
  std::vector<std::string> notes;    // the fleet and estimates after each step
  bool everRunning = false;

  explicit Scenario(uint32_t s) : seed(s), rng(s) {
    const int clusters = 2 + static_cast<int>(rng() % 4);
    for (int i = 0; i < clusters; ++i) {
      Member m;
      m.name = "member" + std::to_string(i + 1);
      m.readySince = now - hours(1);
      members.push_back(m);
    }
    rb.metadata.name = "web";
    rb.metadata.namespace_ = "shop";
    rb.metadata.generation = 1;
    rb.spec.resource = {"flotilla.io/v1alpha1", "FederatedDeployment", "shop", "web", "u1"};
    rb.spec.replicas = 3 + static_cast<int32_t>(rng() % 10);
    rb.spec.replicaRequirements.resourceRequest = {{"cpu", cpu(1)}};
    rb.spec.policy = {"PropagationPolicy", "p", "shop", 1};
    api::ReplicaScheduling rs;
    rs.type = "Divided";
    rs.division = "Weighted";
    for (const auto& m : members) {
      api::ClusterPreference p;
      p.targetCluster.clusterNames = {m.name};
      p.weight = 1 + static_cast<int64_t>(rng() % 3);
      rs.weights.push_back(p);
    }
    rb.spec.placement.replicaScheduling = rs;
    keep = rng() % 2;
    failbackRebalance = rng() % 2;
    settings.podUnschedulableFor = seconds(10 + rng() % 50);
    settings.capacityTTL = minutes(5);
  }

  // The members run what their capacity allows; the rest waits Unschedulable.
  void runMembers() {
    std::map<std::string, int64_t> desired;
    for (const auto& c : rb.spec.clusters) desired[c.name] = c.replicas;
    for (auto& m : members) {
      if (!m.ready) continue;  // unknown: whatever ran there keeps its last state
      const int64_t d = desired.count(m.name) ? desired[m.name] : 0;
      m.running = std::min(d, m.capacity);
      m.pending = d - m.running;
      if (m.pending == 0) m.pendingSince.reset();
      if (m.pending > 0 && !m.pendingSince) m.pendingSince = now;
    }
  }

  void autoMigrate() {
    std::map<std::string, int64_t> desired;
    for (const auto& c : rb.spec.clusters) desired[c.name] = c.replicas;
    if (rb.status.autoMigration)
      for (const auto& [c, _] : rb.status.autoMigration->estimatedCapacity) desired.emplace(c, 0);
    std::vector<ClusterView> views;
    for (const auto& [name, d] : desired) {
      const Member& m = *std::find_if(members.begin(), members.end(),
                                      [&](const Member& x) { return x.name == name; });
      ClusterView v{name, d, m.ready, {}, std::nullopt};
      if (m.ready) {
        for (int64_t i = 0; i < m.running; ++i) v.pods.push_back({});
        for (int64_t i = 0; i < m.pending; ++i) v.pods.push_back({true, *m.pendingSince});
        v.availableReplicas = fs::availableReplicas(federated(m).status.resources,
                                                    rb.spec.replicaRequirements.resourceRequest) +
                              m.pending;
      }
      views.push_back(std::move(v));
    }
    rb.status.autoMigration = decide(rb.status.autoMigration, views, settings, now).status;
  }

  void schedule() {
    std::vector<api::FederatedCluster> fleet;
    for (const auto& m : members) fleet.push_back(federated(m));
    std::optional<fs::ScheduleRecord> last;
    if (auto it = rb.metadata.annotations.find(fs::kScheduleRecordAnnotation);
        it != rb.metadata.annotations.end())
      last = fs::decodeRecord(it->second);
    const auto decision =
        fs::decideSchedule(rb, last, fleet, now, {seconds(60), failbackRebalance});
    if (decision.type == fs::ScheduleType::kNone) return;
    static const fs::Profile profile = fs::defaultProfile().value();
    auto unit = fs::unitFromBinding(rb, keep);
    for (const auto& failed : decision.failedClusters) unit.currentReplicas.erase(failed);
    unit.rebalance = decision.rebalance;
    const auto result = fs::scheduleUnit(profile, unit, fleet);
    rb = fs::applyScheduleResult(rb, result, decision, now);
    ++types[std::string(fs::scheduleTypeName(decision.type)) +
            (decision.rebalance ? "+rebalance" : "") + (result.ok() ? "" : " (failed)")];
  }
  std::map<std::string, int> types;

  void step() {
    runMembers();
    autoMigrate();
    schedule();
    runMembers();
    int64_t running = 0;
    for (const auto& m : members) running += m.running;
    everRunning = everRunning || running > 0;
    if (everRunning) {
      ASSERT_FALSE(rb.spec.clusters.empty()) << "seed " << seed << ": emptied";
    }
    history.push_back(placementOf(rb));
    std::string note = " |";
    for (const auto& m : members)
      note += " " + m.name + (m.ready ? "" : "(down)") + " cap " +
              (m.capacity == kUnlimited ? std::string("-") : std::to_string(m.capacity)) + "+" +
              std::to_string(m.fragmented) + " run " + std::to_string(m.running) + " pend " +
              std::to_string(m.pending);
    if (rb.status.autoMigration)
      for (const auto& [c, n] : rb.status.autoMigration->estimatedCapacity)
        note += " est " + c + "=" + std::to_string(n);
    notes.push_back(note + " " + rb.status.lastScheduleType);
    now += seconds(5);
  }

  // One random event on one member.
  std::string event() {
    Member& m = members[rng() % members.size()];
    switch (rng() % 4) {
      case 0:
        m.capacity = rng() % (rb.spec.replicas + 1);
        m.fragmented = rng() % 3;
        return m.name + " squeezed to " + std::to_string(m.capacity);
      case 1:
        m.capacity = kUnlimited;
        m.fragmented = 0;
        return m.name + " relieved";
      case 2:
        if (m.ready) m.readySince = now;
        m.ready = false;
        return m.name + " down";
      default:
        if (!m.ready) m.readySince = now;
        m.ready = true;
        return m.name + " back";
    }
  }
};

int changes(const std::vector<std::string>& h, size_t from, size_t to) {
  int n = 0;
  for (size_t i = std::max<size_t>(from, 1); i < to; ++i) n += h[i] != h[i - 1];
  return n;
}

// A ping-pong: the placement goes A -> B -> A -> B with no event in between.
bool pingPong(const std::vector<std::string>& h, size_t from, size_t to) {
  std::vector<std::string> distinct;
  for (size_t i = from; i < to; ++i)
    if (distinct.empty() || h[i] != distinct.back()) distinct.push_back(h[i]);
  for (size_t i = 3; i < distinct.size(); ++i)
    if (distinct[i] == distinct[i - 2] && distinct[i - 1] == distinct[i - 3]) return true;
  return false;
}

TEST(ConvergenceTest, RandomFleetsAndEventsConvergeWithoutFlapping) {
  int scenarios = 0, totalChanges = 0;
  std::map<std::string, int> types;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    Scenario s(seed);
    for (int i = 0; i < 3; ++i) s.step();  // first schedule
    ASSERT_FALSE(s.rb.spec.clusters.empty()) << "seed " << seed;
    // Events every 30-150 s for about an hour. Between two events the placement changes by the
    // reaction to the event, plus at most one upward probe (and its correction) per estimate and
    // TTL — and never back and forth between two placements.
    std::vector<std::string> log;
    for (int e = 0; e < 25; ++e) {
      log.push_back(s.event());
      const size_t start = s.history.size();
      const int steps = 6 + static_cast<int>(s.rng() % 25);
      for (int i = 0; i < steps; ++i) s.step();
      if (::testing::Test::HasFatalFailure()) return;
      const int window = steps * 5;
      const int allowed = 2 + 2 * static_cast<int>(s.members.size()) * (1 + window / 300);
      const int seen = changes(s.history, start - 1, s.history.size());
      std::string trail;
      for (size_t i = start - 1; i < s.history.size(); ++i)
        if (i == start - 1 || s.history[i] != s.history[i - 1])
          trail += "\n  +" + std::to_string((i - start + 1) * 5) + "s " + s.history[i] + s.notes[i];
      std::string events;
      for (const auto& e : log) events += e + "; ";
      ASSERT_LE(seen, allowed) << "seed " << seed << " after " << log.back() << ": " << seen
                               << " placement changes in " << window << " s" << trail
                               << "\nevents: " << events;
      ASSERT_FALSE(pingPong(s.history, start - 1, s.history.size()))
          << "seed " << seed << " after " << log.back() << ": ping-pong" << trail;
      totalChanges += seen;
    }
    // The fleet recovers: everything Ready with room. Within one TTL and a few reactions the
    // placement settles, then stays for good (three TTLs watched).
    for (auto& m : s.members) {
      m.capacity = kUnlimited;
      m.fragmented = 0;
      if (!m.ready) m.readySince = s.now;
      m.ready = true;
    }
    for (int i = 0; i < 80; ++i) s.step();  // 400 s: past one TTL
    const size_t settled = s.history.size();
    for (int i = 0; i < 180; ++i) s.step();  // 900 s
    EXPECT_EQ(changes(s.history, settled, s.history.size()), 0)
        << "seed " << seed << " keeps moving after recovery: " << s.history.back();
    int64_t sum = 0;
    for (const auto& c : s.rb.spec.clusters) sum += c.replicas;
    EXPECT_EQ(sum, s.rb.spec.replicas) << "seed " << seed << ": " << s.history.back();
    EXPECT_FALSE(s.rb.status.autoMigration) << "seed " << seed << ": estimates left";
    ++scenarios;
    for (const auto& [t, n] : s.types) types[t] += n;
  }
  std::cout << scenarios << " scenarios, " << totalChanges << " placement changes in total\n";
  for (const auto& [t, n] : types) std::cout << "  " << t << ": " << n << "\n";
  // The sequences do exercise what is under test.
  EXPECT_GT(types["MigrationSchedule"], 100);
  EXPECT_GT(types["MigrationSchedule+rebalance"], 100);
  EXPECT_GT(types["FailoverSchedule"], 100);
}

}  // namespace
}  // namespace flotilla::controllers::automigration
