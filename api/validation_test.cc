// Every validation rule: a case that passes and a case that fails with its exact field path.
#include "api/validation.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>

#include "api/test_util.h"

namespace flotilla::api {
namespace {

using ::testing::ElementsAre;
using testing::fields;
using testing::fromYaml;
using ::testing::IsEmpty;

const char* kPolicy = R"(
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors:
    - {apiVersion: apps/v1, kind: Deployment, namespace: shop}
  placement:
    clusterAffinity:
      clusterNames: [member1, member2]
      labelSelector: {matchLabels: {env: prod}}
      fieldSelector: {matchExpressions: [{key: region, operator: In, values: [eu]}]}
    clusterTolerations: [{key: dedicated, operator: Exists}]
    spreadConstraints:
      - {spreadByField: region, minGroups: 2}
      - {spreadByField: cluster, minGroups: 2, maxGroups: 2}
    topologySpreadConstraints: [{topologyKey: zone, maxSkew: 1, whenUnsatisfiable: DoNotSchedule}]
    maxClusters: 0
    replicaScheduling:
      type: Divided
      division: Weighted
      weights:
        - {targetCluster: {clusterNames: [member1]}, weight: 0, minReplicas: 1, maxReplicas: 1}
  autoMigration: {podUnschedulableFor: 0s, capacityTTL: 5m}
  failover: {clusterNotReadyFor: 90s, failback: Never}
)";

struct PolicyCase {
  const char* name;
  std::function<void(PropagationPolicy&)> mutate;
  std::vector<std::string> expectedFields;  // empty: must stay valid
};

// Keeps test names short in ctest (gtest would otherwise print the struct's bytes).
void PrintTo(const PolicyCase& c, std::ostream* os) { *os << c.name; }

class PolicyValidationTest : public ::testing::TestWithParam<PolicyCase> {};

TEST(PolicyValidationBaseTest, SampleIsValid) {
  EXPECT_THAT(validate(fromYaml<PropagationPolicy>(kPolicy)), IsEmpty());
}

TEST_P(PolicyValidationTest, ReportsExactFieldPath) {
  PropagationPolicy p = fromYaml<PropagationPolicy>(kPolicy);
  GetParam().mutate(p);
  FieldErrors errors = validate(p);
  EXPECT_EQ(fields(errors), GetParam().expectedFields)
      << (errors.empty() ? "no errors" : errors.front().str());
}

ReplicaScheduling& rs(PropagationPolicy& p) { return *p.spec.placement.replicaScheduling; }

INSTANTIATE_TEST_SUITE_P(
    Rules, PolicyValidationTest,
    ::testing::Values(
        PolicyCase{"NameMustBeDns1123", [](auto& p) { p.metadata.name = "Web_1"; }, {"metadata.name"}},
        PolicyCase{"GenerateNameSuffices",
                   [](auto& p) {
                     p.metadata.name = "";
                     p.metadata.generateName = "web-";
                   },
                   {}},
        PolicyCase{"NameRequired", [](auto& p) { p.metadata.name = ""; }, {"metadata.name"}},
        PolicyCase{"LabelValueSyntax",
                   [](auto& p) { p.metadata.labels["app"] = "not valid!"; }, {"metadata.labels[app]"}},
        PolicyCase{"ResourceSelectorsRequired", [](auto& p) { p.spec.resourceSelectors.clear(); },
                   {"spec.resourceSelectors"}},
        PolicyCase{"SelectorKindRequired", [](auto& p) { p.spec.resourceSelectors[0].kind = ""; },
                   {"spec.resourceSelectors[0].kind"}},
        PolicyCase{"SelectorApiVersionRequired",
                   [](auto& p) { p.spec.resourceSelectors[0].apiVersion = ""; },
                   {"spec.resourceSelectors[0].apiVersion"}},
        PolicyCase{"SelectorInOtherNamespace",
                   [](auto& p) { p.spec.resourceSelectors[0].namespace_ = "other"; },
                   {"spec.resourceSelectors[0].namespace"}},
        PolicyCase{"SelectorNamespaceMayBeOmitted",
                   [](auto& p) { p.spec.resourceSelectors[0].namespace_ = ""; }, {}},
        PolicyCase{"SelectorLabelSelector",
                   [](auto& p) {
                     p.spec.resourceSelectors[0].labelSelector =
                         LabelSelector{{}, {{"app", "In", {}}}};
                   },
                   {"spec.resourceSelectors[0].labelSelector.matchExpressions[0].values"}},
        PolicyCase{"ProfileName", [](auto& p) { p.spec.schedulingProfile = "Fast!"; },
                   {"spec.schedulingProfile"}},
        PolicyCase{"AffinityClusterName",
                   [](auto& p) { p.spec.placement.clusterAffinity->clusterNames[1] = "Member2"; },
                   {"spec.placement.clusterAffinity.clusterNames[1]"}},
        PolicyCase{"AffinityExcludeName",
                   [](auto& p) { p.spec.placement.clusterAffinity->exclude = {"bad name"}; },
                   {"spec.placement.clusterAffinity.exclude[0]"}},
        PolicyCase{"AffinityLabelSelectorOperator",
                   [](auto& p) {
                     p.spec.placement.clusterAffinity->labelSelector->matchExpressions = {
                         {"env", "Like", {"x"}}};
                   },
                   {"spec.placement.clusterAffinity.labelSelector.matchExpressions[0].operator"}},
        PolicyCase{"FieldSelectorKey",
                   [](auto& p) {
                     p.spec.placement.clusterAffinity->fieldSelector->matchExpressions[0].key = "color";
                   },
                   {"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key"}},
        PolicyCase{"FieldSelectorProviderNotIn",
                   [](auto& p) {
                     p.spec.placement.clusterAffinity->fieldSelector->matchExpressions[0] = {
                         "provider", "NotIn", {"legacy"}};
                   },
                   {}},
        PolicyCase{"FieldSelectorOperator",
                   [](auto& p) {
                     p.spec.placement.clusterAffinity->fieldSelector->matchExpressions[0].operator_ =
                         "Exists";
                   },
                   {"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].operator"}},
        PolicyCase{"FieldSelectorValues",
                   [](auto& p) {
                     p.spec.placement.clusterAffinity->fieldSelector->matchExpressions[0].values.clear();
                   },
                   {"spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].values"}},
        PolicyCase{"TolerationOperator",
                   [](auto& p) { p.spec.placement.clusterTolerations[0].operator_ = "Matches"; },
                   {"spec.placement.clusterTolerations[0].operator"}},
        PolicyCase{"TolerationExistsWithValue",
                   [](auto& p) { p.spec.placement.clusterTolerations[0].value = "x"; },
                   {"spec.placement.clusterTolerations[0].value"}},
        PolicyCase{"TolerationEqual",
                   [](auto& p) {
                     p.spec.placement.clusterTolerations[0] = {"dedicated", "Equal", "batch", "NoSchedule"};
                   },
                   {}},
        PolicyCase{"SpreadFieldEnum",
                   [](auto& p) { p.spec.placement.spreadConstraints[0].spreadByField = "rack"; },
                   {"spec.placement.spreadConstraints[0].spreadByField"}},
        PolicyCase{"SpreadFieldAndLabel",
                   [](auto& p) { p.spec.placement.spreadConstraints[0].spreadByLabel = "rack"; },
                   {"spec.placement.spreadConstraints[0]"}},
        PolicyCase{"SpreadByLabelAlone",
                   [](auto& p) {
                     p.spec.placement.spreadConstraints[0].spreadByField = "";
                     p.spec.placement.spreadConstraints[0].spreadByLabel = "topology.io/rack";
                   },
                   {}},
        PolicyCase{"SpreadNeitherFieldNorLabel",
                   [](auto& p) { p.spec.placement.spreadConstraints[0].spreadByField = ""; },
                   {"spec.placement.spreadConstraints[0]"}},
        PolicyCase{"SpreadMinGroupsMinimum",
                   [](auto& p) { p.spec.placement.spreadConstraints[0].minGroups = 0; },
                   {"spec.placement.spreadConstraints[0].minGroups"}},
        PolicyCase{"SpreadMaxGroupsBelowMin",
                   [](auto& p) { p.spec.placement.spreadConstraints[1].maxGroups = 1; },
                   {"spec.placement.spreadConstraints[1].maxGroups"}},
        PolicyCase{"SpreadMaxGroupsBelowDefaultMin",
                   [](auto& p) {
                     p.spec.placement.spreadConstraints[1].minGroups.reset();
                     p.spec.placement.spreadConstraints[1].maxGroups = 0;
                   },
                   {"spec.placement.spreadConstraints[1].maxGroups",
                    "spec.placement.spreadConstraints[1].maxGroups"}},
        PolicyCase{"SpreadClusterRequiredWithRegion",
                   [](auto& p) { p.spec.placement.spreadConstraints.pop_back(); },
                   {"spec.placement.spreadConstraints"}},
        PolicyCase{"SpreadClusterAloneIsFine",
                   [](auto& p) {
                     p.spec.placement.spreadConstraints.erase(p.spec.placement.spreadConstraints.begin());
                   },
                   {}},
        PolicyCase{"SpreadDuplicateField",
                   [](auto& p) { p.spec.placement.spreadConstraints[0].spreadByField = "cluster"; },
                   {"spec.placement.spreadConstraints[1]"}},
        PolicyCase{"TopologyKeyRequired",
                   [](auto& p) { p.spec.placement.topologySpreadConstraints[0].topologyKey = ""; },
                   {"spec.placement.topologySpreadConstraints[0].topologyKey"}},
        PolicyCase{"TopologyKeyClusterLabel",
                   [](auto& p) {
                     p.spec.placement.topologySpreadConstraints[0].topologyKey = "flotilla.io/rack";
                   },
                   {}},
        PolicyCase{"TopologyKeyInvalid",
                   [](auto& p) { p.spec.placement.topologySpreadConstraints[0].topologyKey = "a b"; },
                   {"spec.placement.topologySpreadConstraints[0].topologyKey"}},
        PolicyCase{"TopologyMaxSkewMinimum",
                   [](auto& p) { p.spec.placement.topologySpreadConstraints[0].maxSkew = 0; },
                   {"spec.placement.topologySpreadConstraints[0].maxSkew"}},
        PolicyCase{"TopologyWhenUnsatisfiableEnum",
                   [](auto& p) {
                     p.spec.placement.topologySpreadConstraints[0].whenUnsatisfiable = "Never";
                   },
                   {"spec.placement.topologySpreadConstraints[0].whenUnsatisfiable"}},
        PolicyCase{"TopologyWhenUnsatisfiableRequired",
                   [](auto& p) { p.spec.placement.topologySpreadConstraints[0].whenUnsatisfiable = ""; },
                   {"spec.placement.topologySpreadConstraints[0].whenUnsatisfiable"}},
        PolicyCase{"TopologyDuplicate",
                   [](auto& p) {
                     auto c = p.spec.placement.topologySpreadConstraints[0];
                     p.spec.placement.topologySpreadConstraints.push_back(c);
                   },
                   {"spec.placement.topologySpreadConstraints[1]"}},
        PolicyCase{"MaxClustersMinimum", [](auto& p) { p.spec.placement.maxClusters = -1; },
                   {"spec.placement.maxClusters"}},
        PolicyCase{"ReplicaTypeEnum", [](auto& p) { rs(p).type = "Split"; },
                   {"spec.placement.replicaScheduling.type"}},
        PolicyCase{"DivisionEnum", [](auto& p) { rs(p).division = "Random"; },
                   {"spec.placement.replicaScheduling.division"}},
        PolicyCase{"AggregatedDivision", [](auto& p) { rs(p).division = "Aggregated"; }, {}},
        PolicyCase{"DynamicWeightEnum",
                   [](auto& p) {
                     rs(p).weights.clear();
                     rs(p).dynamicWeight = "Random";
                   },
                   {"spec.placement.replicaScheduling.dynamicWeight"}},
        PolicyCase{"DynamicWeightWithoutWeights",
                   [](auto& p) {
                     rs(p).weights.clear();
                     rs(p).dynamicWeight = "AvailableReplicas";
                   },
                   {}},
        PolicyCase{"DynamicAndStaticWeights", [](auto& p) { rs(p).dynamicWeight = "AvailableReplicas"; },
                   {"spec.placement.replicaScheduling.dynamicWeight"}},
        PolicyCase{"WeightsWithDuplicated", [](auto& p) { rs(p).type = "Duplicated"; },
                   {"spec.placement.replicaScheduling.weights"}},
        PolicyCase{"WeightMinimum", [](auto& p) { rs(p).weights[0].weight = -1; },
                   {"spec.placement.replicaScheduling.weights[0].weight"}},
        PolicyCase{"WeightMaximum", [](auto& p) { rs(p).weights[0].weight = 1'000'001; },
                   {"spec.placement.replicaScheduling.weights[0].weight"}},
        PolicyCase{"WeightAtMaximum", [](auto& p) { rs(p).weights[0].weight = 1'000'000; }, {}},
        PolicyCase{"MinReplicasMinimum", [](auto& p) { rs(p).weights[0].minReplicas = -1; },
                   {"spec.placement.replicaScheduling.weights[0].minReplicas"}},
        PolicyCase{"MaxReplicasBelowMin", [](auto& p) { rs(p).weights[0].maxReplicas = 0; },
                   {"spec.placement.replicaScheduling.weights[0].maxReplicas"}},
        PolicyCase{"TargetClusterRequired",
                   [](auto& p) { rs(p).weights[0].targetCluster.clusterNames.clear(); },
                   {"spec.placement.replicaScheduling.weights[0].targetCluster"}},
        PolicyCase{"TargetClusterWildcard",
                   [](auto& p) { rs(p).weights[0].targetCluster.clusterNames = {"*"}; }, {}},
        PolicyCase{"PodUnschedulableForDuration",
                   [](auto& p) { p.spec.autoMigration->podUnschedulableFor = "5 minutes"; },
                   {"spec.autoMigration.podUnschedulableFor"}},
        PolicyCase{"PodUnschedulableForNegative",
                   [](auto& p) { p.spec.autoMigration->podUnschedulableFor = "-1s"; },
                   {"spec.autoMigration.podUnschedulableFor"}},
        PolicyCase{"CapacityTtlPositive", [](auto& p) { p.spec.autoMigration->capacityTTL = "0"; },
                   {"spec.autoMigration.capacityTTL"}},
        PolicyCase{"ClusterNotReadyForDuration",
                   [](auto& p) { p.spec.failover->clusterNotReadyFor = "1y"; },
                   {"spec.failover.clusterNotReadyFor"}},
        PolicyCase{"FailbackEnum", [](auto& p) { p.spec.failover->failback = "Always"; },
                   {"spec.failover.failback"}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ClusterPropagationPolicyValidationTest, SelectorsMayNameAnyNamespace) {
  auto cpp = fromYaml<ClusterPropagationPolicy>(R"(
kind: ClusterPropagationPolicy
metadata: {name: fleet}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: team-a}]
)");
  EXPECT_THAT(validate(cpp), IsEmpty());
  cpp.spec.resourceSelectors[0].namespace_ = "Team_A";
  EXPECT_THAT(fields(validate(cpp)), ElementsAre("spec.resourceSelectors[0].namespace"));
}

const char* kCluster = R"(
kind: FederatedCluster
metadata: {name: member1}
spec:
  apiEndpoint: https://10.0.0.1:6443/prefix
  secretRef: {namespace: flotilla-system, name: member1-credentials}
  provider: aws
  region: eu-west-1
  zone: eu-west-1a
  taints: [{key: dedicated, value: batch, effect: NoSchedule}]
)";

