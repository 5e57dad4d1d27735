#include "sim/server/defaults.h"

#include <boost/json.hpp>
#include <charconv>
#include <map>

#include "api/base64.h"
#include "api/quantity.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

// Go's zero values: an absent or null field, or an empty string, is "not set".
bool unset(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return !v || v->is_null() || (v->is_string() && v->as_string().empty());
}

void setDefault(json::object& o, std::string_view key, json::value value) {
  if (unset(o, key)) o[key] = std::move(value);
}

// The object at `key`, created when absent (or not an object).
json::object& objectAt(json::object& o, std::string_view key) {
  auto& v = o[key];
  if (!v.is_object()) v = json::object{};
  return v.as_object();
}

json::object* ifObject(json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

json::array* ifArray(json::object& o, std::string_view key) {
  auto* v = o.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

std::string stringAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

template <class F>
void forEachObject(json::object& o, std::string_view key, F f) {
  if (auto* list = ifArray(o, key))
    for (auto& item : *list)
      if (item.is_object()) f(item.as_object());
}

// parsers.ParseImageName's tag: "latest" when the reference has neither tag nor digest.
std::string imageTag(std::string_view image) {
  const size_t at = image.find('@');
  const bool digest = at != std::string_view::npos;
  std::string_view name = digest ? image.substr(0, at) : image;
  const size_t slash = name.rfind('/');
  const size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash))
    return std::string(name.substr(colon + 1));
  return digest ? "" : "latest";
}

// A JSON number as the quantity text it stands for (0.5 → "0.5", not "5E-1").
std::string numberText(const json::value& v) {
  if (v.is_int64()) return std::to_string(v.as_int64());
  if (v.is_uint64()) return std::to_string(v.as_uint64());
  char buffer[64];
  auto [end, ec] =
      std::to_chars(buffer, buffer + sizeof buffer, v.as_double(), std::chars_format::fixed);
  return ec == std::errc() ? std::string(buffer, end) : json::serialize(v);
}

// Quantities are stored in canonical form ("0.5" → "500m", "1024Mi" → "1Gi").
void canonicalQuantities(json::object& list) {
  for (auto& [name, value] : list) {
    std::string text;
    if (value.is_string()) {
      text = value.as_string();
    } else if (value.is_number()) {
      text = numberText(value);
    } else {
      continue;
    }
    if (auto q = api::Quantity::parse(text)) value = q->str();
  }
}

void defaultHttpGet(json::object& handler) {
  if (auto* get = ifObject(handler, "httpGet")) {
    setDefault(*get, "path", "/");
    setDefault(*get, "scheme", "HTTP");
  }
}

void defaultProbe(json::object& container, std::string_view key) {
  auto* probe = ifObject(container, key);
  if (!probe) return;
  setDefault(*probe, "timeoutSeconds", 1);
  setDefault(*probe, "periodSeconds", 10);
  setDefault(*probe, "successThreshold", 1);
  setDefault(*probe, "failureThreshold", 3);
  defaultHttpGet(*probe);
}

void defaultFieldRef(json::object& holder) {
  if (auto* ref = ifObject(holder, "fieldRef")) setDefault(*ref, "apiVersion", "v1");
  if (auto* ref = ifObject(holder, "resourceFieldRef")) setDefault(*ref, "divisor", "0");
}

