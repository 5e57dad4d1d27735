#include "interpreter/workload_division.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string>

#include "api/unstructured.h"
#include "interpreter/workload_status.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

// "v1.26.3" -> {1, 26}; nullopt when it does not start that way.
std::optional<std::pair<int, int>> majorMinor(std::string_view version) {
  if (version.empty() || version.front() != 'v') return std::nullopt;
  version.remove_prefix(1);
  int major = 0, minor = 0;
  auto [rest, error] = std::from_chars(version.data(), version.data() + version.size(), major);
  if (error != std::errc() || rest == version.data() + version.size() || *rest != '.')
    return std::nullopt;
  auto [end, minorError] = std::from_chars(rest + 1, version.data() + version.size(), minor);
  if (minorError != std::errc()) return std::nullopt;
  return std::pair{major, minor};
}

std::vector<api::TargetCluster> byName(std::vector<api::TargetCluster> placement) {
  std::sort(placement.begin(), placement.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return placement;
}

std::string podNames(std::string_view name, int64_t first, int64_t count) {
  const std::string base = std::string(name) + "-";
  if (count <= 0) return "no pods";
  if (count == 1) return base + std::to_string(first);
  return base + std::to_string(first) + ".." + base + std::to_string(first + count - 1);
}

}  // namespace

bool servesStartOrdinal(std::string_view kubernetesVersion) {
  const auto version = majorMinor(kubernetesVersion);
  if (!version) return true;
  return version->first > 1 || (version->first == 1 && version->second >= 27);
}

int64_t ordinalStart(const Share& share, int64_t templateStart) {
  int64_t start = templateStart;
  for (const auto& c : byName(share.placement))
    if (c.name < share.cluster) start += std::max<int64_t>(c.replicas, 0);
  return start;
}

std::optional<int32_t> statefulSetReplicas(const json::object& sts) {
  return static_cast<int32_t>(std::clamp<int64_t>(
      u::intAt(sts, {"spec", "replicas"}).value_or(1), 0, INT32_MAX));
}

std::string reviseStatefulSet(json::object& sts, const Share& share) {
  auto& spec = u::ensureObject(sts, {"spec"});
  spec["replicas"] = share.replicas;
  const int64_t templateStart = u::intAt(sts, {"spec", "ordinals", "start"}).value_or(0);
  const bool served = servesStartOrdinal(share.kubernetesVersion);
  // A member that does not serve the field would drop it from what it stores, and the copy would
  // never match what is sent: it is not sent there.
  if (!served) spec.erase("ordinals");
  if (!share.divided) return {};
  const int64_t start = ordinalStart(share, templateStart);
  if (!served) {
    if (start == 0) return {};  // (numbered from 0 anyway)
    const std::string name = u::stringAt(sts, {"metadata", "name"});
    return share.cluster + " runs Kubernetes " + share.kubernetesVersion +
           ", which does not serve a StatefulSet's spec.ordinals (1.27 and later do): its pods "
           "are numbered from 0 (" +
           podNames(name, 0, share.replicas) + "), not " + podNames(name, start, share.replicas) +
           ", so pod names and their volume claims repeat those of other clusters";
  }
  // Always written, the first cluster's too: a start left from an earlier division (this
  // cluster second then, first now) would otherwise stay on the member, and its pods' names
  // would collide with the next cluster's.
  u::ensureObject(spec, {"ordinals"})["start"] = start;
  return {};
}

std::map<std::string, int64_t> divideInProportion(
    int64_t total, const std::vector<api::TargetCluster>& placement) {
  std::map<std::string, int64_t> out;
  int64_t weights = 0;
  for (const auto& c : placement) {
    out[c.name] = 0;
    weights += std::max<int64_t>(c.replicas, 0);
  }
  if (weights == 0 || total <= 0) return out;
  struct Part {
    std::string cluster;
    int64_t remainder;
  };
  std::vector<Part> parts;
  int64_t given = 0;
  for (const auto& c : byName(placement)) {
    const int64_t weight = std::max<int64_t>(c.replicas, 0);
    // (total and weights fit in int32: their product fits in int64)
    out[c.name] = total * weight / weights;
    given += out[c.name];
    parts.push_back({c.name, total * weight % weights});
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.remainder > b.remainder; });
  for (size_t i = 0; given < total && i < parts.size(); ++i, ++given) ++out[parts[i].cluster];
  return out;
}

namespace {

bool indexed(const json::object& job) {
  return u::stringAt(job, {"spec", "completionMode"}) == "Indexed";
}

// The labels kube-apiserver generates into a Job's pod template from the Job's uid and name.
constexpr const char* kGeneratedJobLabels[] = {"batch.kubernetes.io/controller-uid",
                                               "batch.kubernetes.io/job-name", "controller-uid",
                                               "job-name"};

}  // namespace

std::optional<int32_t> jobReplicas(const json::object& job) {
  if (indexed(job)) return std::nullopt;
  int64_t parallelism = u::intAt(job, {"spec", "parallelism"}).value_or(1);
  if (const auto completions = u::intAt(job, {"spec", "completions"}))
    parallelism = std::min(parallelism, *completions);
  return static_cast<int32_t>(std::clamp<int64_t>(parallelism, 0, INT32_MAX));
}

std::string reviseJob(json::object& job, const Share& share) {
  auto& spec = u::ensureObject(job, {"spec"});
  int64_t parallelism = share.replicas;
  int64_t weights = 0;
  for (const auto& c : share.placement) weights += std::max<int64_t>(c.replicas, 0);
  // Duplicated, every cluster runs the whole Job; with no parallelism anywhere (0: nothing runs),
  // the completions are not divided (0 completions would complete the Job without running it).
  if (const auto completions = u::intAt(job, {"spec", "completions"});
      completions && share.divided && weights > 0) {
    const int64_t part = divideInProportion(*completions, share.placement)[share.cluster];
    spec["completions"] = part;
    parallelism = std::min(parallelism, part);
  }
  spec["parallelism"] = parallelism;
  return {};
}

void pruneJob(json::object& job) {
  if (u::find(job, {"spec", "manualSelector"}) &&
      *u::find(job, {"spec", "manualSelector"}) == true)
    return;
  u::erase(job, {"spec", "selector"});
  if (auto* labels = u::findObject(job, {"spec", "template", "metadata", "labels"})) {
    for (const char* label : kGeneratedJobLabels) labels->erase(label);
    if (labels->empty()) u::erase(job, {"spec", "template", "metadata", "labels"});
  }
}

void retainJob(json::object& desired, const json::object& live) {
  if (const auto* completions = u::find(live, {"spec", "completions"}))
    u::ensureObject(desired, {"spec"})["completions"] = *completions;
}

std::string jobDuplicatedWarning(const json::object& job) {
  if (!indexed(job)) return {};
  return "an Indexed Job is not divided among clusters: each cluster it is placed on runs every "
         "index (place it on one cluster to run each index once)";
}

}  // namespace flotilla::interpreter
