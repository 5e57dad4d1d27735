// What makes a flotilla-sim process behave like a member cluster: the deployment controller
// (Deployment -> ReplicaSet per pod-template hash -> Pods, rolling replacement of old ReplicaSets),
// a pod binder that places pods on nodes by their requests and otherwise marks them
// `PodScheduled=False, reason Unschedulable` with a kube-scheduler-like message, a kubelet
// stand-in that makes bound pods Running and Ready after a delay, and the ReplicaSet and
// Deployment status that follow. It works on the Store directly (as kube-controller-manager works
// through the API server, but in-process), and re-runs on every change, so resizing a node with
// kubectl or deleting pods re-runs binding at once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/time.h"
#include "sim/member/cronjob_controller.h"
#include "sim/member/daemonset_controller.h"
#include "sim/member/hpa_controller.h"
#include "sim/member/job_controller.h"
#include "sim/member/member_options.h"
#include "sim/member/statefulset_controller.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

// Node capacity left for one pod: the binder's pure decision.
struct NodeRoom {
  std::string name;
  bool ready = true;
  int64_t cpuMilli = 0;  // allocatable minus requests of bound, non-terminal pods
  int64_t memory = 0;
  int64_t pods = 0;
};
struct PodRequest {
  int64_t cpuMilli = 0;
  int64_t memory = 0;
};
struct BindDecision {
  std::string node;     // empty: unschedulable
  std::string message;  // "0/3 nodes are available: 2 Insufficient cpu, 1 Too many pods."
};
// The fitting node with the most free CPU (then memory, then name): spreading like
// kube-scheduler's LeastAllocated.
BindDecision choosePlacement(const PodRequest& pod, const std::vector<NodeRoom>& nodes);

// kube's pod-template-hash: stable for equal templates, different for different ones.
std::string podTemplateHash(const boost::json::object& podTemplate);

class MemberController {
 public:
  MemberController(
      Store& store, MemberOptions options,
      std::function<api::Clock::time_point()> now = [] { return api::Clock::now(); });
  ~MemberController();

  // Runs reconcile() on a thread whenever the store changes (and when a pod becomes due to turn
  // Ready).
  void start();
  void stop();

  // One full pass over deployments, replica sets, pods and nodes; returns how many writes it
  // made. Deterministic given the store and `now` (tests call it directly). Passes started by
  // start() read only what changed since the last one (the store's events) and what that
  // touches: a member under a stream of changes costs what changes, not what it holds.
  int reconcile();
  // Deployments and ReplicaSets passes have read so far (tests: what a pass costs).
  uint64_t examined() const { return examined_; }
  // After start(): every change the store made has reached the controller, and no pass is
  // running, pending or due (tests poll it rather than wait for time to pass).
  bool settled();

 private:
  using Shared = std::vector<std::shared_ptr<const boost::json::object>>;
  // What changed since the last pass, from the store's events (keys "namespace/name").
  struct Changes {
    bool all = false;  // everything: the first pass, and reconcile()
    std::set<std::string> deployments, replicaSets, pods, services;
    bool nodes = false;
  };
  // What one pass works on: the objects changed, and the owners of what it changed itself.
  struct Work {
    std::set<std::string> deployments, replicaSets;
    std::set<std::string> podOwners;  // the ReplicaSets of pods this pass noted
    bool bind = false;                // pods or nodes changed: unbound pods may fit now
  };
  // The owner index the passes keep from what they read: owner uid -> owned keys, and each
  // owned key's owners (uids, and keys in its namespace).
  using Children = std::map<std::string, std::set<std::string>>;
  struct OwnedBy {
    std::vector<std::string> uids, keys;
  };
  using Owners = std::map<std::string, OwnedBy>;

  int pass(Changes changes);
  void noteEvent(const StoredEvent& event);
  // Re-reads `key` and files it under its owners; returns the owners' keys, before and after.
  std::vector<std::string> note(const std::string& resource, const std::string& key,
                                Owners& owners, Children& children,
                                std::shared_ptr<const boost::json::object>* object);
  // note() for a pod, and its place in unbound_ or starting_; its ReplicaSets go to `ownerSets`.
  void notePod(const std::string& key, std::set<std::string>& ownerSets);
  Shared fetch(const std::string& resource, const std::set<std::string>& keys) const;
  int reconcileDeployments(Work& work);
  int reconcileReplicaSets(Work& work);
  int bindPods(Work& work);
  int runPods(PassClock& clock, Work& work);
  int assignLoadBalancers(const std::set<std::string>& keys);
  void loop();

  Store& store_;
  MemberOptions options_;
  std::function<api::Clock::time_point()> now_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool dirty_ = true;
  bool stopping_ = false;
  Changes changes_{.all = true};  // (guarded by mutex_) the first pass looks at everything
  bool passing_ = false;          // (guarded by mutex_) a pass runs
  uint64_t passes_ = 0;           // (guarded by mutex_) passes started
  std::atomic<int64_t> delivered_{0};  // the resourceVersion of the last event delivered
  // Some pod waits for a ConfigMap, Secret or ServiceAccount (runPods): their events wake a pass.
  std::atomic<bool> podsBlocked_{false};
  uint64_t subscription_ = 0;
  std::thread thread_;
  // Only the reconcile thread touches what follows. By key: the resourceVersions (the object's
  // and its children's) seen by the last pass that found nothing to do for it; a pass skips an
  // object whose versions are the same.
  std::map<std::string, std::string> deploymentMemo_;
  std::map<std::string, std::string> replicaSetMemo_;
  Children setsOf_, podsOf_;  // Deployment uid -> ReplicaSets, ReplicaSet uid -> pods
  Owners setOwners_, podOwners_;
  std::set<std::string> retryDeployments_;  // a ReplicaSet create failed: tried on every pass
  std::set<std::string> unbound_;           // pods without a node (the binder's)
  std::set<std::string> starting_;  // bound pods still Pending (the kubelet's)
  // What bound pods request, by pod and by node (the binder's room without reading every pod).
  struct PodUse {
    std::string node;
    PodRequest request;
  };
  struct NodeUse {
    PodRequest request;
    int64_t pods = 0;
  };
  std::map<std::string, PodUse> podUse_;
  std::map<std::string, NodeUse> nodeUse_;
  std::atomic<uint64_t> examined_{0};
  // The workload controllers (one file each), run by reconcile().
  StatefulSetController statefulSets_{store_, options_};
  DaemonSetController daemonSets_{store_, options_};
  JobController jobs_{store_, options_};
  CronJobController cronJobs_{store_, options_};
  HpaController hpas_{store_, options_};
  // Milliseconds since the epoch (api::Clock) at which the last pass wants the next one (a pod
  // due to turn Ready, a Job's pod due to end, a CronJob due to run); 0: none.
  std::atomic<int64_t> dueAt_{0};
};

}  // namespace flotilla::sim
