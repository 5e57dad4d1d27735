#include "kube/leader/leader_elector.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <random>

#include "api/time.h"

namespace flotilla::kube {
using namespace std::chrono;

std::string defaultIdentity() {
  char host[256] = {};
  if (::gethostname(host, sizeof(host) - 1) != 0) std::snprintf(host, sizeof(host), "unknown");
  std::random_device rd;
  uint32_t parts[4] = {rd(), rd(), rd(), rd()};
  char uuid[40];
  std::snprintf(uuid, sizeof(uuid), "%08x-%04x-4%03x-%04x-%04x%08x", parts[0], parts[1] & 0xffff,
                (parts[1] >> 16) & 0xfff, 0x8000 | (parts[2] & 0x3fff), parts[2] >> 16, parts[3]);
  return std::string(host) + "_" + uuid;
}

milliseconds leaseRequestTimeout(const LeaderElectionConfig& c) {
  const auto slack = c.leaseDuration - c.renewDeadline - c.retryPeriod;
  return std::max(milliseconds(50), slack / 3);
}

std::string formatMicroTime(system_clock::time_point t) {
  std::string seconds = api::formatRfc3339(time_point_cast<system_clock::duration>(t));
  const auto micros = duration_cast<microseconds>(t.time_since_epoch()).count() % 1'000'000;
  char fraction[16];
  std::snprintf(fraction, sizeof(fraction), ".%06lld", static_cast<long long>(micros));
  seconds.insert(seconds.size() - 1, fraction);  // before the "Z"
  return seconds;
}

LeaderElector::LeaderElector(LeaseLock& lock, LeaderElectionConfig config,
                             LeaderCallbacks callbacks, const api::SteadyClockInterface& clock,
                             std::function<system_clock::time_point()> wallClock)
    : lock_(lock),
      config_(std::move(config)),
      callbacks_(std::move(callbacks)),
      clock_(clock),
      wallClock_(std::move(wallClock)) {
  if (config_.identity.empty()) config_.identity = defaultIdentity();
  // client-go's sanity rules: renewals must fit in the lease, retries in the renew deadline.
  if (config_.leaseDuration <= config_.renewDeadline)
    throw std::invalid_argument("leader election: leaseDuration must exceed renewDeadline");
  if (config_.renewDeadline <= config_.retryPeriod)
    throw std::invalid_argument("leader election: renewDeadline must exceed retryPeriod");
}

std::string LeaderElector::observedLeader() const {
  std::lock_guard lock(mutex_);
  return observed_ ? observed_->record.holderIdentity : "";
}

bool LeaderElector::tryAcquireOrRenew() {
  const auto wallNow = formatMicroTime(wallClock_());
  LeaderElectionRecord desired;
  desired.holderIdentity = config_.identity;
  desired.leaseDurationSeconds =
      static_cast<int>(duration_cast<seconds>(config_.leaseDuration).count());
  if (desired.leaseDurationSeconds < 1) desired.leaseDurationSeconds = 1;
  desired.acquireTime = wallNow;
  desired.renewTime = wallNow;

  auto current = lock_.get();
  if (!current) {
    spdlog::warn("leader election: reading lease {}: {}", lock_.describe(), current.error().str());
    return false;
  }
  std::unique_lock guard(mutex_);
  if (!*current) {
    guard.unlock();
    auto created = lock_.create(desired);
    guard.lock();
    if (!created) return false;  // someone else created it first (AlreadyExists)
    observed_ = *created;
    observedAt_ = clock_.now();
    return true;
  }
  const ObservedLease& lease = **current;
  // A new record (anyone's renewal changes it) restarts our measurement of its validity.
  if (!observed_ || observed_->record != lease.record) {
    observed_ = lease;
    observedAt_ = clock_.now();
  } else {
    observed_->resourceVersion = lease.resourceVersion;
  }
  const bool heldByOther =
      !lease.record.holderIdentity.empty() && lease.record.holderIdentity != config_.identity;
  const auto duration = seconds(std::max(lease.record.leaseDurationSeconds, 1));
  if (heldByOther && observedAt_ + duration > clock_.now()) return false;  // still valid

  if (lease.record.holderIdentity == config_.identity) {
    desired.acquireTime = lease.record.acquireTime;
    desired.leaseTransitions = lease.record.leaseTransitions;
  } else {
    desired.leaseTransitions = lease.record.leaseTransitions + 1;
  }
  const std::string resourceVersion = lease.resourceVersion;
  guard.unlock();
  auto updated = lock_.update(desired, resourceVersion);
  guard.lock();
  if (!updated) return false;  // a conflict: someone else renewed or took it
  observed_ = *updated;
  observedAt_ = clock_.now();
  return true;
}

bool LeaderElector::waitFor(milliseconds d) {
  std::unique_lock lock(mutex_);
  // Real time: this only paces retries; validity decisions use clock_.
  stopWake_.wait_for(lock, d, [&] { return stopping_; });
  return !stopping_;
}

void LeaderElector::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
  stopWake_.notify_all();
}

void LeaderElector::release() {
  std::optional<ObservedLease> observed;
  {
    std::lock_guard lock(mutex_);
    observed = observed_;
  }
  if (!observed || observed->record.holderIdentity != config_.identity) return;
  LeaderElectionRecord released = observed->record;
  released.holderIdentity = "";
  released.leaseDurationSeconds = 1;
  released.renewTime = formatMicroTime(wallClock_());
  if (auto ok = lock_.update(released, observed->resourceVersion); !ok)
    spdlog::warn("leader election: releasing {}: {}", lock_.describe(), ok.error().str());
}

bool LeaderElector::run() {
  // Acquire.
  auto lastRenew = clock_.now();
  while (true) {
    if (!waitFor(milliseconds(0))) return true;
    // Validity counts from before the write: others observe it only after it happened.
    lastRenew = clock_.now();
    if (tryAcquireOrRenew()) break;
    const std::string leader = observedLeader();
    if (leader != reportedLeader_ && !leader.empty()) {
      reportedLeader_ = leader;
      if (callbacks_.onNewLeader) callbacks_.onNewLeader(leader);
    }
    if (!waitFor(config_.retryPeriod)) return true;
  }
  leader_ = true;
  spdlog::info("leader election: {} acquired {}", config_.identity, lock_.describe());
  if (callbacks_.onNewLeader) callbacks_.onNewLeader(config_.identity);
  if (callbacks_.onStartedLeading) callbacks_.onStartedLeading();
  // Renew.
  bool stopped = false;
  while (true) {
    if (!waitFor(config_.retryPeriod)) {
      stopped = true;
      break;
    }
    const auto attemptStart = clock_.now();
    if (tryAcquireOrRenew()) {
      lastRenew = attemptStart;
      continue;
    }
    if (clock_.now() - lastRenew >= config_.renewDeadline) break;
  }
  leader_ = false;
  if (stopped && config_.releaseOnStop) release();
  if (!stopped)
    spdlog::error("leader election: {} lost {} (no renewal within {} ms)", config_.identity,
                  lock_.describe(), config_.renewDeadline.count());
  if (callbacks_.onStoppedLeading) callbacks_.onStoppedLeading();
  return stopped;
}

}  // namespace flotilla::kube
