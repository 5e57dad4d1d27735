// `flotilla-sim up | down | status`: a host cluster and member clusters, each its own
// `flotilla-sim serve` process, from a topology file (config/samples/sim/topology.yaml).
#pragma once

#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::sim {

struct NodePool {
  int count = 1;
  std::string cpu = "4";
  std::string memory = "16Gi";
  int pods = 110;
};

struct MemberSpec {
  std::string name;
  std::string provider;
  std::string region;
  std::string zone;
  std::map<std::string, std::string> labels;
  NodePool nodes;
  // `register: false`: started but not registered on the host (for `flotillactl join` to do).
  bool registered = true;
  // `version: v1.26.3`: the Kubernetes version the member claims (`serve --version`): its
  // /version, its nodes' kubeletVersion, and the fields its API server serves (docs/sim.md).
  // Empty: flotilla-sim's own (v1.32).
  std::string version;
};

struct Topology {
  std::string host = "host";
  std::vector<MemberSpec> members;
};

// Errors name the field ("members[1].nodes.count: must be at least 1").
api::Result<Topology> parseTopology(std::string_view yaml);

// Starts every cluster that is not running (re-using DIR's data), waits until each answers,
// installs the flotilla.io CRDs on the host, and registers every member there: a Secret
// `<member>-credentials` in flotilla-system (token, caBundle) and a FederatedCluster pointing at
// it. Members get Node objects from their pool. `self` is this executable (to spawn `serve`);
// `serveArgs` are passed to every `serve` (--authorization-mode, --token-auth-file).
int up(const Topology& topology, const std::filesystem::path& dir, const std::string& self,
       std::ostream& out, std::ostream& err, const std::vector<std::string>& serveArgs = {});
// Stops every cluster of the fleet in DIR (SIGTERM, then SIGKILL after 10 s). Only processes
// whose command line is that cluster's `serve --dir DIR` are signalled.
int down(const std::filesystem::path& dir, std::ostream& out);
// The clusters of the fleet in DIR: those `up` recorded in DIR/fleet.clusters (host first), or,
// for a directory without that file, those with a DIR/NAME.pid and a DIR/pki/NAME. Never any
// other kubeconfig or pid file.
std::vector<std::string> fleetClusters(const std::filesystem::path& dir);
// One line per cluster of fleetClusters(): name, pid, state, URL. Exit code 0 when every one is
// ready, 3 when one is not (stopped or not ready), 1 when DIR holds no fleet.
int status(const std::filesystem::path& dir, std::ostream& out);

}  // namespace flotilla::sim
