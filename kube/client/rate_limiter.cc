#include "kube/client/rate_limiter.h"

#include <algorithm>

namespace flotilla::kube {

TokenBucket::TokenBucket(double qps, int burst, const api::SteadyClockInterface& clock)
    : qps_(qps),
      burst_(std::max(1, burst)),
      clock_(clock),
      tokens_(std::max(1, burst)),
      last_(clock.now()) {}

void TokenBucket::refillLocked(api::SteadyClockInterface::time_point now) {
  const double elapsed = std::chrono::duration<double>(now - last_).count();
  if (elapsed > 0) {
    tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
    last_ = now;
  }
}

std::chrono::nanoseconds TokenBucket::reserve() {
  if (qps_ <= 0) return std::chrono::nanoseconds(0);
  std::lock_guard lock(mutex_);
  refillLocked(clock_.now());
  tokens_ -= 1;
  if (tokens_ >= 0) return std::chrono::nanoseconds(0);
  return std::chrono::nanoseconds(static_cast<int64_t>(-tokens_ / qps_ * 1e9));
}

bool TokenBucket::tryTake() {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mutex_);
  refillLocked(clock_.now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

}  // namespace flotilla::kube
