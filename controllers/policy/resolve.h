// Which PropagationPolicy or ClusterPropagationPolicy governs a workload (docs/design.md §3.2).
//
// The winner is decided in this order:
//  1. An explicit label on the workload: `flotilla.io/propagation-policy: <name>` names a
//     PropagationPolicy in the workload's namespace, `flotilla.io/cluster-propagation-policy:
//     <name>` a ClusterPropagationPolicy. With both, the namespaced one counts (Karmada's rule).
//     A label is the user asking for that policy, not a key to it: the policy wins only if it
//     would accept the workload, that is one of its resourceSelectors has the workload's
//     apiVersion and kind and a namespace that is empty or the workload's (its name and
//     labelSelector do not matter: choosing among the policies open to a namespace is what the
//     label is for). A policy that does not exist or does not accept the workload leaves no
//     winner at all (no fall-back to selectors, which would quietly place the workload
//     elsewhere), and `message` says which.
//  2. Otherwise every policy whose selectors select the workload competes, ordered by
//     a. match tier, best first: name match > label-selector match > kind-only match (a policy's
//        tier is the best among its selectors);
//     b. spec.priority, higher first;
//     c. a PropagationPolicy before a ClusterPropagationPolicy (Karmada: the namespace owner's
//        choice beats the cluster admin's default);
//     d. policy name, ascending (deterministic).
// Policies being deleted (metadata.deletionTimestamp set) are treated as absent everywhere.
//
// Reserved namespaces (docs/security.md): `default`, every `kube-*` namespace and the
// operator's own namespace hold the cluster's and Flotilla's own workloads. A
// ClusterPropagationPolicy selects a workload there only through a selector that names that
// namespace, never through a selector without a namespace, and never in the operator's own
// namespace; a label cannot get round this. A PropagationPolicy inside such a namespace is that
// namespace's owner's choice and works as anywhere else.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/flotilla_types.h"

namespace flotilla::controllers::policy {

inline constexpr const char* kPolicyLabel = "flotilla.io/propagation-policy";
inline constexpr const char* kClusterPolicyLabel = "flotilla.io/cluster-propagation-policy";

inline constexpr const char* kPropagationPolicyKind = "PropagationPolicy";
inline constexpr const char* kClusterPropagationPolicyKind = "ClusterPropagationPolicy";

// What policies are matched against: the workload's type, identity and labels.
struct Workload {
  std::string apiVersion = "apps/v1";
  std::string kind = "Deployment";
  std::string ns, name;
  std::map<std::string, std::string> labels;
};

// A source object as policies see it: its apiVersion, kind, namespace, name and labels.
Workload workloadOf(const boost::json::object& source);

// How specifically a policy selects a workload; a larger value wins.
enum class MatchTier { kKindOnly = 0, kLabelSelector = 1, kName = 2, kExplicitLabel = 3 };

struct PolicyKey {
  std::string kind;  // PropagationPolicy | ClusterPropagationPolicy
  std::string ns;    // empty for cluster policies
  std::string name;

  // "PropagationPolicy/demo/demo-spread", "ClusterPropagationPolicy/global".
  std::string str() const;
  // "PropagationPolicy demo/demo-spread", "ClusterPropagationPolicy global": for messages.
  std::string display() const;
  // The inverse of str(); nullopt for anything str() cannot produce.
  static std::optional<PolicyKey> parse(std::string_view text);
  bool operator==(const PolicyKey&) const = default;
};

struct ResolvedPolicy {
  PolicyKey key;
  MatchTier tier = MatchTier::kKindOnly;
  int32_t priority = 0;
  int64_t generation = 0;
  const api::PropagationPolicySpec* spec = nullptr;  // points into the vectors passed in
};

struct Resolution {
  std::optional<ResolvedPolicy> policy;  // the winner
  std::optional<PolicyKey> requested;    // the policy a label names, whether or not it exists
  // The labelled policy exists but does not accept the workload (docs/security.md, H2): the
  // workload is not federated at all, unlike a policy that does not exist (yet).
  bool refused = false;
  // When there is no winner, why: "PropagationPolicy demo/x named by label
  // flotilla.io/propagation-policy does not exist", "no policy selects Deployment demo/web".
  std::string message;
};

// The namespaces a ClusterPropagationPolicy reaches only by naming them (see above).
struct ReservedNamespaces {
  std::string operatorNamespace;  // never reached by a ClusterPropagationPolicy; "" for none

  // Whether a selector without a namespace must skip `ns`.
  bool reserved(std::string_view ns) const;
};

// At which tier one selector of a policy selects the workload (nullopt: not at all).
// `policyNamespace` is the PropagationPolicy's namespace, "" for a ClusterPropagationPolicy.
std::optional<MatchTier> selectorMatch(const api::ResourceSelector& selector,
                                       const Workload& workload, const std::string& policyNamespace,
                                       const ReservedNamespaces& reserved = {});

// Whether a policy would accept the workload when a label names it (see above); nullopt when it
// would, otherwise why not ("its resourceSelectors do not cover Deployment in namespace demo").
std::optional<std::string> refusal(const api::PropagationPolicySpec& spec, const Workload& workload,
                                   const std::string& policyNamespace,
                                   const ReservedNamespaces& reserved = {});

Resolution resolvePolicy(const Workload& workload,
                         const std::vector<api::PropagationPolicy>& policies,
                         const std::vector<api::ClusterPropagationPolicy>& clusterPolicies,
                         const ReservedNamespaces& reserved = {});

}  // namespace flotilla::controllers::policy
