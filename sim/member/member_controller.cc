#include "sim/member/member_controller.h"

#include <algorithm>
#include <boost/json.hpp>
#include <functional>
#include <memory>

#include "api/quantity.h"
#include "sim/server/defaults.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

const std::string kDeployments = "apps/deployments";
const std::string kReplicaSets = "apps/replicasets";
const std::string kPods = "/pods";
const std::string kNodes = "/nodes";
const std::string kServices = "/services";
// What a pod's containers wait for on a kubelet (podWaitsFor).
const std::string kConfigMaps = "/configmaps";
const std::string kSecrets = "/secrets";
const std::string kServiceAccounts = "/serviceaccounts";
const std::string kClaims = "/persistentvolumeclaims";

const json::object& objectAt(const json::object& o, std::string_view key) {
  static const json::object kEmpty;
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : kEmpty;
}

std::string stringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

int64_t intAt(const json::object& o, std::string_view key, int64_t fallback) {
  const auto* v = o.if_contains(key);
  return v && v->is_int64() ? v->as_int64() : fallback;
}

std::string meta(const json::object& o, std::string_view key) {
  return stringAt(objectAt(o, "metadata"), key);
}

int64_t version(const json::object& o) {
  try {
    return std::stoll(meta(o, "resourceVersion"));
  } catch (const std::exception&) {
    return 0;
  }
}

using Shared = std::vector<std::shared_ptr<const json::object>>;

json::object ownerReference(const json::object& owner, const char* kind) {
  return json::object{{"apiVersion", "apps/v1"},     {"kind", kind},
                      {"name", meta(owner, "name")}, {"uid", meta(owner, "uid")},
                      {"controller", true},          {"blockOwnerDeletion", true}};
}

int64_t quantityMilli(const json::object& list, std::string_view key) {
  const std::string text = stringAt(list, key);
  if (text.empty()) {
    const auto* v = list.if_contains(key);
    if (v && v->is_int64()) return v->as_int64() * 1000;
    return 0;
  }
  auto q = api::Quantity::parse(text);
  return q ? q->milliValue() : 0;
}

PodRequest podRequest(const json::object& pod) {
  PodRequest r;
  const auto* containers = objectAt(pod, "spec").if_contains("containers");
  if (!containers || !containers->is_array()) return r;
  for (const auto& c : containers->as_array()) {
    if (!c.is_object()) continue;
    const auto& requests = objectAt(objectAt(c.as_object(), "resources"), "requests");
    r.cpuMilli += quantityMilli(requests, "cpu");
    r.memory += quantityMilli(requests, "memory") / 1000;
  }
  return r;
}

bool conditionTrue(const json::object& status, std::string_view type) {
  const auto* conditions = status.if_contains("conditions");
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array())
    if (c.is_object() && stringAt(c.as_object(), "type") == type)
      return stringAt(c.as_object(), "status") == "True";
  return false;
}

const json::object* findCondition(const json::object& status, std::string_view type) {
  const auto* conditions = status.if_contains("conditions");
  if (!conditions || !conditions->is_array()) return nullptr;
  for (const auto& c : conditions->as_array())
    if (c.is_object() && stringAt(c.as_object(), "type") == type) return &c.as_object();
  return nullptr;
}

bool terminal(const json::object& pod) {
  const std::string phase = stringAt(objectAt(pod, "status"), "phase");
  return phase == "Succeeded" || phase == "Failed";
}

json::object condition(const char* type, const char* status, const std::string& reason,
                       const std::string& message, const std::string& now) {
  json::object c{
      {"type", type}, {"status", status}, {"lastTransitionTime", now}, {"lastProbeTime", nullptr}};
  if (!reason.empty()) c["reason"] = reason;
  if (!message.empty()) c["message"] = message;
  return c;
}

// What a kubelet waits for before it starts a pod's containers (its own walk of the pod spec, kept
// apart from the operator's interpreter so that each checks the other). Mounts first: while a
// ConfigMap or Secret a volume mounts (directly, projected, or as a CSI driver's secret) or the
// pod's ServiceAccount is missing, nothing starts. Then each init container in turn, then the
// containers: one whose env or envFrom reads a missing ConfigMap or Secret is
// CreateContainerConfigError (`configmap "env" not found`) while the others start. Optional
// references never hold a pod. A missing PersistentVolumeClaim holds the pod too (a real
// scheduler leaves it Pending: "persistentvolumeclaim not found"; claims here are always bound).
struct PodWait {
  bool mounts = false;  // a mounted object (or the ServiceAccount) is missing
  // The first init container that cannot start and why (then the later ones do not run).
  std::string initBlocked, initMessage;
  std::map<std::string, std::string> containerMessages;  // containers that cannot start
  bool waiting() const { return mounts || !initBlocked.empty() || !containerMessages.empty(); }
};

bool isOptional(const json::object& ref) {
  const auto* v = ref.if_contains("optional");
  return v && v->is_bool() && v->as_bool();
}

