// The sync controller (docs/design.md §5.5; issue #11): per ResourceBinding, the member Deployment
// on every target cluster (server-side apply, field manager "flotilla"), removal from clusters no
// longer targeted, never touching objects Flotilla does not manage, per-cluster propagation state
// and FullyApplied on the binding, and the cleanup finalizer of the FederatedDeployment.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <map>
#include <mutex>

#include "api/time.h"
#include "controllers/common/decoded_cache.h"
#include "controllers/common/member_registry.h"
#include "controllers/common/object_key.h"
#include "controllers/dependencies/follower_index.h"
#include "controllers/dependencies/leaders.h"
#include "controllers/override/policy_source.h"
#include "controllers/sync/object_plan.h"
#include "controllers/sync/sync_plan.h"
#include "controllers/sync/sync_status.h"
#include "kube/controller/controller.h"
#include "kube/events/event_recorder.h"

namespace flotilla::controllers::sync {

struct Informers {
  const kube::SharedInformer& federatedDeployments;
  const kube::SharedInformer& bindings;
  const kube::SharedInformer& clusters;
  // FederatedObjects (any kind but Deployments, object_sync.cc); null: Deployments only.
  const kube::SharedInformer* federatedObjects = nullptr;
  // ClusterFederatedObjects and their ClusterResourceBindings (keys without a namespace).
  const kube::SharedInformer* clusterFederatedObjects = nullptr;
  const kube::SharedInformer* clusterBindings = nullptr;
};

struct SyncControllerOptions {
  std::chrono::nanoseconds retryNotReady = std::chrono::seconds(5);
  // A make-before-break move that has not completed this long after its placement was written
  // (status.lastScheduledTime) applies the new counts as they are (--graceful-move-timeout).
  std::chrono::nanoseconds gracefulMoveTimeout = std::chrono::minutes(10);
  // A member not Ready for this long (--cluster-failover-grace, counted from its Ready
  // condition's lastTransitionTime) no longer holds up the deletion of a workload: the same rule
  // as a FederatedCluster's own deletion (docs/decisions.md).
  std::chrono::nanoseconds failoverGrace = std::chrono::seconds(60);
  std::function<api::Clock::time_point()> wallClock = api::Clock::now;
  // This host's identity (its kube-system namespace UID), marked on every member object
  // (docs/security.md, M1); "" in tests that do not look at it.
  std::string hostId;
  // The host's source object of a federated object (its kind's informer), for the status the
  // kind's interpreter aggregates back into it (a Service's load-balancer ingress); null when the
  // kind is not watched.
  std::function<kube::ObjectPtr(const ObjectKey&)> sourceOf;
  // Whether the host's cache of that source's kind runs and has synced (sourceOf's null then
  // means the object is gone from the host).
  std::function<bool(const ObjectKey&)> sourceWatched;
  // A member copy that is not healthy yet and whose kind's cache on that member is not synced is
  // looked at again this often (otherwise its changes come as member events).
  std::chrono::nanoseconds healthPoll = std::chrono::seconds(10);
  // Which objects follow workloads (docs/design.md §12): a workload goes to a cluster only once
  // its followers are applied there. Null: nothing follows.
  const dependencies::FollowerIndex* followers = nullptr;
  // A new workload waits this long for a follower not on the host yet (a directory applied in
  // any order) before it propagates without it.
  std::chrono::nanoseconds missingGrace = std::chrono::seconds(10);
  // The OverridePolicies and ClusterOverridePolicies whose rules change member objects
  // (docs/design.md §14). Null: none.
  const override::OverridePolicies* overrides = nullptr;
};

// The plan's retry (sync_plan.h) as the work queue takes it.
inline kube::ReconcileResult toResult(const Requeue& r) {
  return kube::ReconcileResult{r.backoff, r.after.value_or(std::chrono::nanoseconds(0))};
}

class SyncController final : public kube::Reconciler {
 public:
  SyncController(kube::RestClient& host, boost::asio::any_io_executor executor, Informers informers,
                 MemberRegistry& members, kube::EventRecorder& events,
                 SyncControllerOptions options = {});
  api::Result<kube::ReconcileResult> reconcile(const std::string& key) override;
  void watch(kube::Controller& controller, kube::SharedInformer& federatedDeployments,
             kube::SharedInformer& bindings, kube::SharedInformer& clusters);
  // The FederatedObjects' events (their bindings' come through watch()).
  void watchObjects(kube::Controller& controller, kube::SharedInformer& federatedObjects);
  void watchClusterObjects(kube::Controller& controller,
                           kube::SharedInformer& clusterFederatedObjects,
                           kube::SharedInformer& clusterBindings, kube::SharedInformer& clusters);
  // An OverridePolicy or ClusterOverridePolicy created, edited or deleted: the federated objects
  // it selects (before and after the change) are synced again, which applies or reverts it. A
  // cluster's labels or spec (region, zone, provider) changed: what is bound there is synced
  // again (a rule's targetCluster may select it now, or no longer).
  void watchOverrides(kube::Controller& controller, kube::SharedInformer& overridePolicies,
                      kube::SharedInformer& clusterOverridePolicies,
                      kube::SharedInformer& clusters);