TEST(FederatedClusterValidationTest, SampleIsValid) {
  EXPECT_THAT(validate(fromYaml<FederatedCluster>(kCluster)), IsEmpty());
}

TEST(FederatedClusterValidationTest, NameIsDnsLabel) {
  auto c = fromYaml<FederatedCluster>(kCluster);
  c.metadata.name = "member.one";  // a subdomain, but not a label
  EXPECT_THAT(fields(validate(c)), ElementsAre("metadata.name"));
}

TEST(FederatedClusterValidationTest, ApiEndpointMustBePlainHttpsUrl) {
  for (const char* bad : {"", "http://10.0.0.1:6443", "https://user:pw@10.0.0.1", "https://h/?x=1",
                          "https://h/#frag", "10.0.0.1:6443", "https://", "ftp://h"}) {
    auto c = fromYaml<FederatedCluster>(kCluster);
    c.spec.apiEndpoint = bad;
    EXPECT_THAT(fields(validate(c)), ElementsAre("spec.apiEndpoint")) << bad;
  }
  auto c = fromYaml<FederatedCluster>(kCluster);
  c.spec.apiEndpoint = "https://[::1]:6443";
  EXPECT_THAT(validate(c), IsEmpty());
}

TEST(FederatedClusterValidationTest, InsecureSkipTLSVerifyIsRefused) {
  auto c = fromYaml<FederatedCluster>(kCluster);
  c.spec.insecureSkipTLSVerify = true;
  EXPECT_THAT(fields(validate(c)), ElementsAre("spec.insecureSkipTLSVerify"));
}