PodWait podWaitsFor(const Store& store, const json::object& pod) {
  const json::object& spec = objectAt(pod, "spec");
  const std::string ns = stringAt(objectAt(pod, "metadata"), "namespace");
  auto absent = [&](const std::string& resource, const json::object& ref, const char* field) {
    const std::string name = stringAt(ref, field);
    return !name.empty() && !isOptional(ref) && !store.get({resource, ns, name});
  };
  PodWait wait;
  const std::string account = stringAt(spec, "serviceAccountName").empty()
                                  ? stringAt(spec, "serviceAccount")
                                  : stringAt(spec, "serviceAccountName");
  if (!account.empty() && account != "default" && !store.get({kServiceAccounts, ns, account}))
    wait.mounts = true;
  if (const auto* volumes = spec.if_contains("volumes"); volumes && volumes->is_array()) {
    for (const auto& v : volumes->as_array()) {
      if (!v.is_object()) continue;
      const auto& volume = v.as_object();
      wait.mounts =
          wait.mounts || absent(kConfigMaps, objectAt(volume, "configMap"), "name") ||
          absent(kSecrets, objectAt(volume, "secret"), "secretName") ||
          absent(kSecrets, objectAt(objectAt(volume, "csi"), "nodePublishSecretRef"), "name") ||
          absent(kClaims, objectAt(volume, "persistentVolumeClaim"), "claimName");
      const auto* sources = objectAt(volume, "projected").if_contains("sources");
      if (!sources || !sources->is_array()) continue;
      for (const auto& source : sources->as_array()) {
        if (!source.is_object()) continue;
        wait.mounts = wait.mounts ||
                      absent(kConfigMaps, objectAt(source.as_object(), "configMap"), "name") ||
                      absent(kSecrets, objectAt(source.as_object(), "secret"), "name");
      }
    }
  }
  // What a container's env and envFrom read that is missing: the kubelet's message, or "".
  auto envMissing = [&](const json::object& container) -> std::string {
    auto check = [&](const json::object& ref, bool configMap) -> std::string {
      if (!absent(configMap ? kConfigMaps : kSecrets, ref, "name")) return "";
      return std::string(configMap ? "configmap" : "secret") + " \"" + stringAt(ref, "name") +
             "\" not found";
    };
    if (const auto* env = container.if_contains("env"); env && env->is_array()) {
      for (const auto& e : env->as_array()) {
        if (!e.is_object()) continue;
        const auto& from = objectAt(e.as_object(), "valueFrom");
        for (auto message : {check(objectAt(from, "configMapKeyRef"), true),
                             check(objectAt(from, "secretKeyRef"), false)})
          if (!message.empty()) return message;
      }
    }
    if (const auto* envFrom = container.if_contains("envFrom"); envFrom && envFrom->is_array()) {
      for (const auto& e : envFrom->as_array()) {
        if (!e.is_object()) continue;
        for (auto message : {check(objectAt(e.as_object(), "configMapRef"), true),
                             check(objectAt(e.as_object(), "secretRef"), false)})
          if (!message.empty()) return message;
      }
    }
    return "";
  };
  if (wait.mounts) return wait;
  if (const auto* init = spec.if_contains("initContainers"); init && init->is_array()) {
    for (const auto& c : init->as_array()) {
      if (!c.is_object()) continue;
      if (auto message = envMissing(c.as_object()); !message.empty()) {
        wait.initBlocked = stringAt(c.as_object(), "name");
        wait.initMessage = std::move(message);
        return wait;
      }
    }
  }
  if (const auto* containers = spec.if_contains("containers");
      containers && containers->is_array()) {
    for (const auto& c : containers->as_array()) {
      if (!c.is_object()) continue;
      if (auto message = envMissing(c.as_object()); !message.empty())
        wait.containerMessages[stringAt(c.as_object(), "name")] = std::move(message);
    }
  }
  return wait;
}

}  // namespace

BindDecision choosePlacement(const PodRequest& pod, const std::vector<NodeRoom>& nodes) {
  const NodeRoom* best = nullptr;
  std::map<std::string, int> reasons;
  for (const auto& n : nodes) {
    bool fits = true;
    if (!n.ready) {
      ++reasons["node(s) had untolerated taint {node.kubernetes.io/not-ready: }"];
      continue;
    }
    if (n.pods < 1) {
      ++reasons["Too many pods"];
      fits = false;
    }
    if (pod.cpuMilli > n.cpuMilli) {
      ++reasons["Insufficient cpu"];
      fits = false;
    }
    if (pod.memory > n.memory) {
      ++reasons["Insufficient memory"];
      fits = false;
    }
    if (!fits) continue;
    if (!best || n.cpuMilli > best->cpuMilli ||
        (n.cpuMilli == best->cpuMilli &&
         (n.memory > best->memory || (n.memory == best->memory && n.name < best->name))))
      best = &n;
  }
  if (best) return {best->name, ""};
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string message = "0/" + std::to_string(nodes.size()) + " nodes are available";
  for (size_t i = 0; i < parts.size(); ++i) message += (i == 0 ? ": " : ", ") + parts[i];
  return {"", message + "."};
}

std::string podTemplateHash(const json::object& podTemplate) {
  // FNV-1a over the canonical JSON, rendered like kube's hashes (digits and consonants).
  uint32_t h = 2166136261u;
  for (unsigned char c : json::serialize(podTemplate)) {
    h ^= c;
    h *= 16777619u;
  }
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (int i = 0; i < 10; ++i) {
    out += kAlphabet[h % (sizeof kAlphabet - 1)];
    h /= (sizeof kAlphabet - 1);
    if (h == 0) break;
  }
  return out;
}

MemberController::MemberController(Store& store, MemberOptions options,
                                   std::function<api::Clock::time_point()> now)
    : store_(store), options_(options), now_(std::move(now)) {}

MemberController::~MemberController() { stop(); }

namespace {
// Hands the store's events to the controller (on the store's commit thread).
class Wake final : public EventSink {
 public:
  explicit Wake(std::function<void(const StoredEvent&)> note) : note_(std::move(note)) {}
  void deliver(const EventPtr& event) override { note_(*event); }

 private:
  std::function<void(const StoredEvent&)> note_;
};

std::string keyOf(const std::string& ns, const std::string& name) { return ns + "/" + name; }

ObjectKey objectKey(const std::string& resource, const std::string& key) {
  const auto slash = key.find('/');
  return {resource, key.substr(0, slash), key.substr(slash + 1)};
}

// The owners an object names: their uids, and their keys in the object's namespace.
void ownersOf(const json::object& o, const std::string& ns, std::vector<std::string>& uids,
              std::vector<std::string>& keys) {
  const auto* refs = objectAt(o, "metadata").if_contains("ownerReferences");
  if (!refs || !refs->is_array()) return;
  for (const auto& r : refs->as_array()) {
    if (!r.is_object()) continue;
    std::string uid = stringAt(r.as_object(), "uid");
    if (std::find(uids.begin(), uids.end(), uid) != uids.end()) continue;  // named twice
    uids.push_back(std::move(uid));
    keys.push_back(keyOf(ns, stringAt(r.as_object(), "name")));
  }
}
}  // namespace

