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
       {pp("demo", "by-name", {byName("web")}, 100), pp("demo", "explicit", {})},
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
       {pp("demo", "mine", {})},
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
       {pp("other", "mine", {}), pp("demo", "z", {kindOnly()})},
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

TEST(ResolvePolicyTest, NoPolicyMessage) {
  const Resolution r = resolvePolicy(web(), {}, {});
  EXPECT_FALSE(r.policy);
  EXPECT_FALSE(r.requested);
  EXPECT_EQ(r.message, "no policy selects Deployment demo/web");
}

}  // namespace
}  // namespace flotilla::controllers::policy