TEST(FederatedClusterValidationTest, SecretRefAndTopologyAndTaints) {
  auto c = fromYaml<FederatedCluster>(kCluster);
  c.spec.secretRef.name = "";
  c.spec.region = "eu west";
  c.spec.taints.push_back({"dedicated", "other", "NoSchedule", ""});
  c.spec.taints.push_back({"x", "", "Sometimes", ""});
  EXPECT_THAT(fields(validate(c)), ElementsAre("spec.secretRef.name", "spec.region",
                                               "spec.taints[1]", "spec.taints[2].effect"));
}

const char* kWorkload = R"(
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      replicas: 3
      template:
        spec:
          containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]
  overrides:
    - clusterName: member1
      patches:
        - {op: replace, path: /spec/replicas, value: 1}
        - {op: move, from: /metadata/labels/a, path: /metadata/labels/b}
)";

TEST(FederatedDeploymentValidationTest, Rules) {
  EXPECT_THAT(validate(fromYaml<FederatedDeployment>(kWorkload)), IsEmpty());
  auto w = fromYaml<FederatedDeployment>(kWorkload);
  w.spec.template_.spec.replicas = -1;
  w.spec.template_.spec.template_.spec.containers[0].resources.requests["cpu"] =
      Quantity::parse("-1").value();
  w.spec.overrides[0].patches[0].op = "merge";
  w.spec.overrides[0].patches[0].path = "spec.replicas";
  w.spec.overrides[0].patches[1].from = "";
  w.spec.overrides.push_back(w.spec.overrides[0]);
  w.spec.overrides.back().patches.clear();
  EXPECT_THAT(fields(validate(w)),
              ElementsAre("spec.template.spec.replicas",
                          "spec.template.spec.template.spec.containers[0].resources.requests[cpu]",
                          "spec.overrides[0].patches[0].op", "spec.overrides[0].patches[0].path",
                          "spec.overrides[0].patches[1].from", "spec.overrides[1].clusterName"));
}

