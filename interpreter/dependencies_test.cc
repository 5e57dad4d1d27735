#include "interpreter/dependencies.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace {

namespace json = boost::json;

json::object parse(const char* text) { return json::parse(text).as_object(); }

Dependency cm(const char* name, bool optional = false) {
  return {"v1", "ConfigMap", "shop", name, optional};
}
Dependency secret(const char* name, bool optional = false) {
  return {"v1", "Secret", "shop", name, optional};
}

struct PodCase {
  const char* name;
  const char* podSpec;
  std::vector<Dependency> want;
};

class PodSpecDependencies : public ::testing::TestWithParam<PodCase> {};

TEST_P(PodSpecDependencies, Table) {
  const auto& c = GetParam();
  EXPECT_EQ(podSpecDependencies(parse(c.podSpec), "shop"), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Table, PodSpecDependencies,
    ::testing::Values(
        PodCase{"Nothing", R"({"containers": [{"name": "a", "image": "x"}]})", {}},
        PodCase{"EnvFromAndValueFrom",
                R"({"containers": [{"name": "a", "envFrom": [{"configMapRef": {"name": "env"}},
                      {"secretRef": {"name": "creds", "optional": true}}],
                    "env": [{"name": "K", "valueFrom": {"configMapKeyRef": {"name": "keys", "key": "k"}}},
                            {"name": "P", "valueFrom": {"secretKeyRef": {"name": "pw", "key": "p"}}},
                            {"name": "PLAIN", "value": "1"}]}]})",
                {cm("env"), cm("keys"), secret("creds", true), secret("pw")}},
        PodCase{
            "InitAndEphemeralContainersToo",
            R"({"initContainers": [{"name": "i", "envFrom": [{"configMapRef": {"name": "init"}}]}],
                    "ephemeralContainers": [{"name": "e", "envFrom": [{"secretRef": {"name": "dbg"}}]}],
                    "containers": []})",
            {cm("init"), secret("dbg")}},
        PodCase{"Volumes",
                R"({"containers": [], "volumes": [
                    {"name": "c", "configMap": {"name": "files"}},
                    {"name": "s", "secret": {"secretName": "tls"}},
                    {"name": "d", "persistentVolumeClaim": {"claimName": "data"}},
                    {"name": "p", "projected": {"sources": [{"configMap": {"name": "proj"}},
                      {"secret": {"name": "projs", "optional": true}},
                      {"serviceAccountToken": {"path": "t"}}]}},
                    {"name": "tmp", "emptyDir": {}}]})",
                {cm("files"),
                 cm("proj"),
                 {"v1", "PersistentVolumeClaim", "shop", "data", false},
                 secret("projs", true),
                 secret("tls")}},
        PodCase{"PullSecretsAndServiceAccount",
                R"({"containers": [], "imagePullSecrets": [{"name": "registry"}],
                    "serviceAccountName": "shop-sa"})",
                {secret("registry"), {"v1", "ServiceAccount", "shop", "shop-sa", false}}},
        PodCase{
            "TheDefaultServiceAccountExistsEverywhere",
            R"({"containers": [], "serviceAccountName": "default", "serviceAccount": "default"})",
            {}},
        PodCase{"TheDeprecatedServiceAccountField",
                R"({"containers": [], "serviceAccount": "old"})",
                {{"v1", "ServiceAccount", "shop", "old", false}}},
        // One object named twice, once optional: required.
        PodCase{
            "RequiredWinsOverOptional",
            R"({"containers": [{"name": "a", "envFrom": [{"configMapRef": {"name": "env", "optional": true}}]}],
                    "volumes": [{"name": "v", "configMap": {"name": "env"}}]})",
            {cm("env")}},
        PodCase{"MalformedPartsAreSkipped",
                R"({"containers": ["x", {"name": "a", "env": [7, {"valueFrom": "no"}]}],
                    "volumes": [3, {"configMap": {"name": ""}}], "imagePullSecrets": [null]})",
                {}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(AnnotatedFollowers, CoreKindsByNameOthersWithTheirApiVersion) {
  const auto followers = annotatedFollowers(parse(R"({"metadata": {"namespace": "shop",
    "annotations": {"flotilla.io/followers":
      "[{\"kind\": \"Service\", \"name\": \"web\"}, {\"kind\": \"Widget\", \"name\": \"w\", \"apiVersion\": \"example.io/v1\"}]"}}})"));
  EXPECT_TRUE(followers.problems.empty());
  EXPECT_EQ(followers.followers,
            (std::vector<Dependency>{{"example.io/v1", "Widget", "shop", "w", false},
                                     {"v1", "Service", "shop", "web", false}}));
}

TEST(AnnotatedFollowers, ProblemsAreNamedNeverThrown) {
  auto problems = [](const char* annotation) {
    json::object o{{"metadata", json::object{{"annotations",
                                              json::object{{kFollowersAnnotation, annotation}}}}}};
    return annotatedFollowers(o);
  };
  EXPECT_EQ(problems("{not json").problems.size(), 1u);
  EXPECT_EQ(problems(R"({"kind": "ConfigMap"})").problems.size(), 1u) << "not a list";
  const auto mixed = problems(R"([{"kind": "ConfigMap", "name": "ok"}, 3, {"kind": "Widget",
    "name": "w"}, {"name": "no-kind"}])");
  EXPECT_EQ(mixed.followers.size(), 1u);
  ASSERT_EQ(mixed.problems.size(), 3u);
  EXPECT_NE(mixed.problems[1].find("needs an apiVersion"), std::string::npos) << mixed.problems[1];
  EXPECT_TRUE(annotatedFollowers(json::object{}).followers.empty());
}

