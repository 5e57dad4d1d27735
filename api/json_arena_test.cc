#include "api/json_arena.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace flotilla::api {
namespace {

namespace json = boost::json;

// A ResourceBinding as the operator caches it (placed, with statuses).
const std::string kBinding = R"({"apiVersion":"flotilla.io/v1alpha1","kind":"ResourceBinding",
"metadata":{"annotations":{"flotilla.io/schedule-record":"{\"replicas\":1,\"placement\":\"0d56a2f0a88db704\"}"},
"creationTimestamp":"2026-11-28T15:43:48Z","generation":2,"name":"w00000","namespace":"load",
"ownerReferences":[{"apiVersion":"flotilla.io/v1alpha1","blockOwnerDeletion":true,"controller":true,
"kind":"FederatedDeployment","name":"w00000","uid":"9b8f2652-b7a0-4bf5-8555-e23813383662"}],
"resourceVersion":"1875","uid":"c03b7613-bec8-4909-8bfb-b5b947408c9b"},
"spec":{"clusters":[{"name":"m001","replicas":1}],"placement":{"clusterAffinity":{"labelSelector":
{"matchLabels":{"bench-shard":"s0"}}},"replicaScheduling":{"division":"Aggregated","type":"Divided"},
"spreadConstraints":[{"maxGroups":3,"minGroups":1,"spreadByField":"cluster"}]},"replicas":1,
"resource":{"apiVersion":"flotilla.io/v1alpha1","kind":"FederatedDeployment","name":"w00000",
"namespace":"load","uid":"9b8f2652-b7a0-4bf5-8555-e23813383662"}},
"status":{"aggregatedStatus":[{"applied":true,"clusterName":"m001","health":"Healthy",
"readyReplicas":1,"replicas":1}],"conditions":[{"lastTransitionTime":"2026-11-28T15:43:48Z",
"message":"the current template and replicas are applied on every target cluster",
"observedGeneration":2,"reason":"FullyAppliedSuccess","status":"True","type":"FullyApplied"}]}})";

TEST(JsonArena, AParsedObjectFitsTheEstimateForItsText) {
  auto storage = makeJsonArena(jsonArenaBytes(kBinding.size()));
  auto* arena = jsonArenaOf(storage);
  ASSERT_NE(arena, nullptr);
  const json::value v = json::parse(kBinding, storage);
  // One block, most of it used: the estimate is neither short nor wasteful.
  EXPECT_LT(arena->reserved(), jsonArenaBytes(kBinding.size()) + 16) << arena->used();
  EXPECT_GT(arena->used(), arena->reserved() * 3 / 4) << arena->used();
  arena->seal();  // (gtest's printing of a value on failure would copy it into the arena)
  EXPECT_EQ(v, json::parse(kBinding));
}

TEST(JsonArena, ATreeLargerThanTheEstimateGrowsIntactInFewBlocks) {
  auto storage = makeJsonArena(64);
  const json::value v = json::parse(kBinding, storage);
  const auto* arena = jsonArenaOf(storage);
  EXPECT_GT(arena->reserved(), 64u);
  EXPECT_GE(arena->reserved(), arena->used());
  // Each further block is as large as those before it: 64 bytes to ~4 KB in a handful.
  EXPECT_LE(arena->blocks(), 8u) << arena->blocks();
  EXPECT_TRUE(arena->slack());
  jsonArenaOf(storage)->seal();
  EXPECT_EQ(v, json::parse(kBinding));
}

TEST(JsonArena, ACompactCopyOfATreeLargerThanTheScratchFitsOneBlock) {
  json::object big;
  for (int i = 0; i < 400; ++i)  // (odd key lengths: allocations at odd offsets)
    big["key-" + std::to_string(i) + std::string(i % 7, 'x')] = json::parse(kBinding);
  const json::object copy = compactCopy(big);
  EXPECT_EQ(copy, big);
  EXPECT_EQ(jsonArenaOf(copy.storage())->blocks(), 1u);
  EXPECT_FALSE(jsonArenaOf(copy.storage())->slack());
}

TEST(JsonArena, ACompactCopyIsEqualSealedAndExactlyItsSize) {
  json::object original = json::parse(kBinding).as_object();
  original.at("metadata").as_object().erase("annotations");
  const json::object copy = compactCopy(original);
  EXPECT_EQ(copy, original);
  const auto* arena = jsonArenaOf(copy.storage());
  ASSERT_NE(arena, nullptr);
  EXPECT_TRUE(arena->sealed());
  EXPECT_LT(arena->reserved() - arena->used(), 16u);    // one block, to its alignment
  EXPECT_EQ(jsonArenaOf(original.storage()), nullptr);  // (the heap's)
}

TEST(JsonArena, CopiesOfASealedTreeComeFromTheHeapFromAnyThread) {
  const json::object cached = compactCopy(json::parse(kBinding).as_object());
  const auto* arena = jsonArenaOf(cached.storage());
  ASSERT_NE(arena, nullptr);
  const std::size_t reserved = arena->reserved();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&cached] {
      for (int i = 0; i < 200; ++i) {
        json::object copy = cached;  // (in the source's memory resource)
        copy["spec"].as_object()["replicas"] = i;
        copy.at("metadata").as_object()["name"] = "a name longer than the small-string buffer";
        ASSERT_EQ(copy.at("status"), cached.at("status"));
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(arena->reserved(), reserved);  // the arena itself did not grow
  EXPECT_EQ(cached, json::parse(kBinding));
}

TEST(JsonArena, OnlyAnArenaIsTakenForOne) {
  EXPECT_EQ(jsonArenaOf({}), nullptr);
  EXPECT_EQ(jsonArenaOf(json::make_shared_resource<json::monotonic_resource>()), nullptr);
  JsonArena unshared(64);
  EXPECT_EQ(jsonArenaOf(json::storage_ptr(&unshared)), nullptr);
}

TEST(JsonArena, AResetScratchArenaKeepsItsFirstBlock) {
  JsonArena scratch(512);
  {
    const json::value v(json::parse(kBinding), json::storage_ptr(&scratch));
    EXPECT_GT(scratch.reserved(), 512u);
  }
  scratch.reset();
  EXPECT_EQ(scratch.used(), 0u);
  EXPECT_EQ(scratch.reserved(), 512u);
}

}  // namespace
}  // namespace flotilla::api
