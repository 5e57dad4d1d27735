#include "controllers/federate/source_kinds.h"

#include <cstdio>
#include <map>
#include <tuple>

#include "api/validation.h"

namespace flotilla::controllers::federate {

namespace {

// Kubernetes' version priority: GA before beta before alpha, higher numbers first ("v2" over
// "v1", "v1" over "v2beta1"); anything else after, alphabetically.
std::tuple<int, int, int, std::string> versionRank(std::string_view version) {
  int major = 0, minor = 0;
  char stage[8] = {};
  if (std::sscanf(std::string(version).c_str(), "v%d%7[a-z]%d", &major, &stage[0], &minor) >= 1) {
    const std::string s(stage);
    const int level = s.empty() ? 0 : s == "beta" ? 1 : s == "alpha" ? 2 : 3;
    return {level, -major, -minor, ""};
  }
  return {4, 0, 0, std::string(version)};
}

std::string versionOf(std::string_view apiVersion) {
  const auto slash = apiVersion.find('/');
  return std::string(slash == std::string_view::npos ? apiVersion : apiVersion.substr(slash + 1));
}

struct Named {
  std::string apiVersion;  // the preferred version named
  SourceScope scope;
};

// `ns`: a PropagationPolicy's namespace, "" for a ClusterPropagationPolicy (whose selectors may
// name one).
void addSelected(const std::vector<api::ResourceSelector>& selectors, const std::string& ns,
                 std::map<std::pair<std::string, std::string>, Named>& byGroupKind) {
  for (const auto& s : selectors) {
    if (s.apiVersion.empty() || s.kind.empty()) continue;
    if (s.apiVersion == "apps/v1" && s.kind == "Deployment") continue;
    if (api::neverPropagated(s.apiVersion, s.kind)) continue;
    // One informer per group and kind: two versions of one kind are one set of objects, and two
    // informers would make two federated objects fight over one name.
    const auto slash = s.apiVersion.find('/');
    const std::string group = slash == std::string::npos ? "" : s.apiVersion.substr(0, slash);
    auto& chosen = byGroupKind[{group, s.kind}];
    if (chosen.apiVersion.empty() ||
        versionRank(versionOf(s.apiVersion)) < versionRank(versionOf(chosen.apiVersion)))
      chosen.apiVersion = s.apiVersion;
    chosen.scope.add(ns.empty() ? s.namespace_ : ns);
  }
}

}  // namespace

std::map<KindKey, SourceScope> kindsNamed(
    const std::vector<api::PropagationPolicy>& policies,
    const std::vector<api::ClusterPropagationPolicy>& clusterPolicies) {
  std::map<std::pair<std::string, std::string>, Named> byGroupKind;
  for (const auto& p : policies) {
    // (A PropagationPolicy selects in its own namespace; one read without a namespace is
    // watched everywhere rather than nowhere.)
    addSelected(p.spec.resourceSelectors, p.metadata.namespace_, byGroupKind);
  }
  for (const auto& p : clusterPolicies) addSelected(p.spec.resourceSelectors, "", byGroupKind);
  std::map<KindKey, SourceScope> out;
  for (const auto& [groupKind, named] : byGroupKind)
    out[{named.apiVersion, groupKind.second}] = named.scope;
  return out;
}

}  // namespace flotilla::controllers::federate
