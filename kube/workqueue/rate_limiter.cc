#include "kube/workqueue/rate_limiter.h"

#include <algorithm>

namespace flotilla::kube {

ItemExponentialLimiter::ItemExponentialLimiter(std::chrono::nanoseconds base,
                                               std::chrono::nanoseconds max)
    : base_(base), max_(max) {}

std::chrono::nanoseconds ItemExponentialLimiter::when(const std::string& key) {
  std::lock_guard lock(mutex_);
  const int exponent = failures_[key]++;
  // Past 2^40 every realistic base exceeds the cap; avoid overflowing the multiplication.
  if (exponent > 40) return max_;
  const double delay = static_cast<double>(base_.count()) * static_cast<double>(1ULL << exponent);
  if (delay >= static_cast<double>(max_.count())) return max_;
  return std::chrono::nanoseconds(static_cast<int64_t>(delay));
}

void ItemExponentialLimiter::forget(const std::string& key) {
  std::lock_guard lock(mutex_);
  failures_.erase(key);
}

int ItemExponentialLimiter::retries(const std::string& key) const {
  std::lock_guard lock(mutex_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

BucketLimiter::BucketLimiter(double qps, int burst, const api::SteadyClockInterface& clock)
    : bucket_(qps, burst, clock) {}

std::chrono::nanoseconds BucketLimiter::when(const std::string&) { return bucket_.reserve(); }

MaxOfLimiter::MaxOfLimiter(std::vector<std::unique_ptr<WorkRateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

std::chrono::nanoseconds MaxOfLimiter::when(const std::string& key) {
  std::chrono::nanoseconds longest{0};
  for (auto& l : limiters_) longest = std::max(longest, l->when(key));
  return longest;
}

void MaxOfLimiter::forget(const std::string& key) {
  for (auto& l : limiters_) l->forget(key);
}

int MaxOfLimiter::retries(const std::string& key) const {
  int most = 0;
  for (const auto& l : limiters_) most = std::max(most, l->retries(key));
  return most;
}

std::unique_ptr<WorkRateLimiter> defaultControllerRateLimiter(
    const api::SteadyClockInterface& clock) {
  std::vector<std::unique_ptr<WorkRateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialLimiter>());
  limiters.push_back(std::make_unique<BucketLimiter>(10, 100, clock));
  return std::make_unique<MaxOfLimiter>(std::move(limiters));
}

}  // namespace flotilla::kube
