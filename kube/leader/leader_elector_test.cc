#include "kube/leader/leader_elector.h"

#include <gtest/gtest.h>

#include <thread>

#include "kube/net/test_server.h"

namespace flotilla::kube {
namespace {

using namespace std::chrono_literals;

// An in-memory Lease with the API server's optimistic concurrency.
class MemoryLease final : public LeaseLock {
 public:
  api::Result<std::optional<ObservedLease>> get() override {
    std::lock_guard lock(mutex_);
    if (!exists_) return std::optional<ObservedLease>();
    return std::optional<ObservedLease>(ObservedLease{record_, std::to_string(version_)});
  }
  api::Result<ObservedLease> create(const LeaderElectionRecord& record) override {
    std::lock_guard lock(mutex_);
    if (exists_) return api::Error{api::reason::kAlreadyExists, 409, "exists", {}};
    exists_ = true;
    record_ = record;
    return ObservedLease{record_, std::to_string(++version_)};
  }
  api::Result<ObservedLease> update(const LeaderElectionRecord& record,
                                    const std::string& resourceVersion) override {
    std::lock_guard lock(mutex_);
    if (resourceVersion != std::to_string(version_))
      return api::Error{api::reason::kConflict, 409, "stale", {}};
    record_ = record;
    return ObservedLease{record_, std::to_string(++version_)};
  }
  std::string describe() const override { return "test/lease"; }
  LeaderElectionRecord record() const {
    std::lock_guard lock(mutex_);
    return record_;
  }
  // Someone writes the record behind the electors' backs (clock-skewed renewTime, etc.).
  void overwrite(LeaderElectionRecord r) {
    std::lock_guard lock(mutex_);
    record_ = std::move(r);
    ++version_;
  }

