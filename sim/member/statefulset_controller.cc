#include "sim/member/statefulset_controller.h"

#include <algorithm>
#include <boost/json.hpp>
#include <optional>
#include <vector>

#include "sim/member/member_controller.h"
#include "sim/member/workload_util.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

const std::string kStatefulSetsResource = "apps/statefulsets";
const std::string kStsPods = "/pods";
const std::string kStsClaims = "/persistentvolumeclaims";

// The ordinal of `<set>-<n>`, nullopt for other names.
std::optional<int64_t> stsOrdinal(const std::string& setName, const std::string& podName) {
  if (podName.size() <= setName.size() + 1 || podName.compare(0, setName.size(), setName) != 0 ||
      podName[setName.size()] != '-')
    return std::nullopt;
  const std::string digits = podName.substr(setName.size() + 1);
  if (digits.empty() || digits.size() > 9 ||
      !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  return std::stoll(digits);
}

}  // namespace

int StatefulSetController::reconcile(PassClock& clock) {
  // Function-local: a namespace-wide directive would reach the other files of a unity batch.
  using namespace workload;  // NOLINT(google-build-using-namespace)
  int writes = 0;
  const std::string now = api::formatRfc3339(clock.now);
  // (The pods are read only for a member that runs StatefulSets.)
  const Shared sets = store_.listShared(kStatefulSetsResource, "");
  if (sets.empty()) {
    memo_.clear();
    return 0;
  }
  const Shared pods = store_.listShared(kStsPods, "");
  const auto podsByOwner = byController(pods);
  std::map<std::string, std::string> memo;
  for (const auto& shared : sets) {
    const json::object& sts = *shared;
    if (deleting(sts)) continue;
    const std::string ns = metaOf(sts, "namespace");
    const std::string name = metaOf(sts, "name");
    const std::string uid = metaOf(sts, "uid");
    std::vector<const json::object*> owned;
    for (const json::object* p : controlledBy(podsByOwner, uid))
      if (!deleting(*p)) owned.push_back(p);
    std::string signature = metaOf(sts, "resourceVersion");
    for (const json::object* p : owned) signature += "," + metaOf(*p, "resourceVersion");
    if (auto it = memo_.find(uid); it != memo_.end() && it->second == signature) {
      memo[uid] = std::move(signature);
      continue;
    }
    const int before = writes;
    const auto& spec = obj(sts, "spec");
    const int64_t replicas = num(spec, "replicas", 1);
    const int64_t start = options_.minorVersion >= 27 ? num(obj(spec, "ordinals"), "start", 0) : 0;
    const bool parallel = str(spec, "podManagementPolicy") == "Parallel";
    const auto& strategy = obj(spec, "updateStrategy");
    const bool rolling = str(strategy, "type") != "OnDelete";
    const int64_t partition = num(obj(strategy, "rollingUpdate"), "partition", 0);
    const json::object& podTemplate = obj(spec, "template");
    const std::string updateRevision = name + "-" + podTemplateHash(podTemplate);
    const auto& oldStatus = obj(sts, "status");
    std::string currentRevision = str(oldStatus, "currentRevision");
    if (currentRevision.empty()) currentRevision = updateRevision;

    // The pods by ordinal; pods outside [start, start+replicas) are condemned.
    std::map<int64_t, const json::object*> byOrdinal;
    std::vector<std::pair<int64_t, const json::object*>> condemned;
    for (const json::object* p : owned) {
      auto ordinal = stsOrdinal(name, metaOf(*p, "name"));
      if (!ordinal) continue;
      if (*ordinal >= start && *ordinal < start + replicas)
        byOrdinal[*ordinal] = p;
      else
        condemned.emplace_back(*ordinal, p);
    }
    std::sort(condemned.begin(), condemned.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    bool allReady = true;
    for (const auto& [ordinal, p] : byOrdinal) allReady = allReady && podReady(*p);
    int64_t created = 0;
    std::vector<std::string> removedNames;
    // Failed or succeeded pods are replaced, as the real controller does.
    for (auto it = byOrdinal.begin(); it != byOrdinal.end();) {
      if (podTerminal(*it->second)) {
        writes += store_.remove({kStsPods, ns, metaOf(*it->second, "name")}, std::nullopt) ? 1 : 0;
        it = byOrdinal.erase(it);
      } else {
        ++it;
      }
    }
    // Create the missing ordinals, lowest first; OrderedReady stops at a pod not Running and
    // Ready (or just created).
    bool blocked = false;
    for (int64_t ordinal = start; ordinal < start + replicas && !blocked; ++ordinal) {
      auto found = byOrdinal.find(ordinal);
      if (found != byOrdinal.end()) {
        if (!parallel && !podReady(*found->second)) blocked = true;
        continue;
      }
      const std::string podName = name + "-" + std::to_string(ordinal);
      json::object labels = obj(obj(podTemplate, "metadata"), "labels");
      labels["controller-revision-hash"] = updateRevision;
      labels["statefulset.kubernetes.io/pod-name"] = podName;
      if (options_.minorVersion >= 28)  // PodIndexLabel, beta in v1.28
        labels["apps.kubernetes.io/pod-index"] = std::to_string(ordinal);
      json::object pod = podFromTemplate(podTemplate, ns, podName, "", std::move(labels),
                                         controllerRef(sts, "apps/v1", "StatefulSet"), now);
      auto& podSpec = pod["spec"].as_object();
      podSpec["hostname"] = podName;
      if (!str(spec, "serviceName").empty()) podSpec["subdomain"] = str(spec, "serviceName");
      // One claim per template, mounted as the template's name.
      if (const auto* claims = spec.if_contains("volumeClaimTemplates");
          claims && claims->is_array()) {
        auto& volumes = podSpec["volumes"];
        if (!volumes.is_array()) volumes = json::array{};
        for (const auto& c : claims->as_array()) {
          if (!c.is_object()) continue;
          const std::string claimTemplate = metaOf(c.as_object(), "name");
          const std::string claimName = claimTemplate + "-" + podName;
          auto& list = volumes.as_array();
          list.erase(std::remove_if(list.begin(), list.end(),
                                    [&](const json::value& v) {
                                      return v.is_object() &&
                                             str(v.as_object(), "name") == claimTemplate;
                                    }),
                     list.end());
          list.push_back(
              json::object{{"name", claimTemplate},
                           {"persistentVolumeClaim", json::object{{"claimName", claimName}}}});
          if (store_.get({kStsClaims, ns, claimName})) continue;
          json::object claimSpec = obj(c.as_object(), "spec");
          const auto& requests = obj(obj(claimSpec, "resources"), "requests");
          json::object claim{
              {"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", json::object{{"name", claimName},
                                        {"namespace", ns},
                                        {"uid", newUid()},
                                        {"creationTimestamp", now},
                                        {"labels", obj(obj(spec, "selector"), "matchLabels")}}},
              {"spec", claimSpec},
              {"status", json::object{{"phase", "Bound"},
                                      {"accessModes", claimSpec.contains("accessModes")
                                                          ? claimSpec.at("accessModes")
                                                          : json::array{}},
                                      {"capacity", requests}}}};
          writes += store_.create({kStsClaims, ns, claimName}, std::move(claim)) ? 1 : 0;
        }
      }
      if (store_.create({kStsPods, ns, podName}, std::move(pod))) {
        ++writes;
        ++created;
      }
      if (!parallel) blocked = true;
    }
    // Scale down (and pods outside a new ordinals range): highest ordinal first; OrderedReady
    // one at a time, and only while every other pod is Running and Ready.
    for (const auto& [ordinal, p] : condemned) {
      if (!parallel && (!allReady || created > 0 || !removedNames.empty())) break;
      if (store_.remove({kStsPods, ns, metaOf(*p, "name")}, std::nullopt)) {
        ++writes;
        removedNames.push_back(metaOf(*p, "name"));
      }
    }
    // Rolling update: once every pod is there and Running and Ready, the highest ordinal at or
    // above the partition that runs an old revision is deleted (and recreated next pass).
    const bool complete = created == 0 && removedNames.empty() &&
                          static_cast<int64_t>(byOrdinal.size()) == replicas && allReady;
    if (rolling && complete) {
      for (auto it = byOrdinal.rbegin(); it != byOrdinal.rend(); ++it) {
        if (it->first - start < partition) break;
        if (label(*it->second, "controller-revision-hash") == updateRevision) continue;
        if (store_.remove({kStsPods, ns, metaOf(*it->second, "name")}, std::nullopt)) ++writes;
        removedNames.push_back(metaOf(*it->second, "name"));
        break;
      }
    }
    // Status from the pods that remain.
    int64_t count = created, ready = 0, current = 0, updated = created;
    auto countPods = [&](const auto& pods) {
      for (const auto& [ordinal, p] : pods) {
        if (std::find(removedNames.begin(), removedNames.end(), metaOf(*p, "name")) !=
            removedNames.end())
          continue;
        ++count;
        ready += podReady(*p) ? 1 : 0;
        const std::string revision = label(*p, "controller-revision-hash");
        current += revision == currentRevision ? 1 : 0;
        updated += revision == updateRevision ? 1 : 0;
      }
    };
    countPods(byOrdinal);
    countPods(condemned);
    if (created > 0 && currentRevision == updateRevision) current += created;
    // A finished rolling update makes the update revision the current one.
    if (updated == count && ready == count && count == replicas) {
      currentRevision = updateRevision;
      current = updated;
    }
    json::object status{{"observedGeneration", generationOf(sts)},
                        {"replicas", count},
                        {"readyReplicas", ready},
                        {"currentReplicas", current},
                        {"updatedReplicas", updated},
                        {"currentRevision", currentRevision},
                        {"updateRevision", updateRevision},
                        {"collisionCount", 0},
                        {"availableReplicas", ready}};
    writes += writeStatus(store_, kStatefulSetsResource, sts, std::move(status));
    if (writes == before) memo[uid] = std::move(signature);
  }
  memo_ = std::move(memo);
  (void)clock;
  return writes;
}

}  // namespace flotilla::sim
