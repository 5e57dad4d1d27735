// How to reach and authenticate to one Kubernetes API server, from a kubeconfig (as kubectl reads
// it), from inside a pod (service account), or from a FederatedCluster's credentials Secret.
// Everything file-backed is read while loading, except a token file, which is re-read by the client
// so that rotated service-account tokens keep working.
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::kube {

struct RestConfig {
  std::string server;  // "https://host:port[/prefix]"
  // TLS
  std::string caPem;  // empty: the system trust store
  bool insecureSkipVerify = false;
  std::string tlsServerName;  // overrides the name verified in the serving certificate
  std::string certPem;        // client certificate and key (optional)
  std::string keyPem;
  // Credentials (at most one kind is used: token, token file, then basic auth)
  std::string token;
  std::filesystem::path tokenFile;
  std::string username;
  std::string password;
  // Client behaviour. The defaults are deliberately high: an operator's own rate limit should not
  // be the bottleneck, the API server's priority-and-fairness is.
  double qps = 200;
  int burst = 400;
  std::chrono::milliseconds timeout{30'000};  // per request (watch streams use an idle timeout)
  std::string userAgent = "flotilla/0.1";
  std::string defaultNamespace;  // the context's namespace (or the pod's), "" when not set
  // Where this configuration came from, for messages ("kubeconfig context kind-host").
  std::string source;
};

// Looks a variable up in the environment; injected so tests do not touch the real one.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup processEnvironment();

struct KubeconfigOptions {
  // Files to merge, in order. Empty: $KUBECONFIG (':'-separated) or else ~/.kube/config.
  std::vector<std::filesystem::path> paths;
  std::string context;  // --context; empty: current-context
};

// kubectl's loading rules: with several files, the first file that defines a cluster, user or
// context name wins, and the first non-empty current-context wins. Relative file references are
// resolved against the directory of the file that contains them. Missing files named by $KUBECONFIG
// are skipped (as kubectl does); an explicitly listed missing file is an error. Exec and
// auth-provider plugins are not supported and say so.
api::Result<RestConfig> loadKubeconfig(const KubeconfigOptions& options,
                                       const EnvLookup& env = processEnvironment());

// Parses one kubeconfig document; `baseDir` resolves relative paths. `allowFiles` false: a
// reference to a local file (certificate-authority, client-certificate, client-key, tokenFile) is
// an error, for kubeconfigs that come from outside (a member's Secret must not make the operator
// read, and send, its own files).
api::Result<RestConfig> kubeconfigFromText(std::string_view text, const std::string& context,
                                           const std::filesystem::path& baseDir = {},
                                           bool allowFiles = true);

// In-cluster configuration: KUBERNETES_SERVICE_HOST/PORT and the service account's token and CA
// under `root` (normally /var/run/secrets/kubernetes.io/serviceaccount).
api::Result<RestConfig> inClusterConfig(
    const EnvLookup& env = processEnvironment(),
    const std::filesystem::path& root = "/var/run/secrets/kubernetes.io/serviceaccount");

// A member cluster's configuration from its FederatedCluster (apiEndpoint, insecureSkipTLSVerify)
// and the referenced Secret's data: either `kubeconfig` (its current context is used, apiEndpoint
// overrides the server when set) or `token` plus optional `caBundle`. Values are base64 as in any
// Secret's `data`. The result always verifies TLS: an http endpoint, `insecureSkipVerify` or a
// kubeconfig's insecure-skip-tls-verify is an error (credentials never go out unverified).
api::Result<RestConfig> configFromSecret(const boost::json::object& secret,
                                         const std::string& apiEndpoint, bool insecureSkipVerify);

}  // namespace flotilla::kube