TEST(MayFollow, OptOut) {
  EXPECT_TRUE(mayFollow(parse(R"({"metadata": {"name": "a"}})")));
  EXPECT_FALSE(
      mayFollow(parse(R"({"metadata": {"annotations": {"flotilla.io/follow": "false"}}})")));
  EXPECT_TRUE(mayFollow(parse(R"({"metadata": {"annotations": {"flotilla.io/follow": "true"}}})")));
}

TEST(SelectingServices, ANonEmptySelectorThatMatchesThePodLabels) {
  const auto pods = parse(R"({"app": "web", "tier": "front"})");
  const auto web = parse(R"({"metadata": {"name": "web", "namespace": "shop"},
    "spec": {"selector": {"app": "web"}}})");
  const auto both = parse(R"({"metadata": {"name": "front", "namespace": "shop"},
    "spec": {"selector": {"app": "web", "tier": "front"}}})");
  const auto other = parse(R"({"metadata": {"name": "db", "namespace": "shop"},
    "spec": {"selector": {"app": "db"}}})");
  const auto tooNarrow = parse(R"({"metadata": {"name": "canary", "namespace": "shop"},
    "spec": {"selector": {"app": "web", "track": "canary"}}})");
  const auto noSelector = parse(R"({"metadata": {"name": "external", "namespace": "shop"},
    "spec": {"type": "ExternalName"}})");
  EXPECT_EQ(selectingServices(pods, {&web, &both, &other, &tooNarrow, &noSelector, nullptr}),
            (std::vector<Dependency>{{"v1", "Service", "shop", "front", false},
                                     {"v1", "Service", "shop", "web", false}}));
}

TEST(InterpreterDependencies, ADeploymentsPodTemplateAndItsExtras) {
  const auto deployment = parse(R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "namespace": "shop",
      "annotations": {"flotilla.io/followers": "[{\"kind\": \"Service\", \"name\": \"web\"}]"}},
    "spec": {"template": {"spec": {"containers": [{"name": "a",
      "envFrom": [{"configMapRef": {"name": "env"}}]}]}}}})");
  const auto deps = Registry::builtIn().of("apps/v1", "Deployment").dependencies(deployment);
  EXPECT_EQ(deps.followers,
            (std::vector<Dependency>{cm("env"), {"v1", "Service", "shop", "web", false}}));
  // A kind without its own: only the extras.
  const auto configMap = parse(R"({"apiVersion": "v1", "kind": "ConfigMap",
    "metadata": {"name": "a", "namespace": "shop"}, "data": {}})");
  EXPECT_TRUE(Registry::builtIn().of("v1", "ConfigMap").dependencies(configMap).followers.empty());
}

// Every kind with a pod template, its pod spec where the kind keeps it; a StatefulSet also needs
// its governing Service.
TEST(InterpreterDependencies, EveryKindWithAPodTemplate) {
  const char* pod =
      R"({"containers": [{"name": "a", "envFrom": [{"configMapRef": {"name": "env"}}]}]})";
  auto workload = [&](const char* apiVersion, const char* kind, const char* specJson) {
    auto o = parse(specJson);
    o["apiVersion"] = apiVersion;
    o["kind"] = kind;
    o["metadata"] = json::object{{"name", "w"}, {"namespace", "shop"}};
    return Registry::builtIn().of(apiVersion, kind).dependencies(o).followers;
  };
  const std::string templ = std::string(R"({"spec": {"template": {"spec": )") + pod + "}}}";
  for (const auto& [apiVersion, kind] :
       {std::pair{"apps/v1", "DaemonSet"}, std::pair{"apps/v1", "ReplicaSet"},
        std::pair{"batch/v1", "Job"}})
    EXPECT_EQ(workload(apiVersion, kind, templ.c_str()), std::vector<Dependency>{cm("env")})
        << kind;
  const std::string cron =
      std::string(R"({"spec": {"jobTemplate": {"spec": {"template": {"spec": )") + pod + "}}}}}";
  EXPECT_EQ(workload("batch/v1", "CronJob", cron.c_str()), std::vector<Dependency>{cm("env")});
  const std::string bare = std::string(R"({"spec": )") + pod + "}";
  EXPECT_EQ(workload("v1", "Pod", bare.c_str()), std::vector<Dependency>{cm("env")});
  const std::string sts = std::string(R"({"spec": {"serviceName": "db", "template": {"spec": )") +
                          pod + R"(}, "volumeClaimTemplates": [{"metadata": {"name": "data"}}]}})";
  EXPECT_EQ(workload("apps/v1", "StatefulSet", sts.c_str()),
            (std::vector<Dependency>{cm("env"), {"v1", "Service", "shop", "db", false}}));
}

}  // namespace
}  // namespace flotilla::interpreter
