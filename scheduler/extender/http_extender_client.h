// ExtenderClient over HTTP(S): one keep-alive HTTP client per extender on a private I/O thread.
// Filter calls run in order (each on the previous survivors); prioritize calls run concurrently.
// Every call has the extender's httpTimeout.
#pragma once

#include <memory>
#include <vector>

#include "api/result.h"
#include "scheduler/extender/extender.h"

namespace flotilla::scheduler {

class HttpExtenderClient final : public ExtenderClient {
 public:
  // Errors name the extender (bad URL, unreadable CA bundle).
  static api::Result<std::unique_ptr<HttpExtenderClient>> create(
      std::vector<ExtenderConfig> extenders);
  ~HttpExtenderClient() override;

  FilterOutcome filter(const SchedulingUnit& unit,
                       const std::vector<const api::FederatedCluster*>& feasible) override;
  PrioritizeOutcome prioritize(const SchedulingUnit& unit,
                               const std::vector<const api::FederatedCluster*>& feasible) override;

  struct Impl;

 private:
  explicit HttpExtenderClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::scheduler