 private:
  // What a failed cluster asks of the reconcile: `soon`, a retry after retryNotReady (the
  // cluster is not Ready or not connected yet); `backoff`, a retry with the queue's exponential
  // backoff (the member answered an error: 500, 429, 409, 403... which may pass without any
  // event the operator would see).
  struct Retry {
    bool soon = false;
    bool backoff = false;
    // A copy no member event will report (its kind's cache is not following, or the object is
    // not Flotilla's): read again every healthPoll until healthy.
    bool poll = false;
  };
  // Any kind but Deployments (object_sync.cc).
  api::Result<kube::ReconcileResult> reconcileObject(const std::string& key,
                                                     const kube::ObjectPtr& cached);
  ClusterState syncObjectCluster(const api::FederatedObject& fo,
                                 const interpreter::Interpreter& interpreter,
                                 const std::string& key, const interpreter::Share& share,
                                 bool adoptAllowed, bool autoscaled, bool finished,
                                 const override::PolicySet& overrides, Retry* retry,
                                 std::optional<boost::json::object>* liveOut);
  // The OverridePolicies that select the object of `federated` (a FederatedDeployment or
  // FederatedObject as cached), and their rules for one cluster (none when it is not known).
  override::PolicySet overridesSelecting(const boost::json::object& federated) const;
  api::Result<std::vector<override::RuleRef>> overrideRules(const override::PolicySet& selected,
                                                            const std::string& cluster);
  // Removes Flotilla's marks from `live`, a member copy of a kind kept on members (`why`) that
  // its binding no longer places there; nullopt when done (or it is gone), else the error.
  std::optional<std::string> release(MemberConnection& member, const kube::ResourceId& resource,
                                     const boost::json::object& live, const std::string& key,
                                     const std::string& cluster, const char* why);
  ClusterOutcome syncCluster(const api::FederatedDeployment& fd, const std::string& key,
                             const std::string& cluster, int32_t replicas, bool autoscaled,
                             const override::PolicySet& overrides, Retry* retry);
  api::Result<kube::ReconcileResult> cleanup(const api::FederatedDeployment& fd,
                                             const std::string& key);
  // What a member cleanup pass does on one reachable member: nullopt when nothing of the object
  // is left there, else why not.
  using RemoveFromMember = std::function<std::optional<std::string>(MemberConnection& member,
                                                                    const std::string& cluster)>;
  // The cleanup finalizer of a federated object (`meta`, of `ownerResource`): removes its member
  // copies on every member (waiting for members that are down, up to the failover grace), then the
  // finalizer. `what` names the copies in Events ("Deployments").
  api::Result<kube::ReconcileResult> cleanupMembers(const api::ObjectMeta& meta,
                                                    const boost::json::object& involvedObject,
                                                    const std::string& what,
                                                    const kube::ResourceId& ownerResource,
                                                    const RemoveFromMember& removeFrom);
  RetryTimes retryTimes() const { return {options_.retryNotReady, options_.healthPoll}; }
  // For a pass that writes no status of its own (undecided, or waiting for dependencies): the
  // first placement's status alone, which the scheduler left to this pass (firstPlacementStatus
  // in controllers/scheduler/placement_status.h). Nothing when there is none to carry.
  api::Result<bool> writeFirstPlacementOnly(const kube::ResourceId& resource,
                                            const boost::json::object& binding);
  // The binding status a sync pass writes, applied to `object` as the server holds it (a lost
  // race applies it again to the fresh one): the pass's outcomes if the object is still at
  // `generation` (outcomes of an older placement say nothing about a newer one), a first
  // placement's status (the scheduler's, placement_status.h) and DependenciesReady. False:
  // nothing changes. *missing: DependenciesReady turned to Missing (a Warning Event says why).
  api::Result<bool> applyPassStatus(boost::json::object& object, int64_t generation,
                                    const std::vector<ClusterOutcome>& outcomes,
                                    const std::string& now, const std::string& moving,
                                    bool keepUnobserved,
                                    const std::optional<dependencies::LeaderGate>& gate,
                                    bool* missing) const;
  // Not Ready (False or Unknown) since longer ago than options_.failoverGrace.
  bool downLongerThanGrace(const api::FederatedCluster& fc) const;
  std::string readyProblem(const std::string& cluster) const;

  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  Informers informers_;
  MemberRegistry& members_;
  kube::EventRecorder& events_;
  SyncControllerOptions options_;
  DecodedCache<api::FederatedCluster> decodedClusters_;  // for OverridePolicies' targetCluster
  // Member Deployments this process deleted whose deletion its caches may not have seen yet
  // ("cluster/ns/name" -> uid, when): client-go's expectations. A move must not count the replicas
  // of an object that is gone as available. Only an aid against cache lag: a restarted process
  // starts with fresh caches and needs none of it.
  std::mutex deletedMutex_;
  std::map<std::string, std::pair<std::string, std::chrono::steady_clock::time_point>> deleted_;
  void rememberDeleted(const std::string& cluster, const std::string& key, const std::string& uid);
  bool deletedYet(const std::string& cluster, const std::string& key, const std::string& uid);
};

}  // namespace flotilla::controllers::sync