void defaultContainer(json::object& c, bool hostNetwork) {
  if (unset(c, "imagePullPolicy"))
    c["imagePullPolicy"] = imageTag(stringAt(c, "image")) == "latest" ? "Always" : "IfNotPresent";
  setDefault(c, "terminationMessagePath", "/dev/termination-log");
  setDefault(c, "terminationMessagePolicy", "File");
  auto& resources = objectAt(c, "resources");  // always serialized, {} when empty
  if (auto* requests = ifObject(resources, "requests")) canonicalQuantities(*requests);
  if (auto* limits = ifObject(resources, "limits")) canonicalQuantities(*limits);
  forEachObject(c, "ports", [&](json::object& port) {
    setDefault(port, "protocol", "TCP");
    const auto* hostPort = port.if_contains("hostPort");
    const bool noHostPort = !hostPort || hostPort->is_null() || *hostPort == 0;
    if (hostNetwork && noHostPort && port.contains("containerPort")) {
      json::value containerPort = port.at("containerPort");  // (before the insertion moves it)
      port["hostPort"] = std::move(containerPort);
    }
  });
  for (const char* probe : {"livenessProbe", "readinessProbe", "startupProbe"})
    defaultProbe(c, probe);
  if (auto* lifecycle = ifObject(c, "lifecycle")) {
    for (const char* hook : {"postStart", "preStop"})
      if (auto* handler = ifObject(*lifecycle, hook)) defaultHttpGet(*handler);
  }
  forEachObject(c, "env", [](json::object& env) {
    if (auto* from = ifObject(env, "valueFrom")) defaultFieldRef(*from);
  });
}

void defaultVolume(json::object& volume) {
  // Every VolumeSource member (pointer.AllPtrFieldsNil: none set means emptyDir).
  // clang-format off
  static constexpr const char* kSources[] = {
      "hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret",
      "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder",
      "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume",
      "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO",
      "storageos", "csi", "ephemeral"};
  // clang-format on
  bool hasSource = false;
  for (const char* s : kSources) hasSource = hasSource || !unset(volume, s);
  if (!hasSource) volume["emptyDir"] = json::object{};
  for (const char* s : {"secret", "configMap", "downwardAPI", "projected"})
    if (auto* source = ifObject(volume, s)) setDefault(*source, "defaultMode", 420);
  if (auto* hostPath = ifObject(volume, "hostPath"); hostPath && !hostPath->contains("type"))
    (*hostPath)["type"] = "";
  if (auto* downward = ifObject(volume, "downwardAPI"))
    forEachObject(*downward, "items", [](json::object& item) { defaultFieldRef(item); });
  if (auto* projected = ifObject(volume, "projected")) {
    forEachObject(*projected, "sources", [](json::object& source) {
      if (auto* downward = ifObject(source, "downwardAPI"))
        forEachObject(*downward, "items", [](json::object& item) { defaultFieldRef(item); });
    });
  }
}

void defaultPodTemplate(json::object& owner) {
  auto* spec = ifObject(owner, "spec");
  if (!spec) return;
  auto* podTemplate = ifObject(*spec, "template");
  if (!podTemplate) return;
  defaultPodSpec(objectAt(*podTemplate, "spec"));
}

