// Test helper: a Delayer that records every wait and returns at once.
#pragma once

#include <mutex>
#include <vector>

#include "kube/client/rest_client.h"

namespace flotilla::kube::testing {

class RecordingDelayer final : public Delayer {
 public:
  boost::asio::awaitable<void> sleep(std::chrono::nanoseconds duration) override {
    std::lock_guard lock(mutex_);
    waits_.push_back(duration);
    co_return;
  }
  std::vector<std::chrono::nanoseconds> waits() const {
    std::lock_guard lock(mutex_);
    return waits_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::chrono::nanoseconds> waits_;
};

}  // namespace flotilla::kube::testing
