#include "controllers/policy/resolve.h"

#include <gtest/gtest.h>

namespace flotilla::controllers::policy {
namespace {

using Labels = std::map<std::string, std::string>;

api::ResourceSelector kindOnly() { return {.apiVersion = "apps/v1", .kind = "Deployment"}; }

api::ResourceSelector byName(std::string name) {
  auto s = kindOnly();
  s.name = std::move(name);
  return s;
}

api::ResourceSelector byLabels(Labels labels) {
  auto s = kindOnly();
  s.labelSelector = api::LabelSelector{.matchLabels = std::move(labels)};
  return s;
}

api::ResourceSelector inNamespace(api::ResourceSelector s, std::string ns) {
  s.namespace_ = std::move(ns);
  return s;
}

api::PropagationPolicy pp(std::string ns, std::string name,
                          std::vector<api::ResourceSelector> selectors, int32_t priority = 0) {
  api::PropagationPolicy p;
  p.metadata.namespace_ = std::move(ns);
  p.metadata.name = std::move(name);
  p.metadata.generation = 3;
  p.spec.resourceSelectors = std::move(selectors);
  p.spec.priority = priority;
  return p;
}

api::ClusterPropagationPolicy cpp(std::string name, std::vector<api::ResourceSelector> selectors,
                                  int32_t priority = 0) {
  api::ClusterPropagationPolicy p;
  p.metadata.name = std::move(name);
  p.metadata.generation = 7;
  p.spec.resourceSelectors = std::move(selectors);
  p.spec.priority = priority;
  return p;
}

template <class P>
P deleting(P p) {
  p.metadata.deletionTimestamp = "2026-11-01T10:00:00Z";
  return p;
}

Workload web(const Labels& extra = {}) {
  Workload w{.ns = "demo", .name = "web", .labels = {{"app", "web"}, {"tier", "frontend"}}};
  for (const auto& [k, v] : extra) w.labels[k] = v;
  return w;
}

TEST(PolicyKeyTest, StrAndParseAreInverse) {
  const PolicyKey namespaced{"PropagationPolicy", "demo", "demo-spread"};
  const PolicyKey cluster{"ClusterPropagationPolicy", "", "global"};
  EXPECT_EQ(namespaced.str(), "PropagationPolicy/demo/demo-spread");
  EXPECT_EQ(cluster.str(), "ClusterPropagationPolicy/global");
  EXPECT_EQ(namespaced.display(), "PropagationPolicy demo/demo-spread");
  EXPECT_EQ(cluster.display(), "ClusterPropagationPolicy global");
  EXPECT_EQ(PolicyKey::parse(namespaced.str()), namespaced);
  EXPECT_EQ(PolicyKey::parse(cluster.str()), cluster);
}

TEST(PolicyKeyTest, ParseRejectsWhatStrCannotProduce) {
  for (const char* bad : {"", "PropagationPolicy", "PropagationPolicy/x", "PropagationPolicy//x",
                          "PropagationPolicy/demo/", "PropagationPolicy/a/b/c",
                          "ClusterPropagationPolicy", "ClusterPropagationPolicy/",
                          "ClusterPropagationPolicy/a/b", "Deployment/demo/web", "/demo/web"}) {
    EXPECT_EQ(PolicyKey::parse(bad), std::nullopt) << bad;
  }
}

TEST(SelectorMatchTest, Table) {
  auto badSelector = kindOnly();
  badSelector.labelSelector = api::LabelSelector{
      .matchExpressions = {{.key = "app", .operator_ = "Near", .values = {"web"}}}};
  auto expressions = kindOnly();
  expressions.labelSelector = api::LabelSelector{
      .matchExpressions = {{.key = "app", .operator_ = "In", .values = {"web", "api"}}}};
  auto nameAndLabels = byName("web");
  nameAndLabels.labelSelector = api::LabelSelector{.matchLabels = {{"app", "web"}}};
  auto nameAndOtherLabels = byName("web");
  nameAndOtherLabels.labelSelector = api::LabelSelector{.matchLabels = {{"app", "db"}}};
  auto otherApiVersion = kindOnly();
  otherApiVersion.apiVersion = "apps/v1beta1";
  auto otherKind = kindOnly();
  otherKind.kind = "StatefulSet";
  auto emptyLabelSelector = kindOnly();
  emptyLabelSelector.labelSelector = api::LabelSelector{};

  struct Case {
    const char* what;
    api::ResourceSelector selector;
    std::string policyNamespace;
    std::optional<MatchTier> want;
  };
  const std::vector<Case> cases = {
      {"kind only", kindOnly(), "demo", MatchTier::kKindOnly},
      {"other apiVersion", otherApiVersion, "demo", std::nullopt},
      {"other kind", otherKind, "demo", std::nullopt},
      {"name", byName("web"), "demo", MatchTier::kName},
      {"other name", byName("api"), "demo", std::nullopt},
      {"name and matching labels", nameAndLabels, "demo", MatchTier::kName},
      {"name and other labels", nameAndOtherLabels, "demo", std::nullopt},
      {"matchLabels", byLabels({{"app", "web"}}), "demo", MatchTier::kLabelSelector},
      {"matchLabels, two keys", byLabels({{"app", "web"}, {"tier", "frontend"}}), "demo",
       MatchTier::kLabelSelector},
      {"other labels", byLabels({{"app", "db"}}), "demo", std::nullopt},
      {"matchExpressions", expressions, "demo", MatchTier::kLabelSelector},
      {"empty label selector selects all", emptyLabelSelector, "demo", MatchTier::kLabelSelector},
      {"malformed label selector", badSelector, "demo", std::nullopt},
      {"pp: selector in its namespace", inNamespace(kindOnly(), "demo"), "demo",
       MatchTier::kKindOnly},
      {"pp: selector in another namespace", inNamespace(kindOnly(), "other"), "demo", std::nullopt},
      {"pp in another namespace", kindOnly(), "other", std::nullopt},
      {"pp in another namespace naming the workload's", inNamespace(byName("web"), "demo"), "other",
       std::nullopt},
      {"cpp: empty namespace means all", byName("web"), "", MatchTier::kName},
      {"cpp: workload's namespace", inNamespace(kindOnly(), "demo"), "", MatchTier::kKindOnly},
      {"cpp: other namespace", inNamespace(kindOnly(), "other"), "", std::nullopt},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(selectorMatch(c.selector, web(), c.policyNamespace), c.want) << c.what;
  }
}

struct PrecedenceCase {
  const char* what;
  Labels labels;
  std::vector<api::PropagationPolicy> policies;
  std::vector<api::ClusterPropagationPolicy> clusterPolicies;
  std::string winner;  // PolicyKey::str(), "" for none
  MatchTier tier = MatchTier::kKindOnly;
};

TEST(ResolvePolicyTest, PrecedenceTable) {
  const std::vector<PrecedenceCase> cases = {
      {"label beats name",
       {{kPolicyLabel, "explicit"}},
       {pp("demo", "by-name", {byName("web")}, 100), pp("demo", "explicit", {byName("other")})},
       {},
       "PropagationPolicy/demo/explicit",
       MatchTier::kExplicitLabel},
      {"cluster label beats name",
       {{kClusterPolicyLabel, "global"}},
       {pp("demo", "by-name", {byName("web")}, 100)},
       {cpp("global", {byName("other")})},
       "ClusterPropagationPolicy/global",
       MatchTier::kExplicitLabel},
      {"name beats labelSelector",
       {},
       {pp("demo", "a-labels", {byLabels({{"app", "web"}})}, 100),
        pp("demo", "z-name", {byName("web")})},
       {},
       "PropagationPolicy/demo/z-name",
       MatchTier::kName},
      {"labelSelector beats kind-only",
       {},
       {pp("demo", "a-kind", {kindOnly()}, 100), pp("demo", "z-labels", {byLabels({})})},
       {},
       "PropagationPolicy/demo/z-labels",
       MatchTier::kLabelSelector},
      {"a policy's best selector counts",
       {},
       {pp("demo", "a-labels", {byLabels({{"app", "web"}})}, 100),
        pp("demo", "z-mixed", {kindOnly(), byName("web"), byLabels({{"app", "web"}})})},
       {},
       "PropagationPolicy/demo/z-mixed",
       MatchTier::kName},
      {"cpp name beats pp labelSelector",
       {},
       {pp("demo", "labels", {byLabels({{"app", "web"}})}, 100)},
       {cpp("by-name", {byName("web")})},
       "ClusterPropagationPolicy/by-name",
       MatchTier::kName},
      {"priority breaks ties within a tier",
       {},
       {pp("demo", "a-low", {kindOnly()}, 1), pp("demo", "z-high", {kindOnly()}, 5)},
       {},
       "PropagationPolicy/demo/z-high",
       MatchTier::kKindOnly},
      {"higher-priority cpp beats pp in the same tier",
       {},
       {pp("demo", "a", {kindOnly()}, 1)},
       {cpp("a", {kindOnly()}, 2)},
       "ClusterPropagationPolicy/a",
       MatchTier::kKindOnly},
      {"pp before cpp at equal tier and priority",
       {},
       {pp("demo", "z", {byName("web")}, 3)},
       {cpp("a", {byName("web")}, 3)},
       "PropagationPolicy/demo/z",
       MatchTier::kName},
      {"name order last",
       {},
       {pp("demo", "b", {kindOnly()}), pp("demo", "a", {kindOnly()}),
        pp("demo", "c", {kindOnly()})},
       {},
       "PropagationPolicy/demo/a",
       MatchTier::kKindOnly},
      {"cpp name order",
       {},
       {},
       {cpp("b", {kindOnly()}), cpp("a", {kindOnly()})},
       "ClusterPropagationPolicy/a",
       MatchTier::kKindOnly},
      {"policy in another namespace ignored",
       {},
       {pp("other", "a", {byName("web")}, 100), pp("demo", "z", {kindOnly()})},
       {},
       "PropagationPolicy/demo/z",
       MatchTier::kKindOnly},
      {"policy in another namespace selecting demo ignored",
       {},
       {pp("other", "a", {inNamespace(byName("web"), "demo")})},
       {},
       ""},
      {"cpp selector for another namespace ignored",
       {},
       {},
       {cpp("a", {inNamespace(byName("web"), "other")}, 100), cpp("z", {kindOnly()})},
       "ClusterPropagationPolicy/z",
       MatchTier::kKindOnly},
      {"deleting policies ignored",
       {},
       {deleting(pp("demo", "a", {byName("web")}, 100)), pp("demo", "z", {kindOnly()})},
       {deleting(cpp("a", {byName("web")}, 100))},
       "PropagationPolicy/demo/z",
       MatchTier::kKindOnly},
      {"both labels: the namespaced one wins",
       {{kPolicyLabel, "mine"}, {kClusterPolicyLabel, "global"}},
       {pp("demo", "mine", {kindOnly()})},
       {cpp("global", {kindOnly()}, 100)},
       "PropagationPolicy/demo/mine",
       MatchTier::kExplicitLabel},
      {"empty label value counts as no label",
       {{kPolicyLabel, ""}},
       {pp("demo", "z", {kindOnly()})},
       {},
       "PropagationPolicy/demo/z",
       MatchTier::kKindOnly},
      {"label names a policy by namespace of the workload only",
       {{kPolicyLabel, "mine"}},
       {pp("other", "mine", {kindOnly()}), pp("demo", "z", {kindOnly()})},
       {},
       ""},
      {"nothing selects",
       {},
       {pp("demo", "a", {byName("api")})},
       {cpp("b", {byLabels({{"app", "db"}})})},
       ""},
  };
  for (const auto& c : cases) {
    const Resolution r = resolvePolicy(web(c.labels), c.policies, c.clusterPolicies);
    if (c.winner.empty()) {
      EXPECT_FALSE(r.policy) << c.what << ": got " << r.policy->key.str();
      EXPECT_FALSE(r.message.empty()) << c.what;
      continue;
    }
    ASSERT_TRUE(r.policy) << c.what << ": " << r.message;
    EXPECT_EQ(r.policy->key.str(), c.winner) << c.what;
    EXPECT_EQ(r.policy->tier, c.tier) << c.what;
    EXPECT_EQ(r.message, "") << c.what;
  }
}

TEST(ResolvePolicyTest, WinnerCarriesPriorityGenerationAndSpec) {
  const std::vector<api::PropagationPolicy> policies = {pp("demo", "a", {kindOnly()}, 4)};
  const std::vector<api::ClusterPropagationPolicy> clusterPolicies = {
      cpp("global", {byName("web")}, 9)};
  Resolution r = resolvePolicy(web(), policies, clusterPolicies);
  ASSERT_TRUE(r.policy);
  EXPECT_EQ(r.policy->key, (PolicyKey{"ClusterPropagationPolicy", "", "global"}));
  EXPECT_EQ(r.policy->priority, 9);
  EXPECT_EQ(r.policy->generation, 7);
  EXPECT_EQ(r.policy->spec, &clusterPolicies[0].spec);
  EXPECT_FALSE(r.requested);

  r = resolvePolicy(web({{kPolicyLabel, "a"}}), policies, clusterPolicies);
  ASSERT_TRUE(r.policy);
  EXPECT_EQ(r.policy->key, (PolicyKey{"PropagationPolicy", "demo", "a"}));
  EXPECT_EQ(r.policy->priority, 4);
  EXPECT_EQ(r.policy->generation, 3);
  EXPECT_EQ(r.policy->spec, &policies[0].spec);
  EXPECT_EQ(r.requested, r.policy->key);
}

TEST(ResolvePolicyTest, LabelNamingMissingPolicyMeansNoWinner) {
  // Other policies select the workload, but the user asked for `missing`: no fall-back.
  const std::vector<api::PropagationPolicy> policies = {pp("demo", "a", {byName("web")})};
  const std::vector<api::ClusterPropagationPolicy> clusterPolicies = {cpp("g", {kindOnly()})};

  Resolution r = resolvePolicy(web({{kPolicyLabel, "missing"}}), policies, clusterPolicies);
  EXPECT_FALSE(r.policy);
  EXPECT_EQ(r.requested, (PolicyKey{"PropagationPolicy", "demo", "missing"}));
  EXPECT_EQ(r.message,
            "PropagationPolicy demo/missing named by label flotilla.io/propagation-policy does "
            "not exist");

  r = resolvePolicy(web({{kClusterPolicyLabel, "missing"}}), policies, clusterPolicies);
  EXPECT_FALSE(r.policy);
  EXPECT_EQ(r.requested, (PolicyKey{"ClusterPropagationPolicy", "", "missing"}));
  EXPECT_EQ(r.message,
            "ClusterPropagationPolicy missing named by label "
            "flotilla.io/cluster-propagation-policy does not exist");

  // Both labels, the namespaced one missing: the cluster one does not stand in.
  r = resolvePolicy(web({{kPolicyLabel, "missing"}, {kClusterPolicyLabel, "g"}}), policies,
                    clusterPolicies);
  EXPECT_FALSE(r.policy);
  EXPECT_EQ(r.requested, (PolicyKey{"PropagationPolicy", "demo", "missing"}));

  // A policy being deleted is missing too.
  const std::vector<api::PropagationPolicy> goingAway = {deleting(pp("demo", "a", {}))};
  r = resolvePolicy(web({{kPolicyLabel, "a"}}), goingAway, {});
  EXPECT_FALSE(r.policy);
  EXPECT_EQ(r.requested, (PolicyKey{"PropagationPolicy", "demo", "a"}));
}

// H2 of docs/security.md: a label asks for a policy; it cannot take one the policy's
// selectors keep out (another namespace, another kind), and M5: reserved namespaces.
TEST(ResolvePolicyTest, LabelIsARequestNotAKey) {
  struct Case {
    const char* what;
    Workload workload;
    std::vector<api::PropagationPolicy> policies;
    std::vector<api::ClusterPropagationPolicy> clusterPolicies;
    std::string winner;   // "" for none
    std::string message;  // expected when there is no winner
  };
  const auto in = [](std::string ns, Labels labels) {
    return Workload{.ns = std::move(ns), .name = "app", .labels = std::move(labels)};
  };
  const ReservedNamespaces reserved{.operatorNamespace = "flotilla-system"};
  const std::vector<Case> cases = {
      {"another team's CPP, scoped to its namespace",
       in("team-a", {{kClusterPolicyLabel, "team-b-gpu"}}),
       {},
       {cpp("team-b-gpu", {inNamespace(kindOnly(), "team-b")})},
       "",
       "ClusterPropagationPolicy team-b-gpu named by label flotilla.io/cluster-propagation-policy "
       "does not accept Deployment team-a/app: none of its resourceSelectors covers apps/v1 "
       "Deployment in namespace team-a"},
      {"the same CPP from its own namespace",
       in("team-b", {{kClusterPolicyLabel, "team-b-gpu"}}),
       {},
       {cpp("team-b-gpu", {inNamespace(byLabels({{"gpu", "yes"}}), "team-b")})},
       "ClusterPropagationPolicy/team-b-gpu",
       ""},
      {"a CPP for another kind",
       in("team-a", {{kClusterPolicyLabel, "configs"}}),
       {},
       {cpp("configs", {{.apiVersion = "v1", .kind = "ConfigMap"}})},
       "",
       "ClusterPropagationPolicy configs named by label flotilla.io/cluster-propagation-policy "
       "does not accept Deployment team-a/app: none of its resourceSelectors covers apps/v1 "
       "Deployment in namespace team-a"},
      {"a PP for another kind",
       in("team-a", {{kPolicyLabel, "configs"}}),
       {pp("team-a", "configs", {{.apiVersion = "v1", .kind = "ConfigMap"}})},
       {},
       "",
       "PropagationPolicy team-a/configs named by label flotilla.io/propagation-policy does not "
       "accept Deployment team-a/app: none of its resourceSelectors covers apps/v1 Deployment in "
       "namespace team-a"},
      {"a broad CPP does not reach kube-system",
       in("kube-system", {}),
       {},
       {cpp("everything", {kindOnly()})},
       "",
       "no policy selects Deployment kube-system/app"},
      {"nor through its label",
       in("kube-system", {{kClusterPolicyLabel, "everything"}}),
       {},
       {cpp("everything", {kindOnly()})},
       "",
       "ClusterPropagationPolicy everything named by label flotilla.io/cluster-propagation-policy "
       "does not accept Deployment kube-system/app: namespace kube-system is reserved and none of "
       "its resourceSelectors names it with apps/v1 Deployment"},
      {"kube-public, kube-node-lease and any kube-*",
       in("kube-node-lease", {}),
       {},
       {cpp("everything", {kindOnly()})},
       "",
       "no policy selects Deployment kube-node-lease/app"},
      {"default only by name",
       in("default", {}),
       {},
       {cpp("everything", {kindOnly()})},
       "",
       "no policy selects Deployment default/app"},
      {"default when named",
       in("default", {}),
       {},
       {cpp("everything", {kindOnly()}), cpp("named", {inNamespace(kindOnly(), "default")})},
       "ClusterPropagationPolicy/named",
       ""},
      {"kube-system when named",
       in("kube-system", {}),
       {},
       {cpp("named", {inNamespace(kindOnly(), "kube-system")})},
       "ClusterPropagationPolicy/named",
       ""},
      {"the operator's namespace never, even named",
       in("flotilla-system", {}),
       {},
       {cpp("everything", {kindOnly()}),
        cpp("named", {inNamespace(kindOnly(), "flotilla-system")})},
       "",
       "no policy selects Deployment flotilla-system/app"},
      {"a PropagationPolicy inside a reserved namespace is its owner's choice",
       in("kube-system", {}),
       {pp("kube-system", "mine", {kindOnly()})},
       {},
       "PropagationPolicy/kube-system/mine",
       ""},
  };
  for (const auto& c : cases) {
    const Resolution r = resolvePolicy(c.workload, c.policies, c.clusterPolicies, reserved);
    if (c.winner.empty()) {
      EXPECT_FALSE(r.policy) << c.what << ": got " << r.policy->key.str();
      EXPECT_EQ(r.message, c.message) << c.what;
      continue;
    }
    ASSERT_TRUE(r.policy) << c.what << ": " << r.message;
    EXPECT_EQ(r.policy->key.str(), c.winner) << c.what;
  }
}

// Property: whatever labels a workload carries, the winner (if any) is a policy whose selectors
// cover the workload's kind and namespace: a label can only choose among the policies open to it.
TEST(ResolvePolicyTest, NoLabelReachesAPolicyThatDoesNotCoverTheWorkload) {
  const std::vector<std::string> namespaces = {"team-a", "team-b", "default", "kube-system",
                                               "flotilla-system"};
  std::vector<api::ClusterPropagationPolicy> clusterPolicies;
  std::vector<api::PropagationPolicy> policies;
  const std::vector<std::string> kinds = {"Deployment", "ConfigMap"};
  int n = 0;
  for (const auto& kind : kinds) {
    for (const auto& ns : namespaces) {
      for (const std::string& scope : {std::string(), ns}) {
        api::ResourceSelector s{.apiVersion = kind == "Deployment" ? "apps/v1" : "v1",
                                .kind = kind,
                                .namespace_ = scope};
        clusterPolicies.push_back(cpp("c" + std::to_string(n), {s}));
        if (!scope.empty()) policies.push_back(pp(ns, "p" + std::to_string(n), {s}));
        ++n;
      }
    }
  }
  const ReservedNamespaces reserved{.operatorNamespace = "flotilla-system"};
  for (const auto& ns : namespaces) {
    for (int i = 0; i < n; ++i) {
      for (const char* label : {kPolicyLabel, kClusterPolicyLabel}) {
        const std::string name = (label == kPolicyLabel ? "p" : "c") + std::to_string(i);
        const Workload w{.ns = ns, .name = "app", .labels = {{label, name}}};
        const Resolution r = resolvePolicy(w, policies, clusterPolicies, reserved);
        if (!r.policy) continue;
        const auto& selector = r.policy->spec->resourceSelectors.at(0);
        EXPECT_EQ(selector.kind, "Deployment") << ns << " " << name;
        EXPECT_TRUE(selector.namespace_ == ns ||
                    (selector.namespace_.empty() && !reserved.reserved(ns)))
            << ns << " " << name;
        if (r.policy->key.kind == kPropagationPolicyKind) {
          EXPECT_EQ(r.policy->key.ns, ns);
        } else {
          EXPECT_NE(ns, "flotilla-system") << name;
        }
      }
    }
  }
}

TEST(ResolvePolicyTest, NoPolicyMessage) {
  const Resolution r = resolvePolicy(web(), {}, {});
  EXPECT_FALSE(r.policy);
  EXPECT_FALSE(r.requested);
  EXPECT_EQ(r.message, "no policy selects Deployment demo/web");
}

}  // namespace
}  // namespace flotilla::controllers::policy
