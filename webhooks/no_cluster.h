// A ClusterView that knows nothing yet (caches not synced): the webhook tests' host.
#pragma once

#include "webhooks/admission.h"

namespace flotilla::webhooks::testing {

struct NoCluster : ClusterView {
  std::optional<bool> schedulingProfileExists(const std::string&) const override {
    return std::nullopt;
  }
};

}  // namespace flotilla::webhooks::testing
