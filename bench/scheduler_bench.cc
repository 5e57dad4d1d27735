// Scheduler throughput (docs/design.md §10): bindings per second through the full
// filter -> score -> select -> replicas cycle, and through the replica planner alone, at 10 to
// 5,000 clusters.
// Run: make bench   (Release build; prints bindings/s per cluster count).
#include <benchmark/benchmark.h>

#include "api/validation.h"
#include "scheduler/scheduler.h"

namespace flotilla::scheduler {
namespace {

api::Quantity q(const std::string& s) { return api::Quantity::parse(s).value(); }

// A fleet of `n` Ready clusters over 5 providers x 10 regions x 3 zones, with varied usage and
// a few taints, labelled env=prod (90%) or env=dev.
std::vector<api::FederatedCluster> fleet(int n) {
  std::vector<api::FederatedCluster> clusters(n);
  for (int i = 0; i < n; ++i) {
    api::FederatedCluster& c = clusters[i];
    c.metadata.name = "member-" + std::to_string(i);
    c.metadata.labels = {{"env", i % 10 == 0 ? "dev" : "prod"}};
    c.spec.provider = "p" + std::to_string(i % 5);
    c.spec.region = "r" + std::to_string(i % 10);
    c.spec.zone = c.spec.region + "-z" + std::to_string(i % 3);
    if (i % 17 == 0) c.spec.taints = {{"dedicated", "batch", "NoSchedule", ""}};
    if (i % 13 == 0) c.spec.taints.push_back({"spot", "", "PreferNoSchedule", ""});
    c.status.conditions = {{"Ready", i % 23 == 0 ? "False" : "True", 0, "", "", ""}};
    c.status.apiEnablements = {{"apps/v1", {{"deployments", "Deployment"}}}};
    c.status.resources.allocatable = {{"cpu", q(std::to_string(16 + i % 48))},
                                      {"memory", q(std::to_string(64 + i % 192) + "Gi")},
                                      {"pods", q("110")}};
    c.status.resources.allocated = {{"cpu", q(std::to_string(i % 16))},
                                    {"memory", q(std::to_string(i % 64) + "Gi")},
                                    {"pods", q(std::to_string(i % 100))}};
  }
  return clusters;
}

SchedulingUnit unit() {
  SchedulingUnit u;
  u.key = "shop/web";
  u.apiVersion = "apps/v1";
  u.kind = "Deployment";
  u.replicas = 30;
  u.resourceRequest = {{"cpu", q("500m")}, {"memory", q("1Gi")}};
  u.placement.clusterAffinity = api::ClusterAffinity{};
  u.placement.clusterAffinity->labelSelector = api::LabelSelector{{{"env", "prod"}}, {}};
  u.placement.spreadConstraints = {{"region", "", 3, std::nullopt}, {"cluster", "", 3, 10}};
  u.placement.topologySpreadConstraints = {{"zone", 2, "ScheduleAnyway"}};
  api::setDefaults(u.placement);
  u.currentReplicas = {{"member-1", 10}, {"member-2", 10}, {"member-3", 10}};
  return u;
}

void BM_ScheduleFullCycle(benchmark::State& state) {
  // The fleet snapshot is built once per fleet change and shared by every binding.
  const ClusterSnapshot snapshot(fleet(static_cast<int>(state.range(0))));
  const Profile profile = defaultProfile().value();
  const SchedulingUnit u = unit();
  for (auto _ : state) {
    ScheduleResult r = scheduleUnit(profile, u, snapshot);
    if (!r.ok()) state.SkipWithError(r.message.c_str());
    benchmark::DoNotOptimize(r.placement);
  }
  state.counters["bindings/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ScheduleFullCycle)
    ->Arg(10)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMicrosecond);

void BM_PlannerAlone(benchmark::State& state) {
  PlannerInput in;
  const int n = static_cast<int>(state.range(0));
  in.totalReplicas = int64_t{3} * n;
  in.key = "shop/web";
  for (int i = 0; i < n; ++i) {
    const std::string name = "member-" + std::to_string(i);
    in.clusters.push_back(name);
    in.preferences[name] = {1 + i % 5, i % 3 == 0 ? 1 : 0, std::nullopt};
    if (i % 2 == 0) in.currentReplicas[name] = i % 7;
    if (i % 11 == 0) in.estimatedCapacity[name] = 1;
  }
  for (auto _ : state) {
    PlannerResult r = planReplicas(in);
    benchmark::DoNotOptimize(r.plan);
  }
  state.counters["bindings/s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PlannerAlone)->Arg(10)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace flotilla::scheduler

BENCHMARK_MAIN();