void defaultDeployment(json::object& d) {
  auto& spec = objectAt(d, "spec");
  setDefault(spec, "replicas", 1);
  auto& strategy = objectAt(spec, "strategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (stringAt(strategy, "type") == "RollingUpdate") {
    auto& rolling = objectAt(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", "25%");
    setDefault(rolling, "maxSurge", "25%");
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  setDefault(spec, "progressDeadlineSeconds", 600);
  defaultPodTemplate(d);
}

void defaultReplicaSet(json::object& rs) {
  setDefault(objectAt(rs, "spec"), "replicas", 1);
  defaultPodTemplate(rs);
}

void defaultPod(json::object& pod) {
  auto& spec = objectAt(pod, "spec");
  defaultPodSpec(spec);
  // Requests default to limits (SetDefaults_Pod), after the quantities are canonical.
  for (const char* list : {"containers", "initContainers"}) {
    forEachObject(spec, list, [](json::object& c) {
      auto& resources = objectAt(c, "resources");
      const auto* found = ifObject(resources, "limits");
      if (!found || found->empty()) return;
      // A copy: adding "requests" below may move the members of `resources` (and with them the
      // limits object a pointer would point into).
      const json::object limits = *found;
      auto& requests = objectAt(resources, "requests");
      for (const auto& [name, value] : limits)
        if (!requests.contains(name)) requests[name] = value;
    });
  }
  setDefault(spec, "enableServiceLinks", true);
}

void defaultSecret(json::object& secret) {
  setDefault(secret, "type", "Opaque");
  // stringData is write-only: merged into data (base64), as the v1 conversion does.
  if (const auto* found = ifObject(secret, "stringData")) {
    // A copy: adding "data" may move the members of `secret`, stringData's among them.
    const json::object stringData = *found;
    auto& data = objectAt(secret, "data");
    for (const auto& [key, value] : stringData)
      if (value.is_string()) data[key] = api::base64Encode(value.as_string());
    secret.erase("stringData");
  }
}

void defaultService(json::object& service) {
  auto& spec = objectAt(service, "spec");
  setDefault(spec, "type", "ClusterIP");
  setDefault(spec, "sessionAffinity", "None");
  const std::string type = stringAt(spec, "type");
  setDefault(spec, "internalTrafficPolicy", "Cluster");
  if (type == "NodePort" || type == "LoadBalancer")
    setDefault(spec, "externalTrafficPolicy", "Cluster");
  if (type == "LoadBalancer") setDefault(spec, "allocateLoadBalancerNodePorts", true);
  forEachObject(spec, "ports", [&](json::object& port) {
    setDefault(port, "protocol", "TCP");
    const auto* target = port.if_contains("targetPort");
    const bool noTarget = !target || target->is_null() || *target == 0 ||
                          (target->is_string() && target->as_string().empty());
    if (noTarget && port.contains("port")) {
      json::value number = port.at("port");  // (before the insertion moves it)
      port["targetPort"] = std::move(number);
    }
  });
}

void defaultStatefulSet(json::object& sts) {
  auto& spec = objectAt(sts, "spec");
  setDefault(spec, "replicas", 1);
  setDefault(spec, "podManagementPolicy", "OrderedReady");
  auto& strategy = objectAt(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (stringAt(strategy, "type") == "RollingUpdate")
    setDefault(objectAt(strategy, "rollingUpdate"), "partition", 0);
  setDefault(spec, "revisionHistoryLimit", 10);
  // StatefulSetAutoDeletePVC (beta, on since v1.27).
  auto& retention = objectAt(spec, "persistentVolumeClaimRetentionPolicy");
  setDefault(retention, "whenDeleted", "Retain");
  setDefault(retention, "whenScaled", "Retain");
  // Each claim template is a PersistentVolumeClaim as kube-apiserver serializes it: its type
  // meta, volumeMode Filesystem and the empty claim's status phase Pending.
  forEachObject(spec, "volumeClaimTemplates", [](json::object& claim) {
    setDefault(claim, "apiVersion", "v1");
    setDefault(claim, "kind", "PersistentVolumeClaim");
    setDefault(objectAt(claim, "spec"), "volumeMode", "Filesystem");
    setDefault(objectAt(claim, "status"), "phase", "Pending");
  });
  defaultPodTemplate(sts);
}

void defaultDaemonSet(json::object& ds) {
  auto& spec = objectAt(ds, "spec");
  auto& strategy = objectAt(spec, "updateStrategy");
  setDefault(strategy, "type", "RollingUpdate");
  if (stringAt(strategy, "type") == "RollingUpdate") {
    auto& rolling = objectAt(strategy, "rollingUpdate");
    setDefault(rolling, "maxUnavailable", 1);
    setDefault(rolling, "maxSurge", 0);
  }
  setDefault(spec, "revisionHistoryLimit", 10);
  defaultPodTemplate(ds);
}

void defaultJob(json::object& job) {
  auto& spec = objectAt(job, "spec");
  // Both unset: a non-parallel Job, one completion (SetDefaults_Job); a work queue (completions
  // unset, parallelism set) keeps completions unset.
  if (unset(spec, "completions") && unset(spec, "parallelism")) spec["completions"] = 1;
  setDefault(spec, "parallelism", 1);
  setDefault(spec, "backoffLimit", unset(spec, "backoffLimitPerIndex") ? 6 : 2147483647);
  setDefault(spec, "completionMode", "NonIndexed");
  setDefault(spec, "suspend", false);
  // JobPodReplacementPolicy (beta, on since v1.29).
  setDefault(spec, "podReplacementPolicy",
             unset(spec, "podFailurePolicy") ? "TerminatingOrFailed" : "Failed");
  // A Job without labels takes its pod template's.
  auto& meta = objectAt(job, "metadata");
  const auto* labels = meta.if_contains("labels");
  if (!labels || !labels->is_object() || labels->as_object().empty()) {
    if (auto* podTemplate = ifObject(spec, "template"))
      if (auto* templateMeta = ifObject(*podTemplate, "metadata"))
        if (auto* templateLabels = ifObject(*templateMeta, "labels")) {
          json::object copy = *templateLabels;  // (before the insertion moves it)
          meta["labels"] = std::move(copy);
        }
  }
  defaultPodTemplate(job);
}

void defaultCronJob(json::object& cj) {
  auto& spec = objectAt(cj, "spec");
  setDefault(spec, "concurrencyPolicy", "Allow");
  setDefault(spec, "suspend", false);
  setDefault(spec, "successfulJobsHistoryLimit", 3);
  setDefault(spec, "failedJobsHistoryLimit", 1);
  // Only the pod template is defaulted: SetDefaults_Job is the Job's, not the JobSpec's.
  if (auto* jobTemplate = ifObject(spec, "jobTemplate")) defaultPodTemplate(*jobTemplate);
}

json::object hpaScalingRules(bool up) {
  json::array policies;
  if (up) policies.push_back(json::object{{"type", "Pods"}, {"value", 4}, {"periodSeconds", 15}});
  policies.push_back(json::object{{"type", "Percent"}, {"value", 100}, {"periodSeconds", 15}});
  return json::object{{"stabilizationWindowSeconds", up ? 0 : 300},
                      {"selectPolicy", "Max"},
                      {"policies", std::move(policies)}};
}

void defaultHpa(json::object& hpa) {
  auto& spec = objectAt(hpa, "spec");
  setDefault(spec, "minReplicas", 1);
  const auto* metrics = spec.if_contains("metrics");
  if (!metrics || !metrics->is_array() || metrics->as_array().empty())
    spec["metrics"] = json::array{json::object{
        {"type", "Resource"},
        {"resource", json::object{{"name", "cpu"},
                                  {"target", json::object{{"type", "Utilization"},
                                                          {"averageUtilization", 80}}}}}}};
  // A behavior, when given, gets every rule it leaves out.
  if (auto* behavior = ifObject(spec, "behavior")) {
    for (const bool up : {true, false}) {
      const char* key = up ? "scaleUp" : "scaleDown";
      const json::object defaults = hpaScalingRules(up);
      auto& rules = objectAt(*behavior, key);
      for (const auto& [field, value] : defaults)
        if (unset(rules, field)) rules[field] = value;
    }
  }
}

void defaultIngress(json::object& ingress) {
  // The empty status is serialized (loadBalancer is not a pointer).
  if (!ifObject(ingress, "status")) ingress["status"] = json::object{};
  setDefault(objectAt(ingress, "status"), "loadBalancer", json::object{});
}

bool hasToleration(const json::array& tolerations, std::string_view key) {
  for (const auto& t : tolerations) {
    if (!t.is_object()) continue;
    const std::string k = stringAt(t.as_object(), "key");
    const std::string effect = stringAt(t.as_object(), "effect");
    if ((k == key || k.empty()) && (effect == "NoExecute" || effect.empty())) return true;
  }
  return false;
}

// SetDefaults_Subject and SetDefaults_(Cluster)RoleBinding: User and Group subjects and the
// roleRef name the rbac group.
void defaultBinding(json::object& binding) {
  constexpr const char* kGroup = "rbac.authorization.k8s.io";
  if (auto* ref = binding.if_contains("roleRef"); ref && ref->is_object())
    if (unset(ref->as_object(), "apiGroup")) ref->as_object()["apiGroup"] = kGroup;
  if (auto* subjects = binding.if_contains("subjects"); subjects && subjects->is_array()) {
    for (auto& s : subjects->as_array()) {
      if (!s.is_object() || !unset(s.as_object(), "apiGroup")) continue;
      const auto* kind = s.as_object().if_contains("kind");
      if (kind && kind->is_string() &&
          (kind->as_string() == "User" || kind->as_string() == "Group"))
        s.as_object()["apiGroup"] = kGroup;
    }
  }
}

}  // namespace

void defaultPodSpec(json::object& spec) {
  setDefault(spec, "dnsPolicy", "ClusterFirst");
  setDefault(spec, "restartPolicy", "Always");
  if (unset(spec, "securityContext")) spec["securityContext"] = json::object{};
  setDefault(spec, "terminationGracePeriodSeconds", 30);
  setDefault(spec, "schedulerName", "default-scheduler");
  // The deprecated serviceAccount mirrors serviceAccountName (v1 conversion). Copied before the
  // assignment: inserting the key may move the object's storage, and with it the source.
  if (unset(spec, "serviceAccountName") && !unset(spec, "serviceAccount")) {
    json::value name = spec.at("serviceAccount");
    spec["serviceAccountName"] = std::move(name);
  }
  if (!unset(spec, "serviceAccountName")) {
    json::value name = spec.at("serviceAccountName");
    spec["serviceAccount"] = std::move(name);
  }
  const auto* hostNetwork = spec.if_contains("hostNetwork");
  const bool host = hostNetwork && hostNetwork->is_bool() && hostNetwork->as_bool();
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"})
    forEachObject(spec, list, [&](json::object& c) { defaultContainer(c, host); });
  forEachObject(spec, "volumes", defaultVolume);
}

void allocateService(json::object& service, const json::object* old, uint32_t salt) {
  auto& spec = objectAt(service, "spec");
  const std::string type = stringAt(spec, "type");
  const json::object* oldSpec = nullptr;
  if (old) {
    if (const auto* s = old->if_contains("spec"); s && s->is_object()) oldSpec = &s->as_object();
  }
  // An update that leaves an allocated value out keeps it (kube-apiserver's
  // patchAllocatedValues): clusterIP(s), ipFamilies, nodePorts, healthCheckNodePort.
  if (oldSpec) {
    for (const char* field : {"clusterIP", "clusterIPs", "ipFamilies", "ipFamilyPolicy"}) {
      if (unset(spec, field) && oldSpec->contains(field)) spec[field] = oldSpec->at(field);
    }
  }
  uint32_t seed = 2166136261u ^ salt;
  for (unsigned char c : stringAt(objectAt(service, "metadata"), "namespace") + "/" +
                             stringAt(objectAt(service, "metadata"), "name"))
    seed = (seed ^ c) * 16777619u;
  if (type != "ExternalName") {
    if (unset(spec, "clusterIP")) {
      // From the default service CIDR 10.96.0.0/12 (collisions are not checked: a stand-in).
      spec["clusterIP"] = "10." + std::to_string(96 + (seed >> 24) % 16) + "." +
                          std::to_string((seed >> 8) % 256) + "." + std::to_string(seed % 254 + 1);
    }
    if (unset(spec, "clusterIPs") && stringAt(spec, "clusterIP") != "")
      spec["clusterIPs"] = json::array{spec.at("clusterIP")};
    if (stringAt(spec, "clusterIP") != "None") {
      setDefault(spec, "ipFamilies", json::array{"IPv4"});
      setDefault(spec, "ipFamilyPolicy", "SingleStack");
    }
  }
  const auto* allocate = spec.if_contains("allocateLoadBalancerNodePorts");
  const bool nodePorts =
      type == "NodePort" ||
      (type == "LoadBalancer" && !(allocate && allocate->is_bool() && !allocate->as_bool()));
  if (nodePorts) {
    int index = 0;
    forEachObject(spec, "ports", [&](json::object& port) {
      ++index;
      if (!unset(port, "nodePort")) return;
      // The old object's nodePort for the same port, else one from 30000-32767.
      if (oldSpec) {
        if (const auto* ports = oldSpec->if_contains("ports"); ports && ports->is_array()) {
          for (const auto& p : ports->as_array()) {
            if (!p.is_object() || !p.as_object().contains("nodePort")) continue;
            if (p.as_object().if_contains("port") && port.if_contains("port") &&
                p.as_object().at("port") == port.at("port")) {
              port["nodePort"] = p.as_object().at("nodePort");
              return;
            }
          }
        }
      }
      port["nodePort"] =
          static_cast<int64_t>(30000 + (seed + 7919u * static_cast<uint32_t>(index)) % 2768);
    });
  }
  if (type == "LoadBalancer" && stringAt(spec, "externalTrafficPolicy") == "Local" &&
      unset(spec, "healthCheckNodePort")) {
    if (oldSpec && oldSpec->contains("healthCheckNodePort"))
      spec["healthCheckNodePort"] = oldSpec->at("healthCheckNodePort");
    else
      spec["healthCheckNodePort"] = static_cast<int64_t>(30000 + (seed / 3) % 2768);
  }
}

void applyDefaults(std::string_view group, std::string_view resource, json::object& object) {
  if (group == "rbac.authorization.k8s.io" &&
      (resource == "rolebindings" || resource == "clusterrolebindings"))
    return defaultBinding(object);
  if (group == "apps" && resource == "deployments") return defaultDeployment(object);
  if (group == "apps" && resource == "replicasets") return defaultReplicaSet(object);
  if (group == "apps" && resource == "statefulsets") return defaultStatefulSet(object);
  if (group == "apps" && resource == "daemonsets") return defaultDaemonSet(object);
  if (group == "batch" && resource == "jobs") return defaultJob(object);
  if (group == "batch" && resource == "cronjobs") return defaultCronJob(object);
  if (group == "autoscaling" && resource == "horizontalpodautoscalers") return defaultHpa(object);
  if (group == "networking.k8s.io" && resource == "ingresses") return defaultIngress(object);
  if (!group.empty()) return;
  if (resource == "pods") return defaultPod(object);
  if (resource == "secrets") return defaultSecret(object);
  if (resource == "services") return defaultService(object);
}

void generateJobSelector(json::object& job) {
  auto& spec = objectAt(job, "spec");
  const auto* manual = spec.if_contains("manualSelector");
  if (manual && manual->is_bool() && manual->as_bool()) return;
  const auto& meta = objectAt(job, "metadata");
  const std::string name = stringAt(meta, "name");
  const std::string uid = stringAt(meta, "uid");
  auto& labels = objectAt(objectAt(objectAt(spec, "template"), "metadata"), "labels");
  // Labels the user set are kept (a conflict is validation's business).
  for (const char* key : {kLegacyJobNameLabel, kJobNameLabel})
    if (!labels.contains(key)) labels[key] = name;
  for (const char* key : {kLegacyControllerUidLabel, kControllerUidLabel})
    if (!labels.contains(key)) labels[key] = uid;
  auto& matchLabels = objectAt(objectAt(spec, "selector"), "matchLabels");
  if (!matchLabels.contains(kControllerUidLabel)) matchLabels[kControllerUidLabel] = uid;
}

void keepJobSelector(json::object& job, const json::object& old) {
  const auto* oldSpec = old.if_contains("spec");
  if (!oldSpec || !oldSpec->is_object()) return;
  auto& spec = objectAt(job, "spec");
  if (unset(spec, "selector") && oldSpec->as_object().contains("selector"))
    spec["selector"] = oldSpec->as_object().at("selector");
  const auto* oldTemplate = oldSpec->as_object().if_contains("template");
  if (!oldTemplate || !oldTemplate->is_object()) return;
  const auto* oldMeta = oldTemplate->as_object().if_contains("metadata");
  const auto* oldLabels =
      oldMeta && oldMeta->is_object() ? oldMeta->as_object().if_contains("labels") : nullptr;
  if (!oldLabels || !oldLabels->is_object()) return;
  auto* podTemplate = ifObject(spec, "template");
  if (!podTemplate) return;
  auto& labels = objectAt(objectAt(*podTemplate, "metadata"), "labels");
  for (const char* key :
       {kLegacyJobNameLabel, kJobNameLabel, kLegacyControllerUidLabel, kControllerUidLabel})
    if (!labels.contains(key) && oldLabels->as_object().contains(key))
      labels[key] = oldLabels->as_object().at(key);
}

int minorVersionOf(std::string_view gitVersion) {
  // "v1.26.3", "v1.32.0-flotilla-sim": the number after the first dot.
  const size_t dot = gitVersion.find('.');
  if (dot == std::string_view::npos) return 0;
  int minor = 0;
  const char* begin = gitVersion.data() + dot + 1;
  std::from_chars(begin, gitVersion.data() + gitVersion.size(), minor);
  return minor;
}

void dropDisabledFields(std::string_view group, std::string_view resource, json::object& object,
                        int minorVersion) {
  // StatefulSetStartOrdinal is beta (on) from v1.27; an older API server drops the field.
  if (group == "apps" && resource == "statefulsets" && minorVersion < 27)
    if (auto* spec = ifObject(object, "spec")) spec->erase("ordinals");
}

void admitPod(json::object& pod, const json::object* old) {
  auto& spec = objectAt(pod, "spec");
  // DefaultTolerationSeconds: tolerate not-ready and unreachable nodes for 300 s, unless the pod
  // already tolerates them (NoExecute or any effect; an empty key tolerates every taint).
  auto& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array{};
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"}) {
    if (hasToleration(tolerations.as_array(), key)) continue;
    tolerations.as_array().push_back(json::object{
        {"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}, {"tolerationSeconds", 300}});
  }
  const json::object* oldSpec = nullptr;
  if (old)
    if (const auto* s = old->if_contains("spec"); s && s->is_object()) oldSpec = &s->as_object();
  // Priority (no PriorityClass exists) and ServiceAccount; an update keeps what the pod had.
  for (const char* field : {"priority", "preemptionPolicy", "serviceAccountName", "serviceAccount"})
    if (oldSpec && unset(spec, field) && !unset(*oldSpec, field)) spec[field] = oldSpec->at(field);
  setDefault(spec, "priority", 0);
  setDefault(spec, "preemptionPolicy", "PreemptLowerPriority");
  setDefault(spec, "serviceAccountName", "default");
  setDefault(spec, "serviceAccount", spec.at("serviceAccountName"));
}

std::string podQosClass(const json::object& pod) {
  const auto* specValue = pod.if_contains("spec");
  if (!specValue || !specValue->is_object()) return "BestEffort";
  const auto& spec = specValue->as_object();
  std::map<std::string, api::Quantity> requests, limits;
  bool guaranteed = true;
  auto add = [](std::map<std::string, api::Quantity>& sum, const json::object& list,
                std::map<std::string, bool>* found) {
    for (const auto& [name, value] : list) {
      if (name != "cpu" && name != "memory") continue;
      const std::string text = value.is_string()   ? std::string(value.as_string())
                               : value.is_number() ? numberText(value)
                                                   : std::string();
      auto q = api::Quantity::parse(text);
      if (!q || q->sign() <= 0) continue;
      sum[std::string(name)] += *q;
      if (found) (*found)[std::string(name)] = true;
    }
  };
  for (const char* list : {"containers", "initContainers"}) {
    const auto* containers = spec.if_contains(list);
    if (!containers || !containers->is_array()) continue;
    for (const auto& c : containers->as_array()) {
      if (!c.is_object()) continue;
      const auto* resources = c.as_object().if_contains("resources");
      const json::object empty;
      const json::object& r = resources && resources->is_object() ? resources->as_object() : empty;
      if (const auto* req = r.if_contains("requests"); req && req->is_object())
        add(requests, req->as_object(), nullptr);
      std::map<std::string, bool> found;
      if (const auto* lim = r.if_contains("limits"); lim && lim->is_object())
        add(limits, lim->as_object(), &found);
      if (!found["cpu"] || !found["memory"]) guaranteed = false;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  if (guaranteed) {
    for (const auto& [name, request] : requests) {
      auto it = limits.find(name);
      if (it == limits.end() || !(it->second == request)) guaranteed = false;
    }
  }
  return guaranteed && requests.size() == limits.size() ? "Guaranteed" : "Burstable";
}

}  // namespace flotilla::sim
