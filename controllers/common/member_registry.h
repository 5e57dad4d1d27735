// The operator's connections to member clusters: one REST client and one set of informers per
// member, shared by every controller that talks to members (cluster, sync, status,
// automigration), so it belongs to none of them. The cluster controller creates, rebuilds (when
// the credentials change) and removes connections; the others only look them up.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/config/rest_config.h"

namespace flotilla::controllers {

class MemberConnection {
 public:
  virtual ~MemberConnection() = default;
  virtual const std::string& name() const = 0;
  // What the connection was built from (endpoint, credentials): a change rebuilds it.
  virtual const std::string& fingerprint() const = 0;
  virtual kube::RestClient& client() = 0;
  // Nodes and pods of the member (cluster-wide).
  virtual const kube::SharedInformer& nodes() const = 0;
  virtual const kube::SharedInformer& pods() const = 0;
  // The Deployments Flotilla manages on the member (label flotilla.io/managed-by=flotilla), with
  // the index kBindingIndex: the binding key ("ns/name") each belongs to.
  virtual const kube::SharedInformer& deployments() const = 0;
  // The ReplicaSets of those Deployments (their pod template carries Flotilla's labels, and a
  // ReplicaSet copies them), with the index kBindingHashIndex (the flotilla.io/binding label).
  // The pods() informer has the same index, for the pods of Flotilla's workloads.
  virtual const kube::SharedInformer& replicaSets() const = 0;
  // Flotilla's copies of any other kind on the member (label flotilla.io/managed-by=flotilla),
  // watched from the first call on: a kind is watched on a member once something of it is
  // propagated there (docs/design.md §11). Items carry apiVersion and kind, keep their
  // managedFields, and are indexed by kBindingIndex; their changes reach
  // MemberEvents::objectChanged. Trust it only while it is watching() (not right after the first
  // call, nor while its watch fails, as without the `watch` verb): read live meanwhile.
  virtual std::shared_ptr<const kube::SharedInformer> objects(const kube::ResourceId& resource) = 0;
  // The same cache if it was started already (nothing is started).
  virtual std::shared_ptr<const kube::SharedInformer> watchedObjects(
      const kube::ResourceId& resource) const = 0;
  virtual bool synced() const = 0;
  virtual boost::asio::any_io_executor executor() = 0;
};

inline constexpr const char* kBindingIndex = "binding";
inline constexpr const char* kBindingHashIndex = "binding-hash";

// What happens on members, for the controllers that act on it. Called on the I/O thread: enqueue
// and return.
struct MemberEvents {
  std::function<void(const std::string& cluster)> nodesOrPodsChanged;
  // A managed Deployment of `binding` ("ns/name") changed; `specChanged` is false for status-only
  // updates.
  std::function<void(const std::string& cluster, const std::string& binding, bool specChanged)>
      deploymentChanged;
  // A pod of a Flotilla workload changed; `bindingHash` is its flotilla.io/binding label (the
  // hash of the binding key: controllers/common/managed.h).
  std::function<void(const std::string& cluster, const std::string& bindingHash)>
      workloadPodChanged;
  // A copy of any other kind (MemberConnection::objects) of `binding` changed, status included.
  std::function<void(const std::string& cluster, const std::string& binding)> objectChanged;
};

class MemberRegistry {
 public:
  virtual ~MemberRegistry() = default;
  // The member's connection; created, or rebuilt when `fingerprint` differs from the current
  // one's. `onChange` is called (on the I/O thread) whenever the member's nodes or pods change.
  virtual api::Result<std::shared_ptr<MemberConnection>> ensure(const std::string& name,
                                                                const kube::RestConfig& config,
                                                                const std::string& fingerprint) = 0;
  virtual std::shared_ptr<MemberConnection> get(const std::string& name) const = 0;
  // Stops the member's informers and drops its client (a deleted FederatedCluster).
  virtual void remove(const std::string& name) = 0;
  virtual std::vector<std::string> names() const = 0;
};

struct MemberRegistryOptions {
  std::chrono::milliseconds requestTimeout{5'000};  // every request to a member
  // Sent on every member request, so a member's audit log (and flotilla-sim's fault rules) can
  // tell the operator's requests from users'.
  std::string userAgent = "flotilla-operator/0.1";
  kube::InformerOptions informers;
  // This host's identity: member Deployments another host made are not indexed as this host's
  // (managingBinding).
  std::string hostId;
  // What one member can make the operator hold (docs/security.md, M4): a response body, one
  // watch event, and the objects of one kind in its caches (Kubernetes supports 150,000 pods per
  // cluster; what Flotilla caches of them is trimmed).
  size_t maxResponseBody = size_t{32} << 20;
  size_t maxWatchEvent = size_t{8} << 20;
  size_t maxObjectsPerKind = 150'000;
};

class AsioMemberConnection;

// Connections on one executor (the manager's I/O thread).
class AsioMemberRegistry final : public MemberRegistry {
 public:
  AsioMemberRegistry(boost::asio::any_io_executor executor, MemberRegistryOptions options = {});
  // Before the first ensure().
  void setEvents(MemberEvents events) { events_ = std::move(events); }
  ~AsioMemberRegistry() override;  // stops every member's informers

  api::Result<std::shared_ptr<MemberConnection>> ensure(const std::string& name,
                                                        const kube::RestConfig& config,
                                                        const std::string& fingerprint) override;
  std::shared_ptr<MemberConnection> get(const std::string& name) const override;
  void remove(const std::string& name) override;
  std::vector<std::string> names() const override;
  void stopAll();

 private:
  boost::asio::any_io_executor executor_;
  MemberRegistryOptions options_;
  MemberEvents events_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<AsioMemberConnection>> members_;
};

}  // namespace flotilla::controllers
