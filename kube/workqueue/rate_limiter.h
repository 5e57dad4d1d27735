// How long a failing key waits before its next try (client-go's workqueue rate limiters): per-key
// exponential backoff, an overall token bucket, and the maximum of several.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "api/clock.h"
#include "kube/client/rate_limiter.h"

namespace flotilla::kube {

class WorkRateLimiter {
 public:
  virtual ~WorkRateLimiter() = default;
  // The delay before `key` may be processed again; counts as one more failure of the key.
  virtual std::chrono::nanoseconds when(const std::string& key) = 0;
  // The key succeeded: its backoff starts over.
  virtual void forget(const std::string& key) = 0;
  virtual int retries(const std::string& key) const = 0;
};

// base·2^failures, capped (defaults 5 ms and 1000 s, as client-go).
class ItemExponentialLimiter final : public WorkRateLimiter {
 public:
  explicit ItemExponentialLimiter(std::chrono::nanoseconds base = std::chrono::milliseconds(5),
                                  std::chrono::nanoseconds max = std::chrono::seconds(1000));
  std::chrono::nanoseconds when(const std::string& key) override;
  void forget(const std::string& key) override;
  int retries(const std::string& key) const override;

 private:
  const std::chrono::nanoseconds base_, max_;
  mutable std::mutex mutex_;
  std::map<std::string, int> failures_;
};

// An overall token bucket (defaults 10 qps, burst 100): a storm of failures cannot requeue faster.
class BucketLimiter final : public WorkRateLimiter {
 public:
  BucketLimiter(double qps, int burst, const api::SteadyClockInterface& clock);
  std::chrono::nanoseconds when(const std::string& key) override;
  void forget(const std::string&) override {}
  int retries(const std::string&) const override { return 0; }

 private:
  TokenBucket bucket_;
};

class MaxOfLimiter final : public WorkRateLimiter {
 public:
  explicit MaxOfLimiter(std::vector<std::unique_ptr<WorkRateLimiter>> limiters);
  std::chrono::nanoseconds when(const std::string& key) override;
  void forget(const std::string& key) override;
  int retries(const std::string& key) const override;

 private:
  std::vector<std::unique_ptr<WorkRateLimiter>> limiters_;
};

// controller-runtime's default: max(per-key 5 ms → 1000 s, bucket 10 qps / burst 100).
std::unique_ptr<WorkRateLimiter> defaultControllerRateLimiter(
    const api::SteadyClockInterface& clock);

}  // namespace flotilla::kube
