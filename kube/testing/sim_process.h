// A flotilla-sim API server as a child process (integration tests and benchmarks): started with
// a fresh data directory on a free port, stopped with SIGTERM, directory removed.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>

#include "kube/config/rest_config.h"

namespace flotilla::kube::testing {

struct SimProcessOptions {
  std::string name = "host";  // the cluster's name (kubeconfig context)
  bool member = false;        // serve --member: Deployments get ReplicaSets and running Pods
  std::string faultsJson;     // non-empty: serve --faults with these rules (sim/server/faults.h)
};

class SimProcess {
 public:
  // Starts `binary serve` and waits (up to 30 s) for its kubeconfig. Throws std::runtime_error
  // with the log's path when it does not come up.
  explicit SimProcess(const std::string& binary, SimProcessOptions options = {});
  ~SimProcess();
  SimProcess(const SimProcess&) = delete;
  SimProcess& operator=(const SimProcess&) = delete;

  const RestConfig& config() const { return config_; }
  pid_t pid() const { return pid_; }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  RestConfig config_;
};

}  // namespace flotilla::kube::testing
