// flotilla-operator's flags and their --config YAML form (the same keys without the dashes:
// `leader-elect: false`, `cluster-probe-period: 5s`). Flags given on the command line win over
// the file. Parsing is a pure function so every rule is unit-tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::op {

struct BindAddress {
  std::string host;  // "0.0.0.0" for ":8080"
  uint16_t port = 0;
  bool disabled = false;  // "0": not served
};

struct Options {
  std::string kubeconfig;  // empty: $KUBECONFIG, ~/.kube/config, then in-cluster
  std::string context;
  std::string configFile;
  bool leaderElect = true;
  std::string leaderElectionNamespace = "flotilla-system";
  // "" = system:serviceaccount:<leaderElectionNamespace>:flotilla-operator (operatorUser()).
  std::string operatorUsername;
  std::string operatorUser() const {
    return operatorUsername.empty()
               ? "system:serviceaccount:" + leaderElectionNamespace + ":flotilla-operator"
               : operatorUsername;
  }
  std::string leaderElectionId = "flotilla-operator";
  std::chrono::milliseconds leaseDuration{15'000};
  std::chrono::milliseconds renewDeadline{10'000};
  std::chrono::milliseconds retryPeriod{2'000};
  // Loopback by default (docs/security.md, M3): /metrics is unauthenticated, so reaching it
  // from elsewhere is the installer's choice (--metrics-bind-address=:8080 with a
  // NetworkPolicy, or a proxy that authenticates).
  BindAddress metrics{"127.0.0.1", 8080, false};
  BindAddress health{"0.0.0.0", 8081, false};
  std::chrono::nanoseconds clusterProbePeriod = std::chrono::seconds(10);
  std::chrono::nanoseconds clusterProbeTimeout = std::chrono::seconds(5);
  int clusterProbeThreshold = 3;
  std::chrono::nanoseconds clusterFailoverGrace = std::chrono::seconds(60);
  std::chrono::nanoseconds gracefulMoveTimeout = std::chrono::minutes(10);
  // Admission webhooks (docs/design.md §6): served by every replica, leader or not.
  bool enableWebhooks = true;
  std::string webhookHost = "0.0.0.0";
  int webhookPort = 9443;  // 0: any free port (tests; the bound port is logged)
  std::string certDir = "/tmp/k8s-webhook-server/serving-certs";
  int workers = 2;
  // Client-side rate limit of the host client (client-go's token bucket): requests per second
  // and the burst above it. Members have their own clients and limits.
  int kubeApiQps = 200;
  int kubeApiBurst = 400;
  std::string logFormat = "text";
  std::string logLevel = "info";
  bool help = false;
};

// Parses argv (without argv[0]). --config FILE is read with `readFile` (injected for tests) and
// applied first; command-line flags override it. Errors name the flag and the problem.
using FileReader = std::function<api::Result<std::string>(const std::string& path)>;
api::Result<Options> parseOptions(const std::vector<std::string>& args, const FileReader& readFile);

api::Result<BindAddress> parseBindAddress(const std::string& text);

extern const char* const kHelp;

}  // namespace flotilla::op
