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

// Objects by the uid of every owner they name, in the owner's namespace (what ownedBy() tests
// one by one): built once per pass, so a pass is linear in the objects, not owners x objects.
using OwnerIndex = std::map<std::pair<std::string, std::string>, std::vector<const json::object*>>;

using Shared = std::vector<std::shared_ptr<const json::object>>;

OwnerIndex indexByOwner(const Shared& items, const std::function<bool(const json::object&)>& keep) {
  OwnerIndex index;
  for (const auto& shared : items) {
    const json::object& o = *shared;
    if (!keep(o)) continue;
    const auto* refs = objectAt(o, "metadata").if_contains("ownerReferences");
    if (!refs || !refs->is_array()) continue;
    const std::string ns = meta(o, "namespace");
    std::vector<std::string> seen;  // an owner named twice (malformed) owns it once
    for (const auto& r : refs->as_array()) {
      if (!r.is_object()) continue;
      std::string uid = stringAt(r.as_object(), "uid");
      if (std::find(seen.begin(), seen.end(), uid) != seen.end()) continue;
      index[{ns, uid}].push_back(&o);
      seen.push_back(std::move(uid));
    }
  }
  return index;
}

const std::vector<const json::object*>& owned(const OwnerIndex& index, const std::string& ns,
                                              const std::string& uid) {
  static const std::vector<const json::object*> kNone;
  auto it = index.find({ns, uid});
  return it == index.end() ? kNone : it->second;
}

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
class Wake final : public EventSink {
 public:
  Wake(std::function<void()> poke, const std::atomic<bool>& podsBlocked)
      : poke_(std::move(poke)), podsBlocked_(podsBlocked) {}
  void deliver(const EventPtr& event) override {
    if (event->resource == kDeployments || event->resource == kReplicaSets ||
        event->resource == kPods || event->resource == kNodes || event->resource == kServices ||
        event->resource == "apps/statefulsets" || event->resource == "apps/daemonsets" ||
        event->resource == "batch/jobs" || event->resource == "batch/cronjobs" ||
        event->resource == "autoscaling/horizontalpodautoscalers")
      poke_();
    // What a waiting pod reads may have appeared (only then: a member holds many ConfigMaps).
    else if (podsBlocked_ && (event->resource == kConfigMaps || event->resource == kSecrets ||
                              event->resource == kServiceAccounts || event->resource == kClaims))
      poke_();
  }

 private:
  std::function<void()> poke_;
  const std::atomic<bool>& podsBlocked_;
};
}  // namespace

void MemberController::start() {
  auto sink = std::make_shared<Wake>(
      [this] {
        std::lock_guard lock(mutex_);
        dirty_ = true;
        wake_.notify_one();
      },
      podsBlocked_);
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
    // a Job's pod due to end, a CronJob due to run (PassClock). Passes read every object, and
    // 100 members polling while pods waited took more CPU than the rest of a benchmark together.
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
    // Passes read every object, so a large member starts them ten pass-lengths apart: under a
    // stream of changes a member uses at most a tenth of a core, and each pass takes in more
    // changes.
    wake_.wait_until(lock,
                     lastPass + std::max<std::chrono::steady_clock::duration>(
                                    options_.minPassInterval, 10 * lastPassTook),
                     [&] { return stopping_; });
    if (stopping_) break;
    lastPass = std::chrono::steady_clock::now();
    dirty_ = false;
    lock.unlock();
    reconcile();
    lock.lock();
    lastPassTook = std::chrono::steady_clock::now() - lastPass;
  }
}

int MemberController::reconcile() {
  int writes = 0;
  PassClock clock{now_()};
  writes += reconcileDeployments();
  writes += reconcileReplicaSets();
  writes += bindPods();
  writes += runPods(clock);
  writes += reconcileReplicaSets();  // statuses after binding and readiness
  writes += reconcileDeployments();
  writes += assignLoadBalancers();
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
    workloads += bindPods();
    workloads += runPods(clock);
  }
  dueAt_ = clock.due == api::Clock::time_point::max()
               ? 0
               : std::chrono::duration_cast<std::chrono::milliseconds>(clock.due.time_since_epoch())
                     .count();
  return writes + workloads;
}

