// The typed codec (api/json_codec.h) on the objects the operator decodes most: a ResourceBinding
// and a FederatedDeployment as the host API server stores them mid-life (placed on three
// clusters, statuses written). Every controller decodes what it reads from a cache, so this is
// a per-reconcile cost (docs/performance.md, round 2).
// Also what a watch event's object costs to parse and free, on the heap as Boost.JSON does by
// default and in an arena of its own as the informers keep it (api/json_arena.h), and the copy
// into an exactly sized arena that a trimmed or listed object gets.
// Run: make bench   (Release build; prints ns per decode and per encode).
#include <benchmark/benchmark.h>

#include <boost/json/parse.hpp>
#include <cstring>
#include <vector>

#include "api/flotilla_types.h"
#include "api/json_arena.h"
#include "api/json_codec.h"

namespace flotilla::api {
namespace {

const char* kBinding = R"({
  "apiVersion": "flotilla.io/v1alpha1", "kind": "ResourceBinding",
  "metadata": {"name": "web-42", "namespace": "shop", "uid": "7d0c4f5e-2b1a-4c3d-9e8f-0a1b2c3d4e5f",
    "resourceVersion": "918273", "generation": 3, "creationTimestamp": "2026-11-28T10:00:00Z",
    "labels": {"app": "web", "flotilla.io/policy": "spread"},
    "annotations": {"flotilla.io/schedule-record": "{\"replicas\":6,\"placementHash\":\"a1b2c3\"}"},
    "ownerReferences": [{"apiVersion": "flotilla.io/v1alpha1", "kind": "FederatedDeployment",
      "name": "web-42", "uid": "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b", "controller": true,
      "blockOwnerDeletion": true}],
    "finalizers": ["flotilla.io/cleanup"]},
  "spec": {"resource": {"apiVersion": "apps/v1", "kind": "Deployment", "namespace": "shop",
      "name": "web-42", "uid": "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d"},
    "replicas": 6, "replicaRequirements": {"resourceRequest": {"cpu": "100m", "memory": "128Mi"}},
    "policy": {"kind": "PropagationPolicy", "name": "spread", "namespace": "shop", "generation": 1},
    "placement": {"clusterAffinity": {"labelSelector": {"matchLabels": {"env": "load"}}},
      "spreadConstraints": [{"spreadByField": "cluster", "maxGroups": 3, "minGroups": 1}],
      "replicaScheduling": {"type": "Divided", "divisionPreference": "Weighted",
        "weightPreference": {"dynamicWeight": "AvailableReplicas"}}},
    "clusters": [{"name": "m001", "replicas": 2}, {"name": "m002", "replicas": 2},
      {"name": "m003", "replicas": 2}]},
  "status": {"conditions": [
      {"type": "Scheduled", "status": "True", "observedGeneration": 3,
       "lastTransitionTime": "2026-11-28T10:00:01Z", "reason": "Success", "message": "placed"},
      {"type": "FullyApplied", "status": "True", "observedGeneration": 3,
       "lastTransitionTime": "2026-11-28T10:00:02Z", "reason": "Applied",
       "message": "applied on every cluster"}],
    "schedulerObservedGeneration": 3, "lastScheduledTime": "2026-11-28T10:00:01Z",
    "lastScheduleType": "FirstSchedule", "placementSummary": "m001=2 m002=2 m003=2",
    "aggregatedStatus": [
      {"clusterName": "m001", "applied": true, "propagation": "OK", "health": "Healthy",
       "replicas": 2, "readyReplicas": 2},
      {"clusterName": "m002", "applied": true, "propagation": "OK", "health": "Healthy",
       "replicas": 2, "readyReplicas": 2},
      {"clusterName": "m003", "applied": true, "propagation": "OK", "health": "Healthy",
       "replicas": 2, "readyReplicas": 2}]}})";