void MemberController::noteEvent(const StoredEvent& event) {
  delivered_ = event.resourceVersion;
  const std::string& r = event.resource;
  const bool workload = r == "apps/statefulsets" || r == "apps/daemonsets" || r == "batch/jobs" ||
                        r == "batch/cronjobs" || r == "autoscaling/horizontalpodautoscalers";
  // What a waiting pod reads may have appeared (only then: a member holds many ConfigMaps).
  const bool awaited = podsBlocked_ && (r == kConfigMaps || r == kSecrets ||
                                        r == kServiceAccounts || r == kClaims);
  const bool tracked =
      r == kDeployments || r == kReplicaSets || r == kPods || r == kNodes || r == kServices;
  if (!tracked && !workload && !awaited) return;
  const std::string key = keyOf(event.namespace_, meta(event.object, "name"));
  std::lock_guard lock(mutex_);
  if (r == kDeployments) changes_.deployments.insert(key);
  if (r == kReplicaSets) changes_.replicaSets.insert(key);
  if (r == kPods) changes_.pods.insert(key);
  if (r == kServices) changes_.services.insert(key);
  if (r == kNodes) changes_.nodes = true;
  dirty_ = true;
  wake_.notify_one();
}

void MemberController::start() {
  auto sink = std::make_shared<Wake>([this](const StoredEvent& e) { noteEvent(e); });
  auto subscribed = store_.subscribe(0, sink);
  subscription_ = subscribed ? *subscribed : 0;
  thread_ = std::thread([this] { loop(); });
}

void MemberController::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
  if (subscription_) store_.unsubscribe(subscription_);
}

void MemberController::loop() {
  std::unique_lock lock(mutex_);
  auto lastPass = std::chrono::steady_clock::now() - options_.minPassInterval;
  std::chrono::steady_clock::duration lastPassTook{};
  while (!stopping_) {
    // Only a change, or a moment a pass asked for, starts a pass: the next pod due to turn Ready,
    // a Job's pod due to end, a CronJob due to run (PassClock).
    const int64_t due = dueAt_.load();
    if (due > 0) {
      const int64_t nowMs =
          std::chrono::duration_cast<std::chrono::milliseconds>(now_().time_since_epoch()).count();
      wake_.wait_for(lock, std::chrono::milliseconds(std::max<int64_t>(20, due - nowMs)),
                     [&] { return dirty_ || stopping_; });
    } else {
      wake_.wait(lock, [&] { return dirty_ || stopping_; });
    }
    if (stopping_) break;
    // Passes start at least minPassInterval (and ten pass-lengths) apart: under a stream of
    // changes one pass takes in every change of the interval, as a work queue batches.
    wake_.wait_until(lock,
                     lastPass + std::max<std::chrono::steady_clock::duration>(
                                    options_.minPassInterval, 10 * lastPassTook),
                     [&] { return stopping_; });
    if (stopping_) break;
    lastPass = std::chrono::steady_clock::now();
    dirty_ = false;
    Changes changes = std::move(changes_);
    changes_ = Changes{};
    passing_ = true;
    ++passes_;
    lock.unlock();
    pass(std::move(changes));
    lock.lock();
    passing_ = false;
    lastPassTook = std::chrono::steady_clock::now() - lastPass;
  }
}

int MemberController::reconcile() { return pass(Changes{.all = true}); }

bool MemberController::settled() {
  uint64_t passes = 0;
  {
    std::lock_guard lock(mutex_);
    if (dirty_ || passing_ || dueAt_ > 0) return false;
    passes = passes_;
  }
  // (Read between the two looks, not under mutex_: the store delivers events under its own lock
  // and then takes mutex_.) A pass that ended before the first look wrote before this version.
  const int64_t version = store_.resourceVersion();
  std::lock_guard lock(mutex_);
  return !dirty_ && !passing_ && dueAt_ == 0 && passes_ == passes && delivered_ >= version;
}

std::vector<std::string> MemberController::note(const std::string& resource,
                                                const std::string& key, Owners& owners,
                                                Children& children,
                                                std::shared_ptr<const json::object>* object) {
  auto current = store_.getShared(objectKey(resource, key));
  std::vector<std::string> touched;  // the owners before and after
  if (auto it = owners.find(key); it != owners.end()) {
    for (const auto& uid : it->second.uids) {
      if (auto c = children.find(uid); c != children.end()) {
        c->second.erase(key);
        if (c->second.empty()) children.erase(c);
      }
    }
    touched = std::move(it->second.keys);
    owners.erase(it);
  }
  if (current) {
    OwnedBy by;
    ownersOf(*current, objectKey(resource, key).namespace_, by.uids, by.keys);
    for (const auto& uid : by.uids) children[uid].insert(key);
    touched.insert(touched.end(), by.keys.begin(), by.keys.end());
    if (!by.uids.empty()) owners.emplace(key, std::move(by));
  }
  if (object) *object = std::move(current);
  return touched;
}

