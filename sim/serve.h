// `flotilla-sim serve`: one API server process (host or member cluster) over a data directory.
#pragma once

#include <atomic>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace flotilla::sim {

struct ServeOptions {
  std::filesystem::path dir;  // data, pki, token and <name>.kubeconfig live here
  std::string name = "host";  // cluster name: kubeconfig context and file name
  std::string address = "127.0.0.1";
  int port = -1;  // -1: the port of the previous run if any, else a free one
  int threads = 2;
  std::chrono::milliseconds bookmarkInterval{30'000};
  bool member = false;  // run the member-cluster behaviour (deployments, pod binder, kubelet)
  std::chrono::milliseconds readyDelay{1000};  // member: bound pod -> Running and Ready
  // member: a Job's pod runs this long, then succeeds (member_controller.h, MemberOptions).
  std::chrono::milliseconds jobRunTime{3000};
  // member: one CronJob schedule minute lasts this long (a fast clock for tests).
  std::chrono::milliseconds cronJobMinute{60'000};
  std::string gitVersion;  // the version served (/version, feature gates); empty: v1.32
  std::string authorizationMode = "RBAC";  // or AlwaysAllow
  std::filesystem::path tokenAuthFile;     // more users (kube's --token-auth-file)
  std::filesystem::path faultsFile;        // fault injection rules (server/faults.h)
};

// Runs until `stop` becomes true or SIGTERM/SIGINT arrives; returns the exit status. Progress
// and errors go to `log` (no secrets: the token is only in the kubeconfig file, mode 0600).
int serve(const ServeOptions& options, std::ostream& log);

// kubeconfig YAML for one cluster with bearer-token auth.
std::string kubeconfigYaml(const std::string& name, const std::string& server,
                           const std::string& caPem, const std::string& token);

}  // namespace flotilla::sim
