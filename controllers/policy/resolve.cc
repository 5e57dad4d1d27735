#include "controllers/policy/resolve.h"

#include "api/label_selector.h"
#include "api/unstructured.h"

namespace flotilla::controllers::policy {

Workload workloadOf(const boost::json::object& source) {
  Workload w{.apiVersion = api::unstructured::stringAt(source, {"apiVersion"}),
             .kind = api::unstructured::stringAt(source, {"kind"}),
             .ns = api::unstructured::stringAt(source, {"metadata", "namespace"}),
             .name = api::unstructured::stringAt(source, {"metadata", "name"}),
             .labels = {}};
  if (const auto* labels = api::unstructured::findObject(source, {"metadata", "labels"})) {
    for (const auto& [k, v] : *labels)
      if (v.is_string()) w.labels.emplace(k, v.as_string());
  }
  return w;
}

namespace {

bool deleting(const api::ObjectMeta& meta) { return meta.deletionTimestamp.has_value(); }

// The best tier among a policy's selectors.
std::optional<MatchTier> policyMatch(const api::PropagationPolicySpec& spec,
                                     const Workload& workload, const std::string& policyNamespace,
                                     const ReservedNamespaces& reserved) {
  std::optional<MatchTier> best;
  for (const auto& selector : spec.resourceSelectors) {
    auto tier = selectorMatch(selector, workload, policyNamespace, reserved);
    if (tier && (!best || *tier > *best)) best = tier;
  }
  return best;
}

// Whether `a` beats `b` (the order documented in resolve.h).
bool better(const ResolvedPolicy& a, const ResolvedPolicy& b) {
  if (a.tier != b.tier) return a.tier > b.tier;
  if (a.priority != b.priority) return a.priority > b.priority;
  const bool aNamespaced = a.key.kind == kPropagationPolicyKind;
  const bool bNamespaced = b.key.kind == kPropagationPolicyKind;
  if (aNamespaced != bNamespaced) return aNamespaced;
  return a.key.name < b.key.name;
}

template <class P>
ResolvedPolicy resolved(const P& p, const char* kind, MatchTier tier) {
  const bool namespaced = std::string_view(kind) == kPropagationPolicyKind;
  return {.key = {kind, namespaced ? p.metadata.namespace_ : "", p.metadata.name},
          .tier = tier,
          .priority = p.spec.priority,
          .generation = p.metadata.generation,
          .spec = &p.spec};
}

}  // namespace

std::string PolicyKey::str() const {
  return ns.empty() ? kind + "/" + name : kind + "/" + ns + "/" + name;
}

std::string PolicyKey::display() const {
  return ns.empty() ? kind + " " + name : kind + " " + ns + "/" + name;
}

std::optional<PolicyKey> PolicyKey::parse(std::string_view text) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    const size_t slash = text.find('/', start);
    parts.push_back(text.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  for (auto part : parts) {
    if (part.empty()) return std::nullopt;
  }
  if (parts.size() == 3 && parts[0] == kPropagationPolicyKind) {
    return PolicyKey{std::string(parts[0]), std::string(parts[1]), std::string(parts[2])};
  }
  if (parts.size() == 2 && parts[0] == kClusterPropagationPolicyKind) {
    return PolicyKey{std::string(parts[0]), "", std::string(parts[1])};
  }
  return std::nullopt;
}

bool ReservedNamespaces::reserved(std::string_view ns) const {
  return ns == "default" || ns.starts_with("kube-") ||
         (!operatorNamespace.empty() && ns == operatorNamespace);
}

namespace {

// The part of selectorMatch a label cannot skip: kind, the policy's scope and reserved namespaces.
bool coversKindAndNamespace(const api::ResourceSelector& selector, const Workload& workload,
                            const std::string& policyNamespace,
                            const ReservedNamespaces& reserved) {
  if (selector.apiVersion != workload.apiVersion || selector.kind != workload.kind) return false;
  if (!policyNamespace.empty()) {
    // A PropagationPolicy governs its own namespace only, whatever its selectors say.
    if (workload.ns != policyNamespace) return false;
    return selector.namespace_.empty() || selector.namespace_ == policyNamespace;
  }
  if (!reserved.operatorNamespace.empty() && workload.ns == reserved.operatorNamespace) {
    return false;
  }
  if (selector.namespace_.empty()) return !reserved.reserved(workload.ns);
  return selector.namespace_ == workload.ns;
}

}  // namespace

std::optional<std::string> refusal(const api::PropagationPolicySpec& spec, const Workload& workload,
                                   const std::string& policyNamespace,
                                   const ReservedNamespaces& reserved) {
  for (const auto& selector : spec.resourceSelectors) {
    if (coversKindAndNamespace(selector, workload, policyNamespace, reserved)) return std::nullopt;
  }
  if (policyNamespace.empty() && reserved.reserved(workload.ns)) {
    return "namespace " + workload.ns +
           " is reserved and none of its resourceSelectors names it with " + workload.apiVersion +
           " " + workload.kind;
  }
  return "none of its resourceSelectors covers " + workload.apiVersion + " " + workload.kind +
         " in namespace " + workload.ns;
}

std::optional<MatchTier> selectorMatch(const api::ResourceSelector& selector,
                                       const Workload& workload, const std::string& policyNamespace,
                                       const ReservedNamespaces& reserved) {
  if (!coversKindAndNamespace(selector, workload, policyNamespace, reserved)) {
    return std::nullopt;
  }
  if (selector.labelSelector) {
    // A malformed selector selects nothing (validation rejects it; this is for old objects).
    auto compiled = api::Selector::fromLabelSelector(*selector.labelSelector);
    if (!compiled || !compiled->matches(workload.labels)) return std::nullopt;
  }
  if (!selector.name.empty()) {
    if (selector.name != workload.name) return std::nullopt;
    return MatchTier::kName;
  }
  return selector.labelSelector ? MatchTier::kLabelSelector : MatchTier::kKindOnly;
}

Resolution resolvePolicy(const Workload& workload,
                         const std::vector<api::PropagationPolicy>& policies,
                         const std::vector<api::ClusterPropagationPolicy>& clusterPolicies,
                         const ReservedNamespaces& reserved) {
  Resolution out;
  const std::string workloadText = workload.kind + " " + workload.ns + "/" + workload.name;
  const auto refused = [&](const std::string& why, const char* labelKey) {
    out.message = out.requested->display() + " named by label " + labelKey + " does not accept " +
                  workloadText + ": " + why;
    out.refused = true;
  };

  // 1. An explicit label. An empty value counts as no label (`kubectl label ... key=` mistakes).
  const auto label = [&](const char* key) -> const std::string* {
    auto it = workload.labels.find(key);
    return it == workload.labels.end() || it->second.empty() ? nullptr : &it->second;
  };
  if (const std::string* name = label(kPolicyLabel)) {
    out.requested = PolicyKey{kPropagationPolicyKind, workload.ns, *name};
    for (const auto& p : policies) {
      if (p.metadata.namespace_ == workload.ns && p.metadata.name == *name &&
          !deleting(p.metadata)) {
        if (auto why = refusal(p.spec, workload, p.metadata.namespace_, reserved)) {
          refused(*why, kPolicyLabel);
        } else {
          out.policy = resolved(p, kPropagationPolicyKind, MatchTier::kExplicitLabel);
        }
        return out;
      }
    }
    out.message = out.requested->display() + " named by label " + kPolicyLabel + " does not exist";
    return out;
  }
  if (const std::string* name = label(kClusterPolicyLabel)) {
    out.requested = PolicyKey{kClusterPropagationPolicyKind, "", *name};
    for (const auto& p : clusterPolicies) {
      if (p.metadata.name == *name && !deleting(p.metadata)) {
        if (auto why = refusal(p.spec, workload, "", reserved)) {
          refused(*why, kClusterPolicyLabel);
        } else {
          out.policy = resolved(p, kClusterPropagationPolicyKind, MatchTier::kExplicitLabel);
        }
        return out;
      }
    }
    out.message =
        out.requested->display() + " named by label " + kClusterPolicyLabel + " does not exist";
    return out;
  }

  // 2. Selectors.
  const auto consider = [&](const ResolvedPolicy& candidate) {
    if (!out.policy || better(candidate, *out.policy)) out.policy = candidate;
  };
  for (const auto& p : policies) {
    if (deleting(p.metadata) || p.metadata.namespace_ != workload.ns) continue;
    if (auto tier = policyMatch(p.spec, workload, p.metadata.namespace_, reserved)) {
      consider(resolved(p, kPropagationPolicyKind, *tier));
    }
  }
  for (const auto& p : clusterPolicies) {
    if (deleting(p.metadata)) continue;
    if (auto tier = policyMatch(p.spec, workload, "", reserved)) {
      consider(resolved(p, kClusterPropagationPolicyKind, *tier));
    }
  }
  if (!out.policy) {
    out.message = "no policy selects " + workloadText;
  }
  return out;
}

}  // namespace flotilla::controllers::policy