void MemberController::notePod(const std::string& key, std::set<std::string>& ownerSets) {
  std::shared_ptr<const json::object> pod;
  for (auto& owner : note(kPods, key, podOwners_, podsOf_, &pod)) ownerSets.insert(std::move(owner));
  unbound_.erase(key);
  starting_.erase(key);
  // What it takes of its node: a bound pod's requests count until it ends or is gone.
  if (auto it = podUse_.find(key); it != podUse_.end()) {
    NodeUse& used = nodeUse_[it->second.node];
    used.request.cpuMilli -= it->second.request.cpuMilli;
    used.request.memory -= it->second.request.memory;
    used.pods -= 1;
    podUse_.erase(it);
  }
  if (pod && !terminal(*pod)) {
    std::string node = stringAt(objectAt(*pod, "spec"), "nodeName");
    if (!node.empty()) {
      const PodRequest request = podRequest(*pod);
      NodeUse& used = nodeUse_[node];
      used.request.cpuMilli += request.cpuMilli;
      used.request.memory += request.memory;
      used.pods += 1;
      podUse_.emplace(key, PodUse{std::move(node), request});
    }
  }
  if (!pod || !meta(*pod, "deletionTimestamp").empty() || terminal(*pod)) return;
  if (stringAt(objectAt(*pod, "spec"), "nodeName").empty())
    unbound_.insert(key);
  else if (stringAt(objectAt(*pod, "status"), "phase") == "Pending")
    starting_.insert(key);
}

int MemberController::pass(Changes changes) {
  int writes = 0;
  PassClock clock{now_()};
  Work work;
  if (changes.all) {
    // Everything, and the owner index rebuilt from what is stored.
    setsOf_.clear(), podsOf_.clear(), setOwners_.clear(), podOwners_.clear();
    unbound_.clear(), starting_.clear(), podUse_.clear(), nodeUse_.clear();
    deploymentMemo_.clear(), replicaSetMemo_.clear(), retryDeployments_.clear();
    for (const auto& d : store_.listShared(kDeployments, ""))
      work.deployments.insert(keyOf(meta(*d, "namespace"), meta(*d, "name")));
    for (const auto& rs : store_.listShared(kReplicaSets, ""))
      changes.replicaSets.insert(keyOf(meta(*rs, "namespace"), meta(*rs, "name")));
    for (const auto& p : store_.listShared(kPods, ""))
      changes.pods.insert(keyOf(meta(*p, "namespace"), meta(*p, "name")));
    for (const auto& svc : store_.listShared(kServices, ""))
      changes.services.insert(keyOf(meta(*svc, "namespace"), meta(*svc, "name")));
    changes.nodes = true;
  }
  // A changed ReplicaSet is looked at, and so is its Deployment; a changed pod's ReplicaSet too.
  work.bind = changes.nodes || !changes.pods.empty();
  for (const auto& key : changes.pods) notePod(key, changes.replicaSets);
  for (const auto& key : changes.replicaSets)
    for (auto& owner : note(kReplicaSets, key, setOwners_, setsOf_, nullptr))
      work.deployments.insert(std::move(owner));
  work.replicaSets = std::move(changes.replicaSets);
  work.deployments.insert(changes.deployments.begin(), changes.deployments.end());
  work.deployments.insert(retryDeployments_.begin(), retryDeployments_.end());

  writes += reconcileDeployments(work);
  writes += reconcileReplicaSets(work);
  writes += bindPods(work);
  writes += runPods(clock, work);
  // Statuses after binding and readiness: the ReplicaSets of the pods this pass changed, then
  // the Deployments of the ReplicaSets.
  work.replicaSets.insert(work.podOwners.begin(), work.podOwners.end());
  writes += reconcileReplicaSets(work);
  for (const auto& key : work.replicaSets)
    if (auto it = setOwners_.find(key); it != setOwners_.end())
      work.deployments.insert(it->second.keys.begin(), it->second.keys.end());
  writes += reconcileDeployments(work);
  writes += assignLoadBalancers(changes.services);
  // The workload controllers: HPAs first (they change replicas), CronJobs after Jobs (their
  // history and active list see the Jobs that just ended; a new Job's write wakes the next pass),
  // then the pod binder and kubelet again for their pods.
  int workloads = 0;
  workloads += hpas_.reconcile(clock);
  workloads += jobs_.reconcile(clock);
  workloads += cronJobs_.reconcile(clock);
  workloads += statefulSets_.reconcile(clock);
  workloads += daemonSets_.reconcile(clock);
  if (workloads > 0) {
    // (The pods they created in this pass have not been noted yet, their events come later:
    // every pod is looked at once more.)
    for (const auto& p : store_.listShared(kPods, ""))
      notePod(keyOf(meta(*p, "namespace"), meta(*p, "name")), work.podOwners);
    work.bind = true;
    workloads += bindPods(work);
    workloads += runPods(clock, work);
  }
  dueAt_ = clock.due == api::Clock::time_point::max()
               ? 0
               : std::chrono::duration_cast<std::chrono::milliseconds>(clock.due.time_since_epoch())
                     .count();
  return writes + workloads;
}

// A cloud's load-balancer controller (or MetalLB): a LoadBalancer Service gets one ingress IP,
// from TEST-NET-2, derived from its uid (each member's Service has its own).
int MemberController::assignLoadBalancers(const std::set<std::string>& keys) {
  int writes = 0;
  for (const auto& key : keys) {
    const auto shared = store_.getShared(objectKey(kServices, key));
    if (!shared) continue;
    const json::object& svc = *shared;
    if (!meta(svc, "deletionTimestamp").empty()) continue;
    if (stringAt(objectAt(svc, "spec"), "type") != "LoadBalancer") continue;
    const auto& lb = objectAt(objectAt(svc, "status"), "loadBalancer");
    if (const auto* ingress = lb.if_contains("ingress");
        ingress && ingress->is_array() && !ingress->as_array().empty())
      continue;
    uint32_t h = 2166136261u;
    for (unsigned char c : meta(svc, "uid")) h = (h ^ c) * 16777619u;
    json::object next = svc;
    next["status"] = json::object{
        {"loadBalancer",
         json::object{{"ingress",
                       json::array{json::object{{"ip", "198.51.100." + std::to_string(h % 254 + 1)},
                                                {"ipMode", "VIP"}}}}}}};
    if (store_.update({kServices, meta(svc, "namespace"), meta(svc, "name")}, next, version(svc)))
      ++writes;
  }
  return writes;
}

