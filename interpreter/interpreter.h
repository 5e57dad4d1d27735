// Everything Flotilla knows about one kind, as pure functions on the object's JSON (docs/design.md
// §3.8, "Interpreters"). The pipeline (federate, binding, scheduler, sync, status) is the same for
// every kind; where a kind differs, it asks the kind's entry here and never tests the kind itself.
//
// An entry answers:
//   replicas / requirements  what the object asks of the scheduler (none: Duplicated whatever the
//                            policy says);
//   reviseReplicas           what one cluster receives when the replicas are divided;
//   prune                    server-set fields never sent to a member (Service clusterIP, allocated
//                            nodePorts, PVC volumeName, ...), applied to the template once, on the
//                            host, where the source's managedFields still tell who wrote what;
//   retain                   fields of the live member object Flotilla keeps instead of fighting;
//   health                   what one member's object says about itself;
//   aggregateStatus          what the host's source object shows, from the members' objects;
//   dependencies             the objects it needs on every cluster it runs on (dependencies.h);
//   follows                  the object it follows because it names it (an HPA, its target);
//   progress                 what its kubectl columns say of the fleet-wide object;
//   and flags: the default replicaScheduling.type, a warning when copies repeat work (a
//   CronJob), copies that finish (a Job), followers that wait until healthy (a CRD).
// A kind without an entry propagates as a whole object, Duplicated; it is healthy when it exists.
#pragma once

#include <boost/json/object.hpp>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/flotilla_types.h"
#include "interpreter/dependencies.h"

namespace flotilla::interpreter {

enum class Health { kHealthy, kProgressing, kUnhealthy, kUnknown };
std::string_view toString(Health health);  // "Healthy", "Progressing", ...

struct HealthReport {
  Health health = Health::kUnknown;
  std::string message;  // why, when not Healthy ("2 of 3 replicas available")
  bool operator==(const HealthReport&) const = default;
};

// One cluster's part of an object whose replicas are divided (reviseReplicas).
struct Share {
  std::string cluster;
  int32_t replicas = 0;
  // Divided (the parts add up to the object's replicas); false: Duplicated, every cluster runs
  // the whole object.
  bool divided = true;
  // Every cluster's part (the binding's spec.clusters): a kind that numbers its work across the
  // fleet (a StatefulSet's ordinals, a Job's completions) places this part among the others.
  std::vector<api::TargetCluster> placement;
  // The member's Kubernetes version (its FederatedCluster's status.kubernetesVersion,
  // "v1.27.3"); empty when not known yet.
  std::string kubernetesVersion;
};

// One member's object of a federated object (for aggregateStatus).
struct MemberObject {
  std::string cluster;
  const boost::json::object* object = nullptr;  // null: not on that cluster (yet)
};

// One kind's behaviour. Unset functions mean "nothing kind-specific": no replicas, nothing pruned
// or retained beyond what every kind gets, healthy when it exists, no status to aggregate.
struct KindEntry {
  std::string group;  // "" for the core group
  std::string kind;
  std::function<std::optional<int32_t>(const boost::json::object&)> replicas;
  std::function<api::ReplicaRequirements(const boost::json::object&)> requirements;
  // The object one cluster receives; returns what the division could not do on that cluster
  // (reported on the binding's cluster and in an Event), empty when nothing.
  std::function<std::string(boost::json::object&, const Share&)> reviseReplicas;
  std::function<void(boost::json::object&)> prune;
  std::function<void(boost::json::object& desired, const boost::json::object& live)> retain;
  std::function<HealthReport(const boost::json::object&)> health;
  // The status the host's source object should show (its whole `status`), or nullopt when the
  // kind has none. `source` is the host object as it is now.
  std::function<std::optional<boost::json::object>(const boost::json::object& source,
                                                   const std::vector<MemberObject>& members)>
      aggregateStatus;
  // The objects the kind itself names (a workload's pod template: podSpecDependencies).
  std::function<std::vector<Dependency>(const boost::json::object&)> dependencies;
  // The labels its pods carry (a workload's pod template labels): the Services selecting them
  // follow it. Null: the kind runs no pods.
  std::function<const boost::json::object*(const boost::json::object&)> podLabels;
  // Set when conflictResolution: Adopt must not take over a member object of the kind: why (told
  // in the Conflict message). Null: adoptable.
  const char* notAdopted = nullptr;
  // A follower of the kind is ready for its workloads on a cluster only once healthy there, not
  // merely applied (a CRD: its custom resources are refused until it is established).
  bool followersWaitUntilHealthy = false;
  // Set when a copy that was on a member only as a follower (no policy of its own selects it) is
  // left there when no workload needs it any more, instead of deleted: why (a CRD's deletion
  // deletes every custom resource of it on that member, Flotilla's or not). Null: deleted.
  const char* keptWhenUnfollowed = nullptr;
  // replicaScheduling.type when the policy leaves it out (binding.h: BindingSubject).
  const char* defaultScheduling = "Divided";
  // Set when a copy on each of several clusters does the same work several times (a CronJob
  // runs once per tick on every cluster it is on): what to warn about, from the object (empty:
  // nothing for this object). An Event says so when a copy is created while there are others.
  std::function<std::string(const boost::json::object&)> duplicatedWarning;
  // The object an object of this kind follows because it names it (an HPA: its scaleTargetRef),
  // nullopt when it names none: it goes wherever that object goes, as a Service goes with the
  // pods it selects (docs/design.md §12). Null: the kind follows only what names it.
  std::function<std::optional<Dependency>(const boost::json::object&)> follows;
  // What it follows has its replicas set by it on each member (an HPA scales its target): where
  // its copy is applied, the sync keeps the member's replicas of that object instead of writing
  // its share back (docs/design.md §13).
  bool scalesWhatItFollows = false;
  // What the kind's own kubectl columns say of the fleet-wide object, from the host's source and
  // the status aggregateStatus made for it ("5/5", a StatefulSet's READY): the federated
  // object's PROGRESS column. Null: nothing.
  std::function<std::string(const boost::json::object& source, const boost::json::object& status)>
      progress;
  // Its copies finish their work (a Job's part): a healthy copy is done. The sync records each
  // copy's health in the binding, and a failover leaves a finished copy's cluster alone (its
  // work is not run again elsewhere).
  bool finishes = false;
  // Where the object's pod spec is ({"spec", "template", "spec"}); empty: it has none. Container
  // overriders (docs/design.md §14) reach its containers and initContainers.
  std::vector<std::string> podSpecPath;
};

// A kind's entry, with the behaviour every kind shares around it.
class Interpreter {
 public:
  explicit Interpreter(const KindEntry& entry) : entry_(entry) {}

