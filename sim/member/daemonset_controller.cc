#include "sim/member/daemonset_controller.h"

#include <boost/json.hpp>
#include <vector>

#include "sim/member/member_controller.h"
#include "sim/member/workload_util.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

const std::string kDaemonSetsResource = "apps/daemonsets";
const std::string kDsPods = "/pods";
const std::string kDsNodes = "/nodes";

// The tolerations the DaemonSet controller adds to its pods.
json::array daemonTolerations() {
  json::array out;
  for (const char* key : {"node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"})
    out.push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoExecute"}});
  for (const char* key : {"node.kubernetes.io/disk-pressure", "node.kubernetes.io/memory-pressure",
                          "node.kubernetes.io/pid-pressure", "node.kubernetes.io/unschedulable"})
    out.push_back(json::object{{"key", key}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
  return out;
}

}  // namespace

int DaemonSetController::reconcile(PassClock& clock) {
  using namespace workload;  // NOLINT(google-build-using-namespace)
  int writes = 0;
  const std::string now = api::formatRfc3339(clock.now);
  const Shared sets = store_.listShared(kDaemonSetsResource, "");
  if (sets.empty()) {
    memo_.clear();
    return 0;
  }
  const Shared nodes = store_.listShared(kDsNodes, "");
  std::string nodeSignature;
  for (const auto& n : nodes) nodeSignature += "," + metaOf(*n, "resourceVersion");
  const Shared pods = store_.listShared(kDsPods, "");
  const auto podsByOwner = byController(pods);
  std::map<std::string, std::string> memo;
  for (const auto& shared : sets) {
    const json::object& ds = *shared;
    if (deleting(ds)) continue;
    const std::string ns = metaOf(ds, "namespace");
    const std::string name = metaOf(ds, "name");
    const std::string uid = metaOf(ds, "uid");
    std::vector<const json::object*> owned;
    for (const json::object* p : controlledBy(podsByOwner, uid))
      if (!deleting(*p)) owned.push_back(p);
    std::string signature = metaOf(ds, "resourceVersion") + nodeSignature;
    for (const json::object* p : owned) signature += "," + metaOf(*p, "resourceVersion");
    if (auto it = memo_.find(uid); it != memo_.end() && it->second == signature) {
      memo[uid] = std::move(signature);
      continue;
    }
    const int before = writes;
    const auto& spec = obj(ds, "spec");
    const json::object& podTemplate = obj(spec, "template");
    const auto& nodeSelector = obj(obj(podTemplate, "spec"), "nodeSelector");
    const std::string hash = podTemplateHash(podTemplate);
    const bool rolling = str(obj(spec, "updateStrategy"), "type") != "OnDelete";
    // The nodes that should run a pod: Ready, schedulable, labels matching the selector.
    std::vector<std::string> wanted;
    for (const auto& n : nodes) {
      const auto& node = *n;
      if (flag(obj(node, "spec"), "unschedulable")) continue;
      const json::object* readyCondition = conditionOf(obj(node, "status"), "Ready");
      if (readyCondition && str(*readyCondition, "status") != "True") continue;
      bool matches = true;
      for (const auto& [key, value] : nodeSelector)
        matches = matches && value.is_string() && label(node, key) == value.as_string();
      if (matches) wanted.push_back(metaOf(node, "name"));
    }
    std::map<std::string, std::vector<const json::object*>> byNode;
    for (const json::object* p : owned)
      if (!podTerminal(*p)) byNode[str(obj(*p, "spec"), "nodeName")].push_back(p);
    // Pods on nodes that should not run one, extra pods and finished pods go.
    std::vector<std::string> removed;
    for (const json::object* p : owned) {
      const std::string node = str(obj(*p, "spec"), "nodeName");
      const bool keep = !podTerminal(*p) &&
                        std::find(wanted.begin(), wanted.end(), node) != wanted.end() &&
                        byNode[node].front() == p;
      if (keep) continue;
      if (store_.remove({kDsPods, ns, metaOf(*p, "name")}, std::nullopt)) ++writes;
      removed.push_back(metaOf(*p, "name"));
    }
    auto gone = [&](const json::object* p) {
      return std::find(removed.begin(), removed.end(), metaOf(*p, "name")) != removed.end();
    };
    int64_t current = 0, ready = 0, updated = 0, created = 0;
    bool allReady = true;
    for (const std::string& node : wanted) {
      auto found = byNode.find(node);
      if (found != byNode.end() && !found->second.empty() && !gone(found->second.front())) {
        const json::object& p = *found->second.front();
        ++current;
        ready += podReady(p) ? 1 : 0;
        allReady = allReady && podReady(p);
        updated += label(p, "controller-revision-hash") == hash ? 1 : 0;
        continue;
      }
      allReady = false;
      const std::string podName = name + "-" + stableSuffix(uid + "/" + node + "/" + hash);
      json::object labels = obj(obj(podTemplate, "metadata"), "labels");
      labels["controller-revision-hash"] = hash;
      labels["pod-template-generation"] = std::to_string(generationOf(ds));
      json::object pod = podFromTemplate(podTemplate, ns, podName, name + "-", std::move(labels),
                                         controllerRef(ds, "apps/v1", "DaemonSet"), now);
      auto& podSpec = pod["spec"].as_object();
      podSpec["nodeName"] = node;
      podSpec["affinity"] = json::object{
          {"nodeAffinity",
           json::object{
               {"requiredDuringSchedulingIgnoredDuringExecution",
                json::object{
                    {"nodeSelectorTerms",
                     json::array{json::object{
                         {"matchFields", json::array{json::object{
                                             {"key", "metadata.name"},
                                             {"operator", "In"},
                                             {"values", json::array{json::value(node)}}}}}}}}}}}}};
      json::array tolerations = daemonTolerations();
      if (const auto* own = podSpec.if_contains("tolerations"); own && own->is_array())
        for (const auto& t : own->as_array()) tolerations.push_back(t);
      podSpec["tolerations"] = std::move(tolerations);
      // Bound by the controller: scheduled now, for the kubelet stand-in to start.
      pod["status"].as_object()["conditions"] =
          json::array{json::object{{"type", "PodScheduled"},
                                   {"status", "True"},
                                   {"lastProbeTime", nullptr},
                                   {"lastTransitionTime", now}}};
      if (store_.create({kDsPods, ns, podName}, std::move(pod))) {
        ++writes;
        ++created;
        ++current;
        ++updated;
      }
    }
    // Rolling update: with every pod Running and Ready, one old-revision pod goes per pass.
    if (rolling && allReady && created == 0 && removed.empty()) {
      for (const std::string& node : wanted) {
        const json::object& p = *byNode[node].front();
        if (label(p, "controller-revision-hash") == hash) continue;
        if (store_.remove({kDsPods, ns, metaOf(p, "name")}, std::nullopt)) ++writes;
        --current;
        ready -= podReady(p) ? 1 : 0;
        break;
      }
    }
    const auto desired = static_cast<int64_t>(wanted.size());
    json::object status{{"currentNumberScheduled", current},
                        {"numberMisscheduled", 0},
                        {"desiredNumberScheduled", desired},
                        {"numberReady", ready},
                        {"observedGeneration", generationOf(ds)},
                        {"updatedNumberScheduled", updated},
                        {"numberAvailable", ready}};
    if (desired - ready > 0) status["numberUnavailable"] = desired - ready;
    writes += writeStatus(store_, kDaemonSetsResource, ds, std::move(status));
    if (writes == before) memo[uid] = std::move(signature);
  }
  memo_ = std::move(memo);
  return writes;
}

}  // namespace flotilla::sim