// The objects stored under `keys` (those still there).
MemberController::Shared MemberController::fetch(const std::string& resource, const std::set<std::string>& keys) const {
  Shared out;
  out.reserve(keys.size());
  for (const auto& key : keys)
    if (auto o = store_.getShared(objectKey(resource, key))) out.push_back(std::move(o));
  return out;
}

int MemberController::reconcileDeployments(Work& work) {
  int writes = 0;
  const std::string now = api::formatRfc3339(now_());
  for (const auto& key : work.deployments) {
    retryDeployments_.erase(key);
    const auto shared = store_.getShared(objectKey(kDeployments, key));
    if (!shared || !meta(*shared, "deletionTimestamp").empty()) {
      deploymentMemo_.erase(key);
      continue;
    }
    ++examined_;
    const json::object& d = *shared;
    const std::string ns = meta(d, "namespace");
    const std::string name = meta(d, "name");
    const std::string uid = meta(d, "uid");
    const auto children = setsOf_.find(uid);
    const Shared owned = children == setsOf_.end() ? Shared{} : fetch(kReplicaSets, children->second);
    std::vector<const json::object*> sets;
    for (const auto& rs : owned) sets.push_back(rs.get());
    // Neither it nor its ReplicaSets changed since a pass that found nothing to do: skip it.
    std::string signature = meta(d, "resourceVersion");
    for (const json::object* rs : sets) signature += "," + meta(*rs, "resourceVersion");
    if (auto it = deploymentMemo_.find(key);
        it != deploymentMemo_.end() && it->second == signature)
      continue;
    deploymentMemo_.erase(key);
    const int before = writes;
    const auto& spec = objectAt(d, "spec");
    const int64_t desired = intAt(spec, "replicas", 1);
    json::object podTemplate = objectAt(spec, "template");
    const std::string hash = podTemplateHash(podTemplate);
    const json::object* current = nullptr;
    int64_t revision = 0;
    for (const json::object* set : sets) {
      const json::object& rs = *set;
      const auto& labels = objectAt(objectAt(rs, "metadata"), "labels");
      if (stringAt(labels, "pod-template-hash") == hash) current = &rs;
      try {
        revision = std::max<int64_t>(
            revision, std::stoll(stringAt(objectAt(objectAt(rs, "metadata"), "annotations"),
                                          "deployment.kubernetes.io/revision")));
      } catch (const std::exception&) {
      }
    }
    if (!current) {
      json::object labels = objectAt(objectAt(podTemplate, "metadata"), "labels");
      labels["pod-template-hash"] = hash;
      json::object templateWithHash = podTemplate;
      auto& tm = templateWithHash["metadata"];
      if (!tm.is_object()) tm = json::object{};
      tm.as_object()["labels"] = labels;
      json::object selector = objectAt(spec, "selector");
      json::object matchLabels = objectAt(selector, "matchLabels");
      matchLabels["pod-template-hash"] = hash;
      selector["matchLabels"] = matchLabels;
      const std::string rsName = name + "-" + hash;
      json::object rs{
          {"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata",
           json::object{{"name", rsName},
                        {"namespace", ns},
                        {"uid", newUid()},
                        {"creationTimestamp", now},
                        {"generation", 1},
                        {"labels", labels},
                        {"annotations", json::object{{"deployment.kubernetes.io/revision",
                                                      std::to_string(revision + 1)},
                                                     {"deployment.kubernetes.io/desired-replicas",
                                                      std::to_string(desired)}}},
                        {"ownerReferences", json::array{ownerReference(d, "Deployment")}}}},
          {"spec",
           json::object{
               {"replicas", desired}, {"selector", selector}, {"template", templateWithHash}}},
          {"status", json::object{{"replicas", 0}}}};
      applyDefaults("apps", "replicasets", rs);  // as the API server would default it
      if (store_.create({kReplicaSets, ns, rsName}, rs)) {
        ++writes;
        // Its pods come in this pass (the ReplicaSets are looked at next).
        note(kReplicaSets, keyOf(ns, rsName), setOwners_, setsOf_, nullptr);
        work.replicaSets.insert(keyOf(ns, rsName));
      } else {
        // (A ReplicaSet of that name that it does not own, say: no event of its own may bring
        // the Deployment back, so every pass tries again, as a work queue's retry would.)
        retryDeployments_.insert(key);
      }
      continue;  // the next pass sees it
    }
    // Rolling replacement: the new ReplicaSet runs the desired count; old ones shrink as the new
    // one's pods become available.
    const int64_t newAvailable = intAt(objectAt(*current, "status"), "availableReplicas", 0);
    int64_t oldBudget = std::max<int64_t>(0, desired - newAvailable);
    int64_t replicas = 0, updated = 0, ready = 0, available = 0;
    for (const json::object* set : sets) {
      const json::object& rs = *set;
      const bool isNew = &rs == current;
      const int64_t want =
          isNew ? desired : std::min(oldBudget, intAt(objectAt(rs, "spec"), "replicas", 0));
      if (!isNew) oldBudget -= want;
      if (intAt(objectAt(rs, "spec"), "replicas", -1) != want) {
        json::object next = rs;
        next["spec"].as_object()["replicas"] = want;
        auto& meta = next["metadata"].as_object();
        meta["generation"] = intAt(meta, "generation", 1) + 1;
        const std::string rsKey = keyOf(ns, meta.at("name").as_string().c_str());
        if (store_.update(objectKey(kReplicaSets, rsKey), next, version(rs))) {
          ++writes;
          work.replicaSets.insert(rsKey);  // its pods follow in this pass
        }
      }
      const auto& st = objectAt(rs, "status");
      replicas += intAt(st, "replicas", 0);
      ready += intAt(st, "readyReplicas", 0);
      available += intAt(st, "availableReplicas", 0);
      if (isNew) updated = intAt(st, "replicas", 0);
    }
    const int64_t maxUnavailable = desired / 4;  // RollingUpdate default: 25%, rounded down
    const bool isAvailable = available >= desired - maxUnavailable;
    const bool complete = updated == desired && available == desired && replicas == desired;
    const auto& oldStatus = objectAt(d, "status");
    auto keepTime = [&](const char* type, const char* status) {
      const json::object* c = findCondition(oldStatus, type);
      return c && stringAt(*c, "status") == status ? stringAt(*c, "lastTransitionTime") : now;
    };
    json::object available_c =
        condition("Available", isAvailable ? "True" : "False",
                  isAvailable ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                  isAvailable ? "Deployment has minimum availability."
                              : "Deployment does not have minimum availability.",
                  keepTime("Available", isAvailable ? "True" : "False"));
    json::object progressing =
        condition("Progressing", "True", complete ? "NewReplicaSetAvailable" : "ReplicaSetUpdated",
                  "ReplicaSet \"" + meta(*current, "name") + "\" " +
                      (complete ? "has successfully progressed." : "is progressing."),
                  keepTime("Progressing", "True"));
    available_c.erase("lastProbeTime");
    progressing.erase("lastProbeTime");
    // (Copied first: inserting a key may move the object's storage, and the source with it.)
    json::value availableSince = available_c.at("lastTransitionTime");
    available_c["lastUpdateTime"] = std::move(availableSince);
    json::value progressingSince = progressing.at("lastTransitionTime");
    progressing["lastUpdateTime"] = std::move(progressingSince);
    json::object status{{"observedGeneration", intAt(objectAt(d, "metadata"), "generation", 1)},
                        {"replicas", replicas},
                        {"updatedReplicas", updated},
                        {"readyReplicas", ready},
                        {"availableReplicas", available},
                        {"conditions", json::array{available_c, progressing}}};
    if (desired - available > 0) status["unavailableReplicas"] = desired - available;
    // Compare without timestamps: a status equal in substance is not rewritten.
    auto substance = [](json::object s) {
      if (auto* c = s.if_contains("conditions"); c && c->is_array())
        for (auto& x : c->as_array()) {
          x.as_object().erase("lastTransitionTime");
          x.as_object().erase("lastUpdateTime");
        }
      return s;
    };
    if (substance(status) != substance(oldStatus)) {
      json::object next = d;
      next["status"] = std::move(status);
      if (store_.update({kDeployments, ns, name}, next, version(d))) ++writes;
    }
    if (writes == before) deploymentMemo_[key] = std::move(signature);
  }
  return writes;
}

