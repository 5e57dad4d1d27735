#include "scheduler/queue/scheduling_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <thread>
#include <vector>

namespace flotilla::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class SchedulingQueueTest : public ::testing::Test {
 protected:
  api::FakeSteadyClock clock_;
  SchedulingQueue queue_{clock_};

  std::string popKey() {
    auto item = queue_.tryPop();
    return item ? item->key : "";
  }
  // Pops `key` (must be next) and fails it.
  QueuedItem popAndFail(const std::string& key) {
    auto item = queue_.tryPop();
    EXPECT_TRUE(item.has_value());
    EXPECT_EQ(item ? item->key : "", key);
    queue_.addUnschedulable(*item);
    return *item;
  }
};

TEST_F(SchedulingQueueTest, ActiveQueueOrdersByPriorityThenArrival) {
  queue_.add("ns/low", 0);
  clock_.advance(milliseconds(1));
  queue_.add("ns/high", 100);
  clock_.advance(milliseconds(1));
  queue_.add("ns/low-later", 0);
  queue_.add("ns/mid", 50);
  EXPECT_EQ(popKey(), "ns/high");
  EXPECT_EQ(popKey(), "ns/mid");
  EXPECT_EQ(popKey(), "ns/low");
  EXPECT_EQ(popKey(), "ns/low-later");
  EXPECT_EQ(popKey(), "");
  EXPECT_EQ(queue_.schedulingCycle(), 4);
}

TEST_F(SchedulingQueueTest, UpdatingAQueuedBindingReordersIt) {
  queue_.add("ns/a", 0);
  queue_.add("ns/b", 0);
  queue_.add("ns/b", 10);  // same binding, new priority: still one entry
  EXPECT_EQ(queue_.depths().active, 2u);
  EXPECT_EQ(popKey(), "ns/b");
  EXPECT_EQ(popKey(), "ns/a");
}

TEST_F(SchedulingQueueTest, FailureWithoutClusterEventWaitsInUnschedulable) {
  queue_.add("ns/a", 0);
  popAndFail("ns/a");
  EXPECT_EQ(queue_.depths().unschedulable, 1u);
  clock_.advance(seconds(15));
  queue_.tick();
  EXPECT_EQ(popKey(), "");  // nothing changed: it stays put
  // A cluster event moves it (its 1s backoff is over) straight to activeQ.
  queue_.moveAllToActiveOrBackoff();
  EXPECT_EQ(popKey(), "ns/a");
}

TEST_F(SchedulingQueueTest, ClusterEventDuringBackoffGoesThroughBackoffQueue) {
  queue_.add("ns/a", 0);
  popAndFail("ns/a");
  queue_.moveAllToActiveOrBackoff();  // at once: still inside its 1s backoff
  EXPECT_EQ(queue_.depths().backoff, 1u);
  clock_.advance(milliseconds(999));
  queue_.tick();
  EXPECT_EQ(popKey(), "");
  clock_.advance(milliseconds(1));
  queue_.tick();  // flushBackoffQCompleted
  EXPECT_EQ(popKey(), "ns/a");
}

// The schedulingCycle / moveRequestCycle rule: a failure that raced with a cluster event may be
// stale, so it backs off instead of waiting for the next event.
TEST_F(SchedulingQueueTest, FailureRacingAClusterEventBacksOff) {
  queue_.add("ns/a", 0);
  auto item = queue_.tryPop();
  ASSERT_TRUE(item);
  queue_.moveAllToActiveOrBackoff();  // a cluster became Ready while "ns/a" was being scheduled
  queue_.addUnschedulable(*item);
  EXPECT_EQ(queue_.depths().backoff, 1u);
  EXPECT_EQ(queue_.depths().unschedulable, 0u);
  // An attempt that started after the event does go to unschedulableQ.
  clock_.advance(seconds(1));
  queue_.tick();
  popAndFail("ns/a");
  EXPECT_EQ(queue_.depths().unschedulable, 1u);
}