const char* kBinding = R"(
kind: ResourceBinding
metadata: {name: web-deployment, namespace: shop}
spec:
  resource: {apiVersion: flotilla.io/v1alpha1, kind: FederatedDeployment, name: web}
  replicas: 6
  policy: {kind: PropagationPolicy, name: web}
  clusters: [{name: member1, replicas: 4}, {name: member2, replicas: 2}]
)";

TEST(ResourceBindingValidationTest, Rules) {
  EXPECT_THAT(validate(fromYaml<ResourceBinding>(kBinding)), IsEmpty());
  auto b = fromYaml<ResourceBinding>(kBinding);
  b.spec.resource.name = "";
  b.spec.replicas = -2;
  b.spec.policy.kind = "Policy";
  b.spec.placement.maxClusters = -1;
  b.spec.clusters[1].name = "member1";
  b.spec.clusters[1].replicas = -1;
  b.status.lastScheduleType = "Whenever";
  EXPECT_THAT(fields(validate(b)),
              ElementsAre("spec.resource.name", "spec.replicas", "spec.policy.kind",
                          "spec.placement.maxClusters", "spec.clusters[1].replicas",
                          "spec.clusters[1].name", "status.lastScheduleType"));
}

const char* kProfile = R"(
kind: SchedulingProfile
metadata: {name: fast}
spec:
  plugins:
    filter: {disabled: [{name: "*"}], enabled: [{name: ClusterReady}]}
    score: {enabled: [{name: Locality, weight: 3}, {name: LeastAllocated}]}
  pluginConfig: [{name: LeastAllocated, args: {resources: [{name: cpu, weight: 1}]}}]
)";