// A cloud's load-balancer controller (or MetalLB): a LoadBalancer Service gets one ingress IP,
// from TEST-NET-2, derived from its uid (each member's Service has its own).
int MemberController::assignLoadBalancers() {
  int writes = 0;
  for (const auto& shared : store_.listShared(kServices, "")) {
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

int MemberController::reconcileDeployments() {
  int writes = 0;
  const std::string now = api::formatRfc3339(now_());
  const Shared allSets = store_.listShared(kReplicaSets, "");
  const OwnerIndex setsByOwner = indexByOwner(allSets, [](const json::object&) { return true; });
  std::map<std::string, std::string> memo;
  for (const auto& shared : store_.listShared(kDeployments, "")) {
    const json::object& d = *shared;
    if (!meta(d, "deletionTimestamp").empty()) continue;
    const std::string ns = meta(d, "namespace");
    const std::string name = meta(d, "name");
    const std::string uid = meta(d, "uid");
    // Neither it nor its ReplicaSets changed since a pass that found nothing to do: skip it.
    std::string signature = meta(d, "resourceVersion");
    for (const json::object* rs : owned(setsByOwner, ns, uid))
      signature += "," + meta(*rs, "resourceVersion");
    if (auto it = deploymentMemo_.find(uid);
        it != deploymentMemo_.end() && it->second == signature) {
      memo[uid] = std::move(signature);
      continue;
    }
    const int before = writes;
    const auto& spec = objectAt(d, "spec");
    const int64_t desired = intAt(spec, "replicas", 1);
    json::object podTemplate = objectAt(spec, "template");
    const std::string hash = podTemplateHash(podTemplate);
    const auto& sets = owned(setsByOwner, ns, uid);
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
      if (store_.create({kReplicaSets, ns, rsName}, rs)) ++writes;
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
        if (store_.update({kReplicaSets, ns, meta.at("name").as_string().c_str()}, next,
                          version(rs)))
          ++writes;
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
    if (writes == before) memo[uid] = std::move(signature);
  }
  deploymentMemo_ = std::move(memo);
  return writes;
}

int MemberController::reconcileReplicaSets() {
  int writes = 0;
  const std::string now = api::formatRfc3339(now_());
  const Shared allPods = store_.listShared(kPods, "");
  const OwnerIndex podsByOwner = indexByOwner(allPods, [](const json::object& o) {
    return meta(o, "deletionTimestamp").empty() && !terminal(o);
  });
  std::map<std::string, std::string> memo;
  for (const auto& shared : store_.listShared(kReplicaSets, "")) {
    const json::object& rs = *shared;
    if (!meta(rs, "deletionTimestamp").empty()) continue;
    const std::string ns = meta(rs, "namespace");
    const std::string uid = meta(rs, "uid");
    const auto& spec = objectAt(rs, "spec");
    const int64_t desired = intAt(spec, "replicas", 1);
    std::vector<const json::object*> pods = owned(podsByOwner, ns, uid);
    // Neither it nor its pods changed since a pass that found nothing to do: skip it.
    std::string signature = meta(rs, "resourceVersion");
    for (const json::object* p : pods) signature += "," + meta(*p, "resourceVersion");
    if (auto it = replicaSetMemo_.find(uid);
        it != replicaSetMemo_.end() && it->second == signature) {
      memo[uid] = std::move(signature);
      continue;
    }
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
        if (store_.remove({kPods, ns, meta(*pods[removed], "name")}, std::nullopt)) ++writes;
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
    if (writes == before) memo[uid] = std::move(signature);
  }
  replicaSetMemo_ = std::move(memo);
  return writes;
}

int MemberController::bindPods() {
  int writes = 0;
  const Shared pods = store_.listShared(kPods, "");
  const bool anyUnbound = std::any_of(pods.begin(), pods.end(), [](const auto& p) {
    return stringAt(objectAt(*p, "spec"), "nodeName").empty() &&
           meta(*p, "deletionTimestamp").empty() && !terminal(*p);
  });
  if (!anyUnbound) return 0;  // the nodes' room is worked out only when a pod needs it
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
    room.cpuMilli = quantityMilli(allocatable, "cpu");
    room.memory = quantityMilli(allocatable, "memory") / 1000;
    room.pods = quantityMilli(allocatable, "pods") / 1000;
    index[room.name] = rooms.size();
    rooms.push_back(room);
  }
  std::vector<const json::object*> unbound;
  for (const auto& pod : pods) {
    const json::object& p = *pod;
    const std::string node = stringAt(objectAt(p, "spec"), "nodeName");
    if (node.empty()) {
      if (meta(p, "deletionTimestamp").empty() && !terminal(p)) unbound.push_back(&p);
      continue;
    }
    if (terminal(p)) continue;
    auto it = index.find(node);
    if (it == index.end()) continue;
    const PodRequest r = podRequest(p);
    rooms[it->second].cpuMilli -= r.cpuMilli;
    rooms[it->second].memory -= r.memory;
    rooms[it->second].pods -= 1;
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
    if (store_.update({kPods, meta(*p, "namespace"), meta(*p, "name")}, next, version(*p)))
      ++writes;
  }
  return writes;
}

int MemberController::runPods(PassClock& clock) {
  int writes = 0;
  podsBlocked_ = false;
  // Now, not the pass's start: the binder just stamped PodScheduled, and a pod whose delay is up
  // starts in this pass.
  const auto now = now_();
  const std::string nowText = api::formatRfc3339(now);
  for (const auto& pod : store_.listShared(kPods, "")) {
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
      if (store_.update({kPods, meta(p, "namespace"), meta(p, "name")}, next, version(p))) ++writes;
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
    if (store_.update({kPods, meta(p, "namespace"), meta(p, "name")}, next, version(p))) ++writes;
  }
  return writes;
}

}  // namespace flotilla::sim
