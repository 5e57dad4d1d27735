// Reading the fields placement rules refer to from a FederatedCluster.
#pragma once

#include <string>
#include <string_view>

#include "api/flotilla_types.h"

namespace flotilla::scheduler {

// "cluster", "provider", "region", "zone", or a label key: the cluster's value, "" when unset.
inline const std::string& clusterField(const api::FederatedCluster& c, std::string_view key) {
  static const std::string kEmpty;
  if (key == "cluster") return c.metadata.name;
  if (key == "provider") return c.spec.provider;
  if (key == "region") return c.spec.region;
  if (key == "zone") return c.spec.zone;
  auto it = c.metadata.labels.find(std::string(key));
  return it == c.metadata.labels.end() ? kEmpty : it->second;
}

inline bool hasClusterField(const api::FederatedCluster& c, std::string_view key) {
  if (key == "cluster" || key == "provider" || key == "region" || key == "zone") {
    return !clusterField(c, key).empty();
  }
  return c.metadata.labels.count(std::string(key)) > 0;
}

inline bool isClusterReady(const api::FederatedCluster& c) {
  for (const auto& cond : c.status.conditions) {
    if (cond.type == "Ready") return cond.status == "True";
  }
  return false;
}

}  // namespace flotilla::scheduler
