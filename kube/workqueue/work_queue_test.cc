#include "kube/workqueue/work_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "kube/net/test_server.h"

namespace flotilla::kube {
namespace {

using namespace std::chrono_literals;
using net::testing::eventually;

std::unique_ptr<WorkRateLimiter> noLimit() { return std::make_unique<ItemExponentialLimiter>(); }

TEST(WorkQueue, DeduplicatesAndNeverHandsAKeyToTwoWorkers) {
  api::FakeSteadyClock clock;
  WorkQueue q(clock, noLimit());
  q.add("a");
  q.add("b");
  q.add("a");
  EXPECT_EQ(q.len(), 2u);
  auto first = q.get();
  ASSERT_EQ(first, "a");
  q.add("a");  // changed again while being processed: waits, not handed out twice
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "b");
  EXPECT_EQ(q.len(), 0u);
  q.done("b");
  q.done("a");  // now "a" is queued again
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "a");
  q.done("a");
  EXPECT_EQ(q.len(), 0u);
  EXPECT_EQ(q.stats().adds, 4u);
}

TEST(WorkQueue, AddAfterKeepsTheEarliestTimeAndWaitsForTheClock) {
  api::FakeSteadyClock clock;
  WorkQueue q(clock, noLimit());
  q.addAfter("slow", 10s);
  q.addAfter("fast", 1s);
  q.addAfter("slow", 3s);   // sooner: replaces 10s
  q.addAfter("fast", 30s);  // later: ignored
  q.wake();
  EXPECT_EQ(q.len(), 0u);
  EXPECT_EQ(q.stats().delayed, 2u);
  clock.advance(1s);
  q.wake();
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "fast");
  clock.advance(2s);
  q.wake();
  EXPECT_EQ(q.get(), "slow");
  EXPECT_EQ(q.stats().delayed, 0u);
}

TEST(WorkQueue, RateLimitedBackoffDoublesPerKeyAndForgetResets) {
  api::FakeSteadyClock clock;
  ItemExponentialLimiter limiter;
  EXPECT_EQ(limiter.when("k"), 5ms);
  EXPECT_EQ(limiter.when("k"), 10ms);
  EXPECT_EQ(limiter.when("k"), 20ms);
  EXPECT_EQ(limiter.when("other"), 5ms);
  EXPECT_EQ(limiter.retries("k"), 3);
  for (int i = 0; i < 60; ++i) limiter.when("k");
  EXPECT_EQ(limiter.when("k"), 1000s);  // capped
  limiter.forget("k");
  EXPECT_EQ(limiter.when("k"), 5ms);

  auto defaults = defaultControllerRateLimiter(clock);
  for (int i = 0; i < 100; ++i) defaults->when("key-" + std::to_string(i));  // the burst
  EXPECT_EQ(defaults->when("fresh"), 100ms);  // then the 10 qps bucket dominates 5 ms

  WorkQueue q(clock, defaultControllerRateLimiter(clock));
  q.addRateLimited("x");
  q.addRateLimited("x");  // 10 ms, later than the pending 5 ms: the earlier stays
  EXPECT_EQ(q.numRequeues("x"), 2);
  clock.advance(5ms);
  q.wake();
  EXPECT_EQ(q.get(), "x");
  q.forget("x");
  EXPECT_EQ(q.numRequeues("x"), 0);
  q.done("x");
}

TEST(WorkQueue, ShutDownWithDrainFinishesWorkInProgress) {
  api::FakeSteadyClock clock;
  WorkQueue q(clock, noLimit());
  q.add("a");
  q.add("b");
  auto a = q.get();
  std::atomic<bool> drained{false};
  std::thread closer([&] {
    q.shutDownWithDrain();
    drained = true;
  });
  ASSERT_TRUE(eventually([&] { return q.shuttingDown(); }));
  q.add("late");  // refused while draining
  EXPECT_FALSE(drained);
  EXPECT_EQ(q.get(), "b");  // queued work is still handed out
  q.done("b");
  EXPECT_FALSE(drained);
  q.done(*a);
  closer.join();
  EXPECT_TRUE(drained);
  EXPECT_EQ(q.get(), std::nullopt);
}

TEST(WorkQueue, ShutDownReleasesBlockedWorkers) {
  api::RealSteadyClock clock;
  WorkQueue q(clock, noLimit());
  std::atomic<int> released{0};
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i)
    workers.emplace_back([&] {
      if (!q.get()) ++released;
    });
  q.shutDown();
  for (auto& w : workers) w.join();
  EXPECT_EQ(released, 4);
}

// Many producers, workers and keys: no key is ever processed by two workers at once, and every
// key is processed at least once after its last add.
TEST(WorkQueue, PropertyNoConcurrentKeyAndEveryAddProcessed) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    api::RealSteadyClock clock;
    WorkQueue q(clock, noLimit());
    constexpr int kKeys = 64, kProducers = 4, kWorkers = 6, kAddsPerProducer = 5000;
    std::atomic<uint64_t> sequence{0};
    std::mutex mutex;
    std::vector<uint64_t> lastAdd(kKeys, 0), lastStart(kKeys, 0);
    std::vector<std::atomic<int>> inFlight(kKeys);
    std::atomic<int> violations{0};

    std::vector<std::thread> workers;
    for (int w = 0; w < kWorkers; ++w) {
      workers.emplace_back([&] {
        while (auto key = q.get()) {
          const int k = std::stoi(*key);
          if (inFlight[k].fetch_add(1) != 0) ++violations;
          {
            std::lock_guard lock(mutex);
            lastStart[k] = ++sequence;
          }
          std::this_thread::yield();
          inFlight[k].fetch_sub(1);
          q.done(*key);
        }
      });
    }
    std::vector<std::thread> producers;
    for (int p = 0; p < kProducers; ++p) {
      producers.emplace_back([&, p] {
        std::minstd_rand rng(seed * 100 + p);
        for (int i = 0; i < kAddsPerProducer; ++i) {
          const int k = static_cast<int>(rng() % kKeys);
          {
            std::lock_guard lock(mutex);
            lastAdd[k] = ++sequence;
          }
          if (rng() % 10 == 0)
            q.addAfter(std::to_string(k), std::chrono::microseconds(rng() % 500));
          else
            q.add(std::to_string(k));
        }
      });
    }
    for (auto& p : producers) p.join();
    // Delayed adds become due within half a millisecond; wait until nothing is left anywhere.
    ASSERT_TRUE(eventually([&] {
      auto s = q.stats();
      return s.depth == 0 && s.delayed == 0 && s.processing == 0;
    }));
    q.shutDown();
    for (auto& w : workers) w.join();
    EXPECT_EQ(violations, 0) << "seed " << seed;
    for (int k = 0; k < kKeys; ++k) {
      if (lastAdd[k] == 0) continue;
      EXPECT_GT(lastStart[k], lastAdd[k]) << "key " << k << " seed " << seed;
    }
  }
}

}  // namespace
}  // namespace flotilla::kube