 private:
  mutable std::mutex mutex_;
  bool exists_ = false;
  LeaderElectionRecord record_;
  int64_t version_ = 0;
};

LeaderElectionConfig config(const std::string& identity) {
  LeaderElectionConfig c;
  c.identity = identity;
  return c;  // 15 s lease, 10 s renew deadline, 2 s retry
}

TEST(LeaderElector, FirstCandidateLeadsOthersWaitForTheLeaseToLapse) {
  api::FakeSteadyClock clock;
  MemoryLease lease;
  LeaderElector a(lease, config("a"), {}, clock);
  LeaderElector b(lease, config("b"), {}, clock);
  EXPECT_TRUE(a.tryAcquireOrRenew());
  EXPECT_EQ(lease.record().holderIdentity, "a");
  EXPECT_EQ(lease.record().leaseDurationSeconds, 15);
  EXPECT_FALSE(b.tryAcquireOrRenew());  // b first sees the record now
  clock.advance(10s);
  EXPECT_TRUE(a.tryAcquireOrRenew());   // renewal changes the record
  EXPECT_FALSE(b.tryAcquireOrRenew());  // b polls (every retryPeriod) and sees the renewal now
  clock.advance(14s);
  EXPECT_FALSE(b.tryAcquireOrRenew());  // 14 s since b saw the renewal: still valid
  clock.advance(1s);
  EXPECT_TRUE(b.tryAcquireOrRenew());  // 15 s without a renewal: b takes over
  EXPECT_EQ(lease.record().holderIdentity, "b");
  EXPECT_EQ(lease.record().leaseTransitions, 1);
  EXPECT_FALSE(a.tryAcquireOrRenew());  // a now sees b's fresh record
}

TEST(LeaderElector, RemoteTimestampsDoNotMatterOnlyLocalObservation) {
  api::FakeSteadyClock clock;
  MemoryLease lease;
  LeaderElector b(lease, config("b"), {}, clock);
  LeaderElectionRecord skewed;
  skewed.holderIdentity = "a";
  skewed.leaseDurationSeconds = 15;
  skewed.renewTime = "1999-01-01T00:00:00.000000Z";  // a's clock is far behind
  lease.create(skewed).value();
  EXPECT_FALSE(b.tryAcquireOrRenew());  // looks ancient remotely, but we just saw it
  clock.advance(15s);
  EXPECT_TRUE(b.tryAcquireOrRenew());
}

TEST(LeaderElector, ConcurrentCandidatesNeverBothWin) {
  api::FakeSteadyClock clock;
  MemoryLease lease;
  LeaderElector a(lease, config("a"), {}, clock);
  LeaderElector b(lease, config("b"), {}, clock);
  LeaderElector c(lease, config("c"), {}, clock);
  ASSERT_TRUE(a.tryAcquireOrRenew());
  EXPECT_FALSE(b.tryAcquireOrRenew());
  EXPECT_FALSE(c.tryAcquireOrRenew());
  clock.advance(16s);  // a died
  std::atomic<int> winners{0};
  std::thread tb([&] { winners += b.tryAcquireOrRenew(); });
  std::thread tc([&] { winners += c.tryAcquireOrRenew(); });
  tb.join();
  tc.join();
  EXPECT_EQ(winners, 1);  // the loser's update was a conflict
}

TEST(LeaderElector, RunLeadsUntilStoppedThenReleases) {
  api::RealSteadyClock clock;
  MemoryLease lease;
  LeaderElectionConfig c = config("a");
  c.leaseDuration = 3s;
  c.renewDeadline = 2s;
  c.retryPeriod = 20ms;
  std::atomic<bool> started{false}, stoppedLeading{false};
  LeaderElector a(lease, c, {[&] { started = true; }, [&] { stoppedLeading = true; }, nullptr},
                  clock);
  std::atomic<bool> byStop{false};
  std::thread runner([&] { byStop = a.run(); });
  ASSERT_TRUE(net::testing::eventually([&] { return started.load(); }));
  EXPECT_TRUE(a.isLeader());
  a.stop();
  runner.join();
  EXPECT_TRUE(byStop);
  EXPECT_TRUE(stoppedLeading);
  EXPECT_EQ(lease.record().holderIdentity, "");  // released: a successor need not wait
  api::FakeSteadyClock fake;
  LeaderElector b(lease, config("b"), {}, fake);
  EXPECT_TRUE(b.tryAcquireOrRenew());
}

TEST(LeaderElector, RunReturnsFalseWhenTheLeaseIsTakenAway) {
  api::RealSteadyClock clock;
  MemoryLease lease;
  LeaderElectionConfig c = config("a");
  c.leaseDuration = 600ms;
  c.renewDeadline = 400ms;
  c.retryPeriod = 20ms;
  std::atomic<bool> stoppedLeading{false};
  LeaderElector a(lease, c, {nullptr, [&] { stoppedLeading = true; }, nullptr}, clock);
  std::atomic<int> result{-1};
  std::thread runner([&] { result = a.run() ? 1 : 0; });
  ASSERT_TRUE(net::testing::eventually([&] { return a.isLeader(); }));
  LeaderElectionRecord usurper;
  usurper.holderIdentity = "b";
  usurper.leaseDurationSeconds = 3600;
  lease.overwrite(usurper);  // renewals now fail: b holds a long, valid lease
  runner.join();             // within the renew deadline
  EXPECT_EQ(result, 0);      // lost, not stopped: the manager exits non-zero
  EXPECT_TRUE(stoppedLeading);
  EXPECT_FALSE(a.isLeader());
  EXPECT_EQ(lease.record().holderIdentity, "b");  // a loser does not release someone else's lease
}

TEST(LeaderElector, RejectsInconsistentTimings) {
  api::FakeSteadyClock clock;
  MemoryLease lease;
  LeaderElectionConfig c = config("a");
  c.renewDeadline = 20s;
  EXPECT_THROW(LeaderElector(lease, c, {}, clock), std::invalid_argument);
  EXPECT_EQ(leaseRequestTimeout(config("x")), 1s);
  EXPECT_NE(defaultIdentity(), defaultIdentity());
  EXPECT_EQ(formatMicroTime(std::chrono::system_clock::time_point(1'700'000'000'123'456us)),
            "2023-11-14T22:13:20.123456Z");
}

}  // namespace
}  // namespace flotilla::kube