TEST_F(SchedulingQueueTest, BackoffDoublesFromOneToTenSeconds) {
  queue_.add("ns/a", 0);
  const std::vector<int> expectedMs = {1000, 2000, 4000, 8000, 10000, 10000};
  for (int expected : expectedMs) {
    auto item = queue_.tryPop();
    ASSERT_TRUE(item);
    queue_.moveAllToActiveOrBackoff();  // force the backoff path
    queue_.addUnschedulable(*item);
    clock_.advance(milliseconds(expected - 1));
    queue_.tick();
    EXPECT_EQ(queue_.depths().active, 0u) << expected;
    clock_.advance(milliseconds(1));
    queue_.tick();
    EXPECT_EQ(queue_.depths().active, 1u) << expected;
  }
  // Success forgets the backoff.
  auto item = queue_.tryPop();
  queue_.done(*item);
  queue_.add("ns/a", 0);
  EXPECT_EQ(queue_.tryPop()->attempts, 0);
}

TEST_F(SchedulingQueueTest, ErrorsBackOffInsteadOfWaitingForAnEvent) {
  queue_.add("ns/a", 0);
  auto item = queue_.tryPop();
  ASSERT_TRUE(item);
  queue_.addBackoff(*item);  // a write conflict: no cluster event will come for it
  EXPECT_EQ(queue_.depths().backoff, 1u);
  EXPECT_EQ(queue_.depths().unschedulable, 0u);
  clock_.advance(milliseconds(999));
  queue_.tick();
  EXPECT_EQ(popKey(), "");
  clock_.advance(milliseconds(1));
  queue_.tick();
  EXPECT_EQ(popKey(), "ns/a");
}

TEST_F(SchedulingQueueTest, LeftoverFlushAfterSixtySecondsCheckedEveryThirty) {
  queue_.add("ns/a", 0);
  popAndFail("ns/a");
  clock_.advance(seconds(30));
  queue_.tick();  // check at 30s: only 30s unschedulable
  EXPECT_EQ(queue_.depths().unschedulable, 1u);
  clock_.advance(seconds(30));
  queue_.tick();  // check at 60s: not more than 60s yet
  EXPECT_EQ(queue_.depths().unschedulable, 1u);
  clock_.advance(seconds(1));
  queue_.tick();  // 61s, but the next check is due at 90s
  EXPECT_EQ(queue_.depths().unschedulable, 1u);
  clock_.advance(seconds(29));
  queue_.tick();
  EXPECT_EQ(popKey(), "ns/a");
}

TEST_F(SchedulingQueueTest, ChangingAnUnschedulableBindingReactivatesIt) {
  queue_.add("ns/a", 0);
  popAndFail("ns/a");
  clock_.advance(seconds(2));
  queue_.add("ns/a", 5);  // its spec changed
  auto item = queue_.tryPop();
  ASSERT_TRUE(item);
  EXPECT_EQ(item->priority, 5);
  EXPECT_EQ(item->attempts, 1);
}

TEST_F(SchedulingQueueTest, InFlightBindingIsNeverHandedOutTwice) {
  queue_.add("ns/a", 0);
  auto first = queue_.tryPop();
  ASSERT_TRUE(first);
  queue_.add("ns/a", 0);  // changed while being scheduled
  EXPECT_EQ(queue_.tryPop(), std::nullopt);
  EXPECT_EQ(queue_.depths().inFlight, 1u);
  queue_.done(*first);  // handed back: the change is scheduled next
  auto second = queue_.tryPop();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->key, "ns/a");
  queue_.done(*second);
  EXPECT_EQ(queue_.tryPop(), std::nullopt);
  EXPECT_EQ(queue_.depths().inFlight, 0u);
}