const char* kFederatedDeployment = R"({
  "apiVersion": "flotilla.io/v1alpha1", "kind": "FederatedDeployment",
  "metadata": {"name": "web-42", "namespace": "shop", "uid": "0f1e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b",
    "resourceVersion": "918270", "generation": 1, "creationTimestamp": "2026-11-28T10:00:00Z",
    "labels": {"app": "web"},
    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web-42",
      "uid": "1a2b3c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d", "controller": true,
      "blockOwnerDeletion": true}]},
  "spec": {"template": {"metadata": {"labels": {"app": "web"}},
    "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}},
      "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%",
        "maxUnavailable": "25%"}},
      "template": {"metadata": {"labels": {"app": "web", "tier": "frontend"}},
        "spec": {"containers": [{"name": "web", "image": "registry.example/web:1.4.2",
          "ports": [{"containerPort": 8080, "protocol": "TCP"}],
          "env": [{"name": "MODE", "value": "production"}, {"name": "LOG", "value": "info"}],
          "resources": {"requests": {"cpu": "100m", "memory": "128Mi"},
            "limits": {"cpu": "500m", "memory": "256Mi"}},
          "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}}}],
          "restartPolicy": "Always", "terminationGracePeriodSeconds": 30}}}}},
  "status": {"observedGeneration": 1, "replicas": 6, "readyReplicas": 6,
    "availableReplicas": 6, "updatedReplicas": 6,
    "clusters": [{"name": "m001", "replicas": 2, "readyReplicas": 2, "availableReplicas": 2},
      {"name": "m002", "replicas": 2, "readyReplicas": 2, "availableReplicas": 2},
      {"name": "m003", "replicas": 2, "readyReplicas": 2, "availableReplicas": 2}]}})";

template <class T>
void decodeBench(benchmark::State& state, const char* text) {
  const boost::json::object object = boost::json::parse(text).as_object();
  for (auto _ : state) {
    auto decoded = decode<T>(object);
    if (!decoded) state.SkipWithError(decoded.error().message.c_str());
    benchmark::DoNotOptimize(decoded);
  }
}

template <class T>
void encodeBench(benchmark::State& state, const char* text) {
  const auto decoded = decode<T>(boost::json::parse(text).as_object());
  if (!decoded) {
    state.SkipWithError(decoded.error().message.c_str());
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(encode(*decoded));
}

void BM_DecodeResourceBinding(benchmark::State& s) { decodeBench<ResourceBinding>(s, kBinding); }
void BM_DecodeFederatedDeployment(benchmark::State& s) {
  decodeBench<FederatedDeployment>(s, kFederatedDeployment);
}
void BM_EncodeResourceBinding(benchmark::State& s) { encodeBench<ResourceBinding>(s, kBinding); }
void BM_EncodeFederatedDeployment(benchmark::State& s) {
  encodeBench<FederatedDeployment>(s, kFederatedDeployment);
}
// As a cache holds them: a thousand objects parsed and kept, then freed together, so that the
// allocator does not just hand the same blocks back (per object). (Emplaced: assigning a value
// to one of another memory resource would copy it.)
constexpr int kHeld = 1000;
void BM_ParseAndFreeResourceBindingOnTheHeap(benchmark::State& state) {
  std::vector<boost::json::value> held;
  held.reserve(kHeld);
  for (auto _ : state) {
    for (int i = 0; i < kHeld; ++i) held.emplace_back(boost::json::parse(kBinding));
    held.clear();
  }
  state.SetItemsProcessed(state.iterations() * kHeld);
}
void BM_ParseAndFreeResourceBindingInAnArena(benchmark::State& state) {
  const std::size_t size = std::strlen(kBinding);
  std::vector<boost::json::value> held;
  held.reserve(kHeld);
  for (auto _ : state) {
    for (int i = 0; i < kHeld; ++i)
      held.emplace_back(boost::json::parse(kBinding, makeJsonArena(jsonArenaBytes(size))));
    held.clear();
  }
  state.SetItemsProcessed(state.iterations() * kHeld);
}
void BM_CompactCopyOfAResourceBinding(benchmark::State& state) {
  const boost::json::object object = boost::json::parse(kBinding).as_object();
  std::vector<boost::json::object> held;
  held.reserve(kHeld);
  for (auto _ : state) {
    for (int i = 0; i < kHeld; ++i) held.emplace_back(compactCopy(object));
    held.clear();
  }
  state.SetItemsProcessed(state.iterations() * kHeld);
}
BENCHMARK(BM_ParseAndFreeResourceBindingOnTheHeap);
BENCHMARK(BM_ParseAndFreeResourceBindingInAnArena);
BENCHMARK(BM_CompactCopyOfAResourceBinding);
BENCHMARK(BM_DecodeResourceBinding);
BENCHMARK(BM_DecodeFederatedDeployment);
BENCHMARK(BM_EncodeResourceBinding);
BENCHMARK(BM_EncodeFederatedDeployment);

}  // namespace
}  // namespace flotilla::api

BENCHMARK_MAIN();
