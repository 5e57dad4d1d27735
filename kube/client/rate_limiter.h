// A token bucket (client-go's default client-side limiter): `burst` requests at once, then `qps`
// per second. Pure arithmetic on an injected clock; the caller does the waiting.
#pragma once

#include <chrono>
#include <mutex>

#include "api/clock.h"

namespace flotilla::kube {

class TokenBucket {
 public:
  // qps <= 0 disables limiting.
  TokenBucket(double qps, int burst, const api::SteadyClockInterface& clock);

  // Takes one token and returns how long the caller must wait before using it (zero when one was
  // available). Reservations queue up: each caller waits behind the ones before it.
  std::chrono::nanoseconds reserve();
  // Takes a token only when one is available now.
  bool tryTake();

 private:
  void refillLocked(api::SteadyClockInterface::time_point now);

  const double qps_;
  const double burst_;
  const api::SteadyClockInterface& clock_;
  std::mutex mutex_;
  double tokens_;  // may go negative: outstanding reservations
  api::SteadyClockInterface::time_point last_;
};

}  // namespace flotilla::kube