TEST(SchedulingProfileValidationTest, Rules) {
  EXPECT_THAT(validate(fromYaml<SchedulingProfile>(kProfile)), IsEmpty());
  auto sp = fromYaml<SchedulingProfile>(kProfile);
  sp.spec.plugins.score.enabled[0].weight = 0;                      // 0 is rejected
  sp.spec.plugins.score.enabled[1].name = "Fastest";                // unknown plugin
  sp.spec.plugins.filter.enabled.push_back({"ClusterReady", 2});    // duplicate + weight on filter
  sp.spec.plugins.select.enabled.push_back({"*", std::nullopt});    // "*" only disables
  sp.spec.pluginConfig.push_back({"Nope", boost::json::value(3)});  // unknown + args not object
  EXPECT_THAT(
      fields(validate(sp)),
      ElementsAre("spec.plugins.filter.enabled[1].name", "spec.plugins.filter.enabled[1].weight",
                  "spec.plugins.score.enabled[0].weight", "spec.plugins.score.enabled[1].name",
                  "spec.plugins.select.enabled[0].name", "spec.pluginConfig[1].name",
                  "spec.pluginConfig[1].args"));
}

const char* kExtender = R"(
kind: SchedulerExtender
metadata: {name: cost}
spec:
  urlPrefix: https://cost.example:8443/scheduler
  filterVerb: filter
  prioritizeVerb: prioritize
  weight: 2
  httpTimeout: 2s
  tls: {caBundle: "TUlJQg=="}
)";

