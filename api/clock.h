// Time as a seam: code that waits or measures durations takes a Clock, so tests drive it with a
// FakeClock instead of sleeping.
#pragma once

#include <chrono>
#include <mutex>

namespace flotilla::api {

class SteadyClockInterface {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~SteadyClockInterface() = default;
  virtual time_point now() const = 0;
};

class RealSteadyClock final : public SteadyClockInterface {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
};

// A clock that only moves when told to. Thread-safe.
class FakeSteadyClock final : public SteadyClockInterface {
 public:
  time_point now() const override {
    std::lock_guard lock(mu_);
    return now_;
  }
  void advance(std::chrono::nanoseconds d) {
    std::lock_guard lock(mu_);
    now_ += d;
  }

 private:
  mutable std::mutex mu_;
  time_point now_{std::chrono::hours(1)};
};

}  // namespace flotilla::api
