// Leader election on a Lease (client-go's algorithm). Only the leader runs controllers; the others
// wait. Validity is measured from when *we* observed the current record on our own steady clock,
// never from the remote renewTime, so clock skew between machines cannot create two leaders.
//
//   acquire: every retryPeriod, try to take the Lease (absent, released, or not renewed for
//            leaseDuration since we first saw its current record);
//   renew:   every retryPeriod; if no renewal succeeded within renewDeadline, leadership is lost;
//   release: on a clean stop the holder clears holderIdentity so a successor need not wait.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>

#include "api/clock.h"
#include "kube/leader/lease_lock.h"

namespace flotilla::kube {

struct LeaderElectionConfig {
  std::string identity;  // unique per process: "<host>_<uuid>"
  std::chrono::milliseconds leaseDuration{15'000};
  std::chrono::milliseconds renewDeadline{10'000};
  std::chrono::milliseconds retryPeriod{2'000};
  bool releaseOnStop = true;
};

// The per-request timeout for the Lease client. A leader notices a lost lease at the latest
// renewDeadline + retryPeriod + one attempt (get + update) after its last successful renewal;
// keeping that attempt under (leaseDuration - renewDeadline - retryPeriod) means it has stopped
// before any other candidate can consider the lease expired.
std::chrono::milliseconds leaseRequestTimeout(const LeaderElectionConfig& config);

// "<hostname>_<random uuid>", as client-go's default identity.
std::string defaultIdentity();

struct LeaderCallbacks {
  std::function<void()> onStartedLeading;
  std::function<void()> onStoppedLeading;  // after having led, whatever the reason
  std::function<void(const std::string& identity)> onNewLeader;
};

// "2026-11-22T08:30:00.123456Z" (metav1.MicroTime).
std::string formatMicroTime(std::chrono::system_clock::time_point t);

class LeaderElector {
 public:
  LeaderElector(LeaseLock& lock, LeaderElectionConfig config, LeaderCallbacks callbacks,
                const api::SteadyClockInterface& clock,
                std::function<std::chrono::system_clock::time_point()> wallClock =
                    std::chrono::system_clock::now);

  // Blocks: acquires, leads (renewing) until leadership is lost or stop() is called. Returns true
  // when it stopped because of stop(), false when leadership was lost.
  bool run();
  void stop();

  // One attempt to acquire or renew; true when we hold the lease afterwards. (Public for tests.)
  bool tryAcquireOrRenew();
  bool isLeader() const { return leader_; }
  std::string observedLeader() const;

 private:
  // Waits up to `d` (steady time) unless stop() is called; false when stopped.
  bool waitFor(std::chrono::milliseconds d);
  void release();

  LeaseLock& lock_;
  LeaderElectionConfig config_;
  LeaderCallbacks callbacks_;
  const api::SteadyClockInterface& clock_;
  std::function<std::chrono::system_clock::time_point()> wallClock_;

  mutable std::mutex mutex_;
  std::condition_variable stopWake_;
  bool stopping_ = false;
  std::atomic<bool> leader_{false};
  std::optional<ObservedLease> observed_;
  api::SteadyClockInterface::time_point observedAt_{};
  std::string reportedLeader_;
};

}  // namespace flotilla::kube
