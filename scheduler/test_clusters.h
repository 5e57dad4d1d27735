// Building FederatedClusters for scheduler tests.
#pragma once

#include <string>

#include "api/flotilla_types.h"
#include "api/validation.h"
#include "scheduler/framework/types.h"

namespace flotilla::scheduler::testing {

inline api::Quantity q(const char* s) { return api::Quantity::parse(s).value(); }

// A Ready cluster serving apps/v1 Deployments with the given free CPU/memory.
inline api::FederatedCluster cluster(const std::string& name, const std::string& region = "",
                                     const std::string& zone = "", const char* cpu = "8",
                                     const char* memory = "32Gi") {
  api::FederatedCluster c;
  c.metadata.name = name;
  c.spec.region = region;
  c.spec.zone = zone;
  c.spec.provider = "aws";
  c.status.conditions.push_back({"Ready", "True", 0, "2026-11-01T00:00:00Z", "ClusterReady", ""});
  c.status.apiEnablements.push_back({"apps/v1", {{"deployments", "Deployment"}}});
  c.status.resources.allocatable = {{"cpu", q(cpu)}, {"memory", q(memory)}, {"pods", q("110")}};
  return c;
}

// A Deployment-backed unit "default/web" with a defaulted placement of the given replica type.
inline SchedulingUnit workloadUnit(int32_t replicas, const std::string& type = "Divided") {
  SchedulingUnit u;
  u.key = "default/web";
  u.apiVersion = "apps/v1";
  u.kind = "Deployment";
  u.replicas = replicas;
  u.placement.replicaScheduling.emplace();
  u.placement.replicaScheduling->type = type;
  api::setDefaults(u.placement);
  return u;
}

}  // namespace flotilla::scheduler::testing