TEST_F(SchedulingQueueTest, RemovedBindingsLeave) {
  queue_.add("ns/a", 0);
  queue_.add("ns/b", 0);
  queue_.remove("ns/a");
  auto b = queue_.tryPop();
  queue_.remove("ns/b");  // deleted while in flight
  queue_.addUnschedulable(*b);
  QueueDepths d = queue_.depths();
  EXPECT_EQ(d.active + d.backoff + d.unschedulable + d.inFlight, 0u);
}

TEST_F(SchedulingQueueTest, CloseWakesBlockedPop) {
  std::atomic<bool> returned{false};
  std::thread worker([&] {
    EXPECT_EQ(queue_.pop(), std::nullopt);
    returned = true;
  });
  queue_.close();
  worker.join();
  EXPECT_TRUE(returned);
}

// Many producers and workers: no binding is lost, and none is ever held by two workers at once.
TEST(SchedulingQueueConcurrencyTest, ManyProducersAndWorkers) {
  api::FakeSteadyClock clock;
  SchedulingQueue queue(clock, {std::chrono::milliseconds(1), std::chrono::milliseconds(4),
                                std::chrono::milliseconds(50), std::chrono::milliseconds(10)});
  constexpr int kKeys = 200;
  constexpr int kProducers = 4;
  constexpr int kWorkers = 4;
  std::mutex mu;
  std::set<std::string> holding;         // keys a worker holds right now
  std::map<std::string, int> lastAdded;  // version of the last add per key
  std::map<std::string, int> lastDone;   // version seen by the last successful attempt
  std::atomic<bool> doubleHandout{false};
  std::atomic<int> versionCounter{0};

  std::vector<std::thread> threads;
  for (int p = 0; p < kProducers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937 rng(p);
      for (int i = 0; i < 1000; ++i) {
        const std::string key = "ns/b" + std::to_string(rng() % kKeys);
        {
          std::lock_guard lock(mu);
          lastAdded[key] = ++versionCounter;
        }
        queue.add(key, static_cast<int32_t>(rng() % 3));
      }
    });
  }
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(100 + w);
      while (auto item = queue.pop()) {
        int version = 0;
        {
          std::lock_guard lock(mu);
          if (!holding.insert(item->key).second) doubleHandout = true;
          version = lastAdded[item->key];  // what this attempt sees
        }
        // Hold the binding a little, as a real scheduling attempt would, so producers' changes do
        // land while it is in flight (the case the queue must not lose).
        for (int spin = 0; spin < 50; ++spin) std::this_thread::yield();
        const bool fail = item->attempts < 2 && rng() % 3 == 0;
        {
          std::lock_guard lock(mu);
          holding.erase(item->key);
          if (!fail) lastDone[item->key] = std::max(lastDone[item->key], version);
        }
        if (fail) {
          queue.addUnschedulable(*item);
        } else {
          queue.done(*item);
        }
      }
    });
  }
  for (int p = 0; p < kProducers; ++p) threads[static_cast<size_t>(p)].join();

  // Drive time and cluster events until every binding's latest change was scheduled; poll with a
  // deadline instead of sleeping for a fixed time.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  bool converged = false;
  while (!converged && std::chrono::steady_clock::now() < deadline) {
    clock.advance(std::chrono::milliseconds(5));
    queue.tick();
    queue.moveAllToActiveOrBackoff();
    std::this_thread::yield();
    std::lock_guard lock(mu);
    converged = true;
    for (const auto& [key, version] : lastAdded) {
      if (lastDone[key] < version) converged = false;
    }
    QueueDepths d = queue.depths();
    converged = converged && d.active + d.backoff + d.unschedulable + d.inFlight == 0;
  }
  queue.close();
  for (int w = 0; w < kWorkers; ++w) threads[static_cast<size_t>(kProducers + w)].join();
  EXPECT_TRUE(converged) << "some binding's last change was never scheduled";
  EXPECT_FALSE(doubleHandout) << "a binding was held by two workers at once";
  EXPECT_EQ(lastAdded.size(), lastDone.size());
}

}  // namespace
}  // namespace flotilla::scheduler