int MemberController::reconcileReplicaSets(Work& work) {
  int writes = 0;
  const std::string now = api::formatRfc3339(now_());
  for (const auto& key : work.replicaSets) {
    const auto shared = store_.getShared(objectKey(kReplicaSets, key));
    if (!shared || !meta(*shared, "deletionTimestamp").empty()) {
      replicaSetMemo_.erase(key);
      continue;
    }
    ++examined_;
    const json::object& rs = *shared;
    const std::string ns = meta(rs, "namespace");
    const std::string uid = meta(rs, "uid");
    const auto& spec = objectAt(rs, "spec");
    const int64_t desired = intAt(spec, "replicas", 1);
    const auto children = podsOf_.find(uid);
    const Shared owned = children == podsOf_.end() ? Shared{} : fetch(kPods, children->second);
    std::vector<const json::object*> pods;
    for (const auto& p : owned)
      if (meta(*p, "deletionTimestamp").empty() && !terminal(*p)) pods.push_back(p.get());
    // Neither it nor its pods changed since a pass that found nothing to do: skip it.
    std::string signature = meta(rs, "resourceVersion");
    for (const json::object* p : pods) signature += "," + meta(*p, "resourceVersion");
    if (auto it = replicaSetMemo_.find(key);
        it != replicaSetMemo_.end() && it->second == signature)
      continue;
    replicaSetMemo_.erase(key);
    const int before = writes;
    int64_t count = static_cast<int64_t>(pods.size());
    int64_t created = 0;
    for (; count < desired; ++count) {
      const auto& podTemplate = objectAt(spec, "template");
      const std::string podName = meta(rs, "name") + "-" + randomNameSuffix();
      json::object pod{
          {"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           json::object{{"name", podName},
                        {"generateName", meta(rs, "name") + "-"},
                        {"namespace", ns},
                        {"uid", newUid()},
                        {"creationTimestamp", now},
                        {"labels", objectAt(objectAt(podTemplate, "metadata"), "labels")},
                        {"ownerReferences", json::array{ownerReference(rs, "ReplicaSet")}}}},
          {"spec", objectAt(podTemplate, "spec")}};
      // What the API server does to a pod the ReplicaSet controller creates: defaults, the
      // built-in admission plugins, then PrepareForCreate's status.
      applyDefaults("", "pods", pod);
      admitPod(pod, nullptr);
      pod["status"] = json::object{{"phase", "Pending"}, {"qosClass", podQosClass(pod)}};
      if (store_.create({kPods, ns, podName}, pod)) {
        ++writes;
        ++created;
        notePod(keyOf(ns, podName), work.podOwners);  // bound in this pass
        work.bind = true;
      }
    }
    if (count > desired) {
      // Scale down: unscheduled pods first, then pods not ready, then the newest.
      std::sort(pods.begin(), pods.end(), [](const json::object* a, const json::object* b) {
        auto rank = [](const json::object& p) {
          if (stringAt(objectAt(p, "spec"), "nodeName").empty()) return 0;
          return conditionTrue(objectAt(p, "status"), "Ready") ? 2 : 1;
        };
        if (rank(*a) != rank(*b)) return rank(*a) < rank(*b);
        return meta(*a, "creationTimestamp") > meta(*b, "creationTimestamp");
      });
      size_t removed = 0;
      for (; count > desired && removed < pods.size(); ++removed, --count) {
        // A pod already gone (a client deleted it meanwhile) is gone either way.
        const std::string podName = meta(*pods[removed], "name");
        if (store_.remove({kPods, ns, podName}, std::nullopt)) ++writes;
        notePod(keyOf(ns, podName), work.podOwners);
      }
      pods.erase(pods.begin(), pods.begin() + static_cast<std::ptrdiff_t>(removed));
    }
    // Status from the pods as they are now: the listed ones left, and the new ones (Pending, so
    // not ready). A change made meanwhile by a client wakes the next pass.
    const auto replicas = static_cast<int64_t>(pods.size()) + created;
    int64_t ready = 0;
    for (const json::object* p : pods)
      ready += conditionTrue(objectAt(*p, "status"), "Ready") ? 1 : 0;
    json::object status{{"replicas", replicas},
                        {"fullyLabeledReplicas", replicas},
                        {"readyReplicas", ready},
                        {"availableReplicas", ready},
                        {"observedGeneration", intAt(objectAt(rs, "metadata"), "generation", 1)}};
    if (status != objectAt(rs, "status")) {
      auto fresh = store_.get({kReplicaSets, ns, meta(rs, "name")});
      if (fresh) {
        json::object next = *fresh;
        next["status"] = std::move(status);
        if (store_.update({kReplicaSets, ns, meta(rs, "name")}, next, version(*fresh))) ++writes;
      }
    }
    if (writes == before) replicaSetMemo_[key] = std::move(signature);
  }
  return writes;
}

