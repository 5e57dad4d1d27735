// Reading the fields placement rules refer to from a FederatedCluster.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "api/flotilla_types.h"
#include "api/label_selector.h"

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

// Whether a clusterAffinity (a placement's, or an override rule's targetCluster) selects `c`: its
// names (when listed), not its exclusions, its label selector (`labels`, compiled from
// affinity.labelSelector; null: none), its field selector.
inline bool affinitySelects(const api::ClusterAffinity& affinity, const api::FederatedCluster& c,
                            const api::Selector* labels) {
  const std::string& name = c.metadata.name;
  const auto contains = [&](const std::vector<std::string>& list) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  if (!affinity.clusterNames.empty() && !contains(affinity.clusterNames)) return false;
  if (contains(affinity.exclude)) return false;
  if (labels && !labels->matches(c.metadata.labels)) return false;
  if (affinity.fieldSelector) {
    for (const auto& expr : affinity.fieldSelector->matchExpressions) {
      const std::string& value = clusterField(c, expr.key);
      const bool in = std::find(expr.values.begin(), expr.values.end(), value) != expr.values.end();
      if ((expr.operator_ == "In") != in) return false;
    }
  }
  return true;
}

inline bool isClusterReady(const api::FederatedCluster& c) {
  for (const auto& cond : c.status.conditions) {
    if (cond.type == "Ready") return cond.status == "True";
  }
  return false;
}

}  // namespace flotilla::scheduler
