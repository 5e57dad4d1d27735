// `flotillactl join` and `unjoin` (docs/cli.md, docs/install.md "Registering a member cluster"):
// registering a member in one command, as `karmadactl join` does. The objects are built by pure
// functions; join() and unjoin() read, check and write through ClusterApi, so their whole flow is
// tested against an in-memory fake (join_test.cc) and, end to end, e2e/join_e2e.sh.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <functional>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "cli/cluster_api.h"

namespace flotilla::cli {

// The operator's namespace on the host (its Role reads member credentials there) and the
// namespace join creates on the member for Flotilla's ServiceAccount.
inline constexpr const char* kSystemNamespace = "flotilla-system";
// The member-side ServiceAccount, ClusterRole and ClusterRoleBinding share this name.
inline constexpr const char* kMemberAccount = "flotilla-member";
inline constexpr const char* kMemberTokenSecret = "flotilla-member-token";
// On the FederatedCluster: the member's kube-system namespace uid, which tells one cluster from
// another whatever URL reaches it (Karmada's cluster ID is the same uid).
inline constexpr const char* kClusterIdAnnotation = "flotilla.io/cluster-id";
// On what join created (the host Secret, the member namespace): unjoin deletes only these.
inline constexpr const char* kManagedByLabel = "app.kubernetes.io/managed-by";
inline constexpr const char* kManagedByValue = "flotillactl";

struct JoinOptions {
  std::string name;      // the FederatedCluster's name on the host
  std::string endpoint;  // its apiEndpoint; empty: the member kubeconfig's server
  std::string provider, region, zone;
  std::map<std::string, std::string> labels;
  std::string caPem;  // the member API server's CA (from its kubeconfig); empty: the token's ca.crt
  int tokenPolls = 60;   // reads of the token Secret, pause() between, before giving up
  int deletePolls = 60;  // unjoin: reads of the terminating FederatedCluster
};

// The member ClusterRole's rules: what the operator does on a member today, and nothing more
// (docs/install.md "On every member" explains each; e2e/join_e2e.sh removes each in turn).
boost::json::array memberRules();
// The member-side objects in the order they are applied: ServiceAccount, ClusterRole,
// ClusterRoleBinding, token Secret (the namespace is created separately, only when missing).
std::vector<boost::json::object> memberObjects();
// What join installs on a member, as one YAML stream (Namespace flotilla-system first):
// config/member/member.yaml, for members registered by hand (`flotillactl member-manifest`).
std::string memberManifest();
// The host-side credentials Secret NAME-credentials (token, caBundle) and the FederatedCluster.
boost::json::object credentialsSecret(const std::string& cluster, const std::string& token,
                                      const std::string& caPem);
boost::json::object federatedCluster(const JoinOptions& options, const std::string& endpoint,
                                     const std::string& clusterId);
// Why NAME cannot be (re)registered for the cluster with `clusterId` at `endpoint`, given the
// FederatedCluster of that name; "" when it is the same cluster (a join run again).
std::string nameConflict(const boost::json::object& existing, const std::string& clusterId,
                         const std::string& endpoint);

using Pause = std::function<void()>;  // between polls (a second in the command; none in tests)

// 0 when the member is registered (everything created or already there), 1 with the reason on
// `err` when it is not; nothing is written before every check passed.
int join(const JoinOptions& options, ClusterApi& host, ClusterApi& member, const Pause& pause,
         std::ostream& out, std::ostream& err);
// Deletes the FederatedCluster and waits until it is gone (Flotilla's finalizer removes the
// workloads it put on the member, with the member credentials still valid), then the host Secret
// and the member-side objects join created. `member` may be null: the host side only.
int unjoin(const JoinOptions& options, ClusterApi& host, ClusterApi* member, const Pause& pause,
           std::ostream& out, std::ostream& err);

}  // namespace flotilla::cli