  const std::string& group() const { return entry_.group; }
  const std::string& kind() const { return entry_.kind; }
  // Whether the kind has replicas to divide; a kind without them is Duplicated.
  bool divisible() const { return static_cast<bool>(entry_.replicas); }
  std::optional<int32_t> replicas(const boost::json::object& object) const;
  // What one replica needs (empty when the kind has no replicas).
  api::ReplicaRequirements requirements(const boost::json::object& object) const;
  // `object` with `share` of the replicas for one cluster; unchanged for a kind without
  // replicas. Returns what the division could not do there (empty: nothing).
  std::string reviseReplicas(boost::json::object& object, const Share& share) const;
  const char* defaultScheduling() const { return entry_.defaultScheduling; }
  // What several copies of `object` on several clusters do twice; empty: nothing.
  std::string duplicatedWarning(const boost::json::object& object) const {
    return entry_.duplicatedWarning ? entry_.duplicatedWarning(object) : std::string();
  }
  // The template a member receives, from the host's source object: the kind's server-set fields
  // removed, then what no kind sends: status, and metadata other than name, namespace, labels and
  // annotations (uid, resourceVersion, generation, managedFields, ownerReferences, finalizers,
  // timestamps, kubectl's last-applied-configuration).
  boost::json::object memberTemplate(const boost::json::object& source) const;
  // `desired` with the fields of `live` the kind leaves to the member.
  void retain(boost::json::object& desired, const boost::json::object& live) const;
  // Health of one member's object; null: not there (Unknown).
  HealthReport health(const boost::json::object* member) const;
  std::optional<boost::json::object> aggregateStatus(
      const boost::json::object& source, const std::vector<MemberObject>& members) const;
  // What `object` needs on its clusters: what its kind names, and its flotilla.io/followers
  // extras (whose problems are returned for an Event). Sorted, each once.
  Followers dependencies(const boost::json::object& object) const;
  // The labels of the pods `object` runs; null when it runs none (or has no labels).
  const boost::json::object* podLabels(const boost::json::object& object) const {
    return entry_.podLabels ? entry_.podLabels(object) : nullptr;
  }
  // Why Adopt does not take over the kind's member objects; null when it may.
  const char* notAdopted() const { return entry_.notAdopted; }
  bool followersWaitUntilHealthy() const { return entry_.followersWaitUntilHealthy; }
  const char* keptWhenUnfollowed() const { return entry_.keptWhenUnfollowed; }
  std::optional<Dependency> follows(const boost::json::object& object) const {
    return entry_.follows ? entry_.follows(object) : std::nullopt;
  }
  bool scalesWhatItFollows() const { return entry_.scalesWhatItFollows; }
  bool finishes() const { return entry_.finishes; }
  const std::vector<std::string>& podSpecPath() const { return entry_.podSpecPath; }
  std::string progress(const boost::json::object& source, const boost::json::object& status) const {
    return entry_.progress ? entry_.progress(source, status) : std::string();
  }

 private:
  const KindEntry& entry_;
};

// The entries by group and kind. Lookups of kinds without an entry get the generic one.
class Registry {
 public:
  // Every built-in entry (interpreter/kinds_*.cc).
  static const Registry& builtIn();

  void add(KindEntry entry);
  Interpreter of(std::string_view apiVersion, std::string_view kind) const;
  bool has(std::string_view group, std::string_view kind) const;

 private:
  std::map<std::pair<std::string, std::string>, KindEntry, std::less<>> entries_;
  KindEntry generic_;
};

// The built-in entries, by family (one file each).
void addWorkloadKinds(Registry& registry);   // Deployment; pod-template kinds' dependencies
void addCoreKinds(Registry& registry);       // ConfigMap, Secret, ServiceAccount, PVC, Namespace
void addServiceKinds(Registry& registry);    // Service, Ingress
void addRbacKinds(Registry& registry);       // Role, RoleBinding, ClusterRole, ClusterRoleBinding
void addExtensionKinds(Registry& registry);  // CustomResourceDefinition
void addAvailabilityKinds(Registry& registry);  // HorizontalPodAutoscaler, PodDisruptionBudget

}  // namespace flotilla::interpreter