int MemberController::bindPods(Work& work) {
  int writes = 0;
  // The nodes' room is worked out only when a pod needs it, and only when the pods or nodes
  // changed (a pod that found no room finds none again until then).
  if (unbound_.empty() || !work.bind) return 0;
  const Shared nodesListed = store_.listShared(kNodes, "");
  if (nodesListed.empty()) return 0;
  std::vector<NodeRoom> rooms;
  std::map<std::string, size_t> index;
  for (const auto& node : nodesListed) {
    const json::object& n = *node;
    const auto& status = objectAt(n, "status");
    const auto& allocatable = objectAt(status, "allocatable");
    NodeRoom room;
    room.name = meta(n, "name");
    const json::object* ready = findCondition(status, "Ready");
    room.ready = !ready || stringAt(*ready, "status") == "True";
    // Allocatable minus what the bound pods request (kept by notePod as pods change).
    const NodeUse& used = nodeUse_[room.name];
    room.cpuMilli = quantityMilli(allocatable, "cpu") - used.request.cpuMilli;
    room.memory = quantityMilli(allocatable, "memory") / 1000 - used.request.memory;
    room.pods = quantityMilli(allocatable, "pods") / 1000 - used.pods;
    index[room.name] = rooms.size();
    rooms.push_back(room);
  }
  const Shared pods = fetch(kPods, unbound_);
  std::vector<const json::object*> unbound;
  for (const auto& pod : pods) {
    // (As they are now: a client may have bound or deleted one since it was noted.)
    const json::object& p = *pod;
    if (stringAt(objectAt(p, "spec"), "nodeName").empty() && meta(p, "deletionTimestamp").empty() &&
        !terminal(p))
      unbound.push_back(&p);
  }
  std::sort(unbound.begin(), unbound.end(), [](const json::object* a, const json::object* b) {
    if (meta(*a, "creationTimestamp") != meta(*b, "creationTimestamp"))
      return meta(*a, "creationTimestamp") < meta(*b, "creationTimestamp");
    return meta(*a, "name") < meta(*b, "name");
  });
  const std::string now = api::formatRfc3339(now_());
  for (const json::object* p : unbound) {
    const PodRequest r = podRequest(*p);
    const BindDecision decision = choosePlacement(r, rooms);
    json::object next = *p;
    auto& status = next["status"];
    if (!status.is_object()) status = json::object{};
    if (!decision.node.empty()) {
      auto& room = rooms[index[decision.node]];
      room.cpuMilli -= r.cpuMilli;
      room.memory -= r.memory;
      room.pods -= 1;
      next["spec"].as_object()["nodeName"] = decision.node;
      status.as_object()["conditions"] =
          json::array{condition("PodScheduled", "True", "", "", now)};
    } else {
      const json::object* existing = findCondition(objectAt(*p, "status"), "PodScheduled");
      if (existing && stringAt(*existing, "reason") == "Unschedulable" &&
          stringAt(*existing, "message") == decision.message)
        continue;  // already says so
      status.as_object()["phase"] = "Pending";
      status.as_object()["conditions"] =
          json::array{condition("PodScheduled", "False", "Unschedulable", decision.message, now)};
    }
    if (store_.update({kPods, meta(*p, "namespace"), meta(*p, "name")}, next, version(*p))) {
      ++writes;
      notePod(keyOf(meta(*p, "namespace"), meta(*p, "name")), work.podOwners);
    }
  }
  return writes;
}