TEST(SchedulerExtenderValidationTest, Rules) {
  EXPECT_THAT(validate(fromYaml<SchedulerExtender>(kExtender)), IsEmpty());
  auto se = fromYaml<SchedulerExtender>(kExtender);
  se.spec.urlPrefix = "http://127.0.0.1:8080/x";  // plain http is fine on loopback
  EXPECT_THAT(validate(se), IsEmpty());
  se.spec.urlPrefix = "http://cost.example/x";
  se.spec.prioritizeVerb = "a/b";
  se.spec.weight = 0;
  se.spec.httpTimeout = "soon";
  se.spec.tls->caBundle = "not base64!";
  EXPECT_THAT(fields(validate(se)),
              ElementsAre("spec.urlPrefix", "spec.prioritizeVerb", "spec.weight",
                          "spec.httpTimeout", "spec.tls.caBundle"));
  se = fromYaml<SchedulerExtender>(kExtender);
  se.spec.filterVerb = "";
  se.spec.prioritizeVerb = "";
  EXPECT_THAT(fields(validate(se)), ElementsAre("spec"));
  se = fromYaml<SchedulerExtender>(kExtender);
  se.spec.httpTimeout = "30s";
  EXPECT_THAT(validate(se), IsEmpty());
  se.spec.httpTimeout = "31s";  // a filter call holds a scheduler worker (docs/security.md L4)
  EXPECT_THAT(fields(validate(se)), ElementsAre("spec.httpTimeout"));
}

TEST(ValidationMessageTest, ReadsLikeKubernetes) {
  auto p = fromYaml<PropagationPolicy>(kPolicy);
  p.spec.placement.spreadConstraints[1].maxGroups = 1;
  FieldErrors errors = validate(p);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].str(), "spec.placement.spreadConstraints[1].maxGroups: must be >= minGroups");
}

}  // namespace
}  // namespace flotilla::api