int MemberController::runPods(PassClock& clock, Work& work) {
  int writes = 0;
  podsBlocked_ = false;
  // Now, not the pass's start: the binder just stamped PodScheduled, and a pod whose delay is up
  // starts in this pass.
  const auto now = now_();
  const std::string nowText = api::formatRfc3339(now);
  // The bound pods still Pending (what a kubelet starts), not every pod.
  const std::vector<std::string> starting(starting_.begin(), starting_.end());
  for (const auto& key : starting) {
    const auto pod = store_.getShared(objectKey(kPods, key));
    if (!pod) continue;
    const json::object& p = *pod;
    const auto& status = objectAt(p, "status");
    const std::string node = stringAt(objectAt(p, "spec"), "nodeName");
    if (node.empty() || stringAt(status, "phase") != "Pending" ||
        !meta(p, "deletionTimestamp").empty())
      continue;
    const json::object* scheduled = findCondition(status, "PodScheduled");
    if (!scheduled || stringAt(*scheduled, "status") != "True") continue;
    auto at = api::parseRfc3339(stringAt(*scheduled, "lastTransitionTime"));
    if (at && now - *at < options_.readyDelay) {
      clock.wakeAt(*at + options_.readyDelay);  // the pass that makes it Ready
      continue;
    }
    if (const auto wait = podWaitsFor(store_, p); wait.waiting()) {
      // Pending, said once (a pass that finds the same states writes nothing); the awaited
      // object's creation wakes the next pass (podsBlocked_).
      podsBlocked_ = true;
      const std::string startTime =
          stringAt(status, "startTime").empty() ? nowText : stringAt(status, "startTime");
      auto waitingState = [](const std::string& reason, const std::string& message) {
        json::object w{{"reason", reason}};
        if (!message.empty()) w["message"] = message;
        return json::object{{"waiting", std::move(w)}};
      };
      auto entry = [](const json::object& c, json::object state, bool running) {
        return json::object{{"name", stringAt(c, "name")},
                            {"image", stringAt(c, "image")},
                            {"ready", running},
                            {"started", running},
                            {"restartCount", 0},
                            {"state", std::move(state)}};
      };
      const auto* init = objectAt(p, "spec").if_contains("initContainers");
      const bool hasInit = init && init->is_array() && !init->as_array().empty();
      // Init containers: before the blocked one, completed; it, waiting; after it, not started.
      json::array initStatuses;
      std::string initPending;
      bool initDone = !wait.mounts && wait.initBlocked.empty();
      if (hasInit) {
        bool before = !wait.mounts;
        for (const auto& c : init->as_array()) {
          if (!c.is_object()) continue;
          const std::string name = stringAt(c.as_object(), "name");
          if (before && name == wait.initBlocked) before = false;
          json::object state =
              before ? json::object{{"terminated", json::object{{"exitCode", 0},
                                                                {"reason", "Completed"},
                                                                {"startedAt", startTime},
                                                                {"finishedAt", startTime}}}}
              : name == wait.initBlocked
                  ? waitingState("CreateContainerConfigError", wait.initMessage)
                  : waitingState("PodInitializing", "");
          if (!before) initPending += (initPending.empty() ? "" : " ") + name;
          initStatuses.push_back(entry(c.as_object(), std::move(state), false));
        }
      }
      json::array statuses;
      std::string unready;
      if (const auto* containers = objectAt(p, "spec").if_contains("containers");
          containers && containers->is_array()) {
        for (const auto& c : containers->as_array()) {
          if (!c.is_object()) continue;
          const std::string name = stringAt(c.as_object(), "name");
          const auto blocked = wait.containerMessages.find(name);
          const bool running = initDone && blocked == wait.containerMessages.end();
          json::object state =
              running     ? json::object{{"running", json::object{{"startedAt", startTime}}}}
              : !initDone ? waitingState(hasInit ? "PodInitializing" : "ContainerCreating", "")
                          : waitingState("CreateContainerConfigError", blocked->second);
          if (!running) unready += (unready.empty() ? "" : " ") + name;
          statuses.push_back(entry(c.as_object(), std::move(state), running));
        }
      }
      if (const auto* current = status.if_contains("containerStatuses");
          current && *current == json::value(statuses)) {
        const auto* currentInit = status.if_contains("initContainerStatuses");
        if (initStatuses.empty() ? !currentInit : currentInit && *currentInit == initStatuses)
          continue;
      }
      const std::string notReady = "containers with unready status: [" + unready + "]";
      json::array conditions{
          initDone ? condition("Initialized", "True", "", "", nowText)
                   : condition("Initialized", "False", "ContainersNotInitialized",
                               "containers with incomplete status: [" + initPending + "]", nowText),
          condition("Ready", "False", "ContainersNotReady", notReady, nowText),
          condition("ContainersReady", "False", "ContainersNotReady", notReady, nowText),
          *scheduled};
      json::object next = p;
      json::object waitingStatus{
          {"phase", "Pending"},
          {"qosClass",
           stringAt(status, "qosClass").empty() ? podQosClass(p) : stringAt(status, "qosClass")},
          {"startTime", startTime},
          {"hostIP", "10.0.0.1"},
          {"conditions", std::move(conditions)},
          {"containerStatuses", std::move(statuses)}};
      if (!initStatuses.empty()) waitingStatus["initContainerStatuses"] = std::move(initStatuses);
      next["status"] = std::move(waitingStatus);
      if (store_.update({kPods, meta(p, "namespace"), meta(p, "name")}, next, version(p))) {
        ++writes;
        notePod(key, work.podOwners);
      }
      continue;
    }
    json::object next = p;
    json::array containerStatuses;
    if (const auto* containers = objectAt(p, "spec").if_contains("containers");
        containers && containers->is_array()) {
      for (const auto& c : containers->as_array()) {
        if (!c.is_object()) continue;
        containerStatuses.push_back(json::object{
            {"name", stringAt(c.as_object(), "name")},
            {"image", stringAt(c.as_object(), "image")},
            {"ready", true},
            {"started", true},
            {"restartCount", 0},
            {"state", json::object{{"running", json::object{{"startedAt", nowText}}}}}});
      }
    }
    const std::string podIP =
        "10.244.0." + std::to_string(1 + (std::hash<std::string>{}(meta(p, "name")) % 250));
    json::object newStatus{
        {"phase", "Running"},
        {"qosClass",
         stringAt(status, "qosClass").empty() ? podQosClass(p) : stringAt(status, "qosClass")},
        {"startTime", nowText},
        {"hostIP", "10.0.0.1"},
        {"podIP", podIP},
        {"podIPs", json::array{json::object{{"ip", podIP}}}},
        {"conditions",
         json::array{condition("Initialized", "True", "", "", nowText),
                     condition("Ready", "True", "", "", nowText),
                     condition("ContainersReady", "True", "", "", nowText), *scheduled}},
        {"containerStatuses", std::move(containerStatuses)}};
    next["status"] = std::move(newStatus);
    if (store_.update({kPods, meta(p, "namespace"), meta(p, "name")}, next, version(p))) {
      ++writes;
      notePod(key, work.podOwners);
    }
  }
  return writes;
}

}  // namespace flotilla::sim
