// FollowerIndex against a real API server's caches (flotilla-sim by default): a follower's leaders
// come from what names it (the needs index) and, for a Service, from the pods it selects; the
// answers follow the caches as federated objects and bindings change (docs/design.md §12).
#include "controllers/dependencies/follower_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "controllers/common/typed.h"
#include "controllers/testing/reconciler_env.h"

namespace flotilla::controllers::dependencies {
namespace {

namespace json = boost::json;
namespace res = resources;

// A FederatedDeployment "NAME" whose pods carry app=NAME and read ConfigMap `configMap`.
std::string federatedDeployment(const std::string& name, const std::string& configMap) {
  return R"({"apiVersion": "flotilla.io/v1alpha1", "kind": "FederatedDeployment",
    "metadata": {"name": ")" +
         name + R"("}, "spec": {"template": {"metadata": {"labels": {"app": ")" + name +
         R"("}}, "spec": {"replicas": 2, "selector": {"matchLabels": {"app": ")" + name +
         R"("}}, "template": {"metadata": {"labels": {"app": ")" + name +
         R"(", "tier": "front"}}, "spec": {"containers": [{"name": "c", "image": "nginx",
          "envFrom": [{"configMapRef": {"name": ")" +
         configMap + R"("}}]}]}}}}}})";
}

// The binding of FederatedDeployment NAME, placed on `cluster`.
std::string binding(const std::string& name, const std::string& cluster) {
  return R"({"apiVersion": "flotilla.io/v1alpha1", "kind": "ResourceBinding",
    "metadata": {"name": ")" +
         name + R"("}, "spec": {"resource": {"apiVersion": "flotilla.io/v1alpha1",
      "kind": "FederatedDeployment", "name": ")" +
         name + R"("}, "replicas": 2, "clusters": [{"name": ")" + cluster +
         R"(", "replicas": 2}]}})";
}

class FollowerIndexTest : public testing::ReconcilerTest {
 protected:
  void SetUp() override {
    ReconcilerTest::SetUp();
    fds = &informer(res::kFederatedDeployments);
    fos = &informer(res::kFederatedObjects);
    rbs = &informer(res::kResourceBindings);
  }
  kube::ObjectPtr service(const std::string& name, const std::string& selectorJson) {
    auto o = testing::parseObject(R"({"apiVersion": "v1", "kind": "Service",
      "metadata": {"name": ")" + name +
                                  R"("}, "spec": {"selector": )" + selectorJson + "}}");
    o["metadata"].as_object()["namespace"] = ns;
    return std::make_shared<const json::object>(std::move(o));
  }
  Dependency dep(const char* kind, const char* name) { return {"v1", kind, ns, name, false}; }
  std::vector<std::string> leaderNames(const FollowerIndex& index, const Dependency& d) {
    std::vector<std::string> out;
    for (const auto& leader : index.leadersOf(d)) out.push_back(leader.key);
    std::sort(out.begin(), out.end());
    return out;
  }

  kube::SharedInformer *fds, *fos, *rbs;
};

TEST_F(FollowerIndexTest, AFollowersLeadersAreWhatNamesItOrSelectsItsPods) {
  // The Services as SourceInformers' caches hold them, indexed by their selectors.
  kube::Indexer serviceCache;
  serviceCache.addIndex(kSelectorIndex, selectorIndexValues);
  FollowerIndex index({*rbs, *fds, *fos}, {.named =
                                               [&](const std::string& n, const std::string& name) {
                                                 return serviceCache.get(n + "/" + name);
                                               },
                                           .selecting =
                                               [&](const std::string&, const std::string& value) {
                                                 return serviceCache.byIndex(kSelectorIndex, value);
                                               }});
  for (const auto& s :
       {service("web", R"({"app": "web"})"), service("narrow", R"({"app": "web", "x": "y"})"),
        service("front", R"({"tier": "front"})"), service("none", R"({})")})
    serviceCache.upsert(s);
  create(res::kFederatedDeployments, federatedDeployment("web", "env"));
  create(res::kFederatedDeployments, federatedDeployment("api", "api-env"));
  create(res::kResourceBindings, binding("web", "member1"));
  create(res::kResourceBindings, binding("api", "member2"));
  for (const char* name : {"web", "api"}) {
    caughtUp(*fds, name);
    caughtUp(*rbs, name);
  }

  EXPECT_EQ(leaderNames(index, dep("ConfigMap", "env")), std::vector<std::string>{"web"});
  EXPECT_EQ(leaderNames(index, dep("ConfigMap", "api-env")), std::vector<std::string>{"api"});
  EXPECT_TRUE(leaderNames(index, dep("ConfigMap", "other")).empty());
  EXPECT_EQ(leaderNames(index, dep("Service", "web")), std::vector<std::string>{"web"});
  EXPECT_TRUE(leaderNames(index, dep("Service", "narrow")).empty())
      << "its selector wants a label the pods do not carry";
  EXPECT_EQ(leaderNames(index, dep("Service", "front")), (std::vector<std::string>{"api", "web"}));
  EXPECT_TRUE(leaderNames(index, dep("Service", "none")).empty()) << "selects nothing";
  // What web's binding needs: its ConfigMap and the Services selecting its pods.
  EXPECT_EQ(index.followerKeysOf(*rbs->store().get(ns + "/web")),
            (std::vector<std::string>{"ConfigMap/v1:" + ns + "/env", "Service/v1:" + ns + "/front",
                                      "Service/v1:" + ns + "/web"}));
  const auto required = index.requiredBy(dep("ConfigMap", "env"));
  ASSERT_EQ(required.size(), 1u);
  EXPECT_EQ(required[0].name, "web");
  EXPECT_EQ(required[0].clusters, std::vector<std::string>{"member1"});

  // web now reads api-env too (a template edit): both lead it; env follows nobody.
  auto fd = get(res::kFederatedDeployments, "web");
  fd["spec"]
      .as_object()["template"]
      .as_object()["spec"]
      .as_object()["template"]
      .as_object()["spec"]
      .as_object()["containers"]
      .as_array()[0]
      .as_object()["envFrom"] = json::parse(R"([{"configMapRef": {"name": "api-env"}}])");
  ASSERT_TRUE(io.run(client->update(res::kFederatedDeployments, fd)));
  caughtUp(*fds, "web");
  EXPECT_EQ(leaderNames(index, dep("ConfigMap", "api-env")),
            (std::vector<std::string>{"api", "web"}));
  EXPECT_TRUE(leaderNames(index, dep("ConfigMap", "env")).empty());
  EXPECT_TRUE(index.requiredBy(dep("ConfigMap", "env")).empty());
}

TEST_F(FollowerIndexTest, BindingsRequiringALeaderAreALookupOfTheirRequiredBy) {
  FollowerIndex index({*rbs, *fds, *fos}, {});
  create(res::kFederatedDeployments, federatedDeployment("web", "env"));
  create(res::kResourceBindings, binding("web", "member1"));
  auto follower = testing::parseObject(binding("env-configmap", "member1"));
  follower["spec"].as_object().erase("clusters");
  follower["spec"].as_object()["requiredBy"] =
      json::parse(R"([{"namespace": ")" + ns + R"(", "name": "web", "clusters": ["member1"]}])");
  create(*client, res::kResourceBindings, follower);
  caughtUp(*fds, "web");
  caughtUp(*rbs, "web");
  caughtUp(*rbs, "env-configmap");

  const auto leader = rbs->store().get(ns + "/web");
  ASSERT_TRUE(leader);
  const auto requiring = index.bindingsRequiring(*leader);
  ASSERT_EQ(requiring.size(), 1u);
  EXPECT_EQ(kube::objectKey(*requiring[0]), ns + "/env-configmap");
  EXPECT_EQ(index.followerBindingsOf(*leader),
            (std::vector<std::string>{ns + "/env-configmap", ns + "/env-configmap"}))
      << "named by the template, and recorded in requiredBy";

  // No longer required: the lookup follows the cache.
  auto current = get(res::kResourceBindings, "env-configmap");
  current["spec"].as_object().erase("requiredBy");
  ASSERT_TRUE(io.run(client->update(res::kResourceBindings, current)));
  caughtUp(*rbs, "env-configmap");
  EXPECT_TRUE(index.bindingsRequiring(*leader).empty());
}

// A custom resource needs its CRD (cluster-scoped): the leaders of the CRD are the custom
// resources of every namespace whose kind it serves, and its requirements name each with its own
// namespace. A kind without a cached CRD (an aggregated API) needs none.
TEST_F(FollowerIndexTest, ACustomResourceNeedsItsCrdInEveryNamespace) {
  // (A group of this test's own: the host outlives a test, and other runs' Widgets stay on it.)
  const std::string group = ns + ".example.com";
  const std::string crdName = "widgets." + group;
  kube::Indexer crdCache;
  crdCache.addIndex(kCrdIndex, crdIndexValues);
  crdCache.upsert(std::make_shared<const json::object>(testing::parseObject(
      R"({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
          "metadata": {"name": ")" + crdName + R"("},
          "spec": {"group": ")" + group + R"(", "scope": "Namespaced",
                   "names": {"kind": "Widget", "plural": "widgets"}}})")));
  FollowerIndex index({*rbs, *fds, *fos}, {}, nullptr,
                      {.serving =
                           [&](const std::string& group, const std::string& kind) {
                             auto found = crdCache.byIndex(kCrdIndex, group + "/" + kind);
                             return found.empty() ? nullptr : found.front();
                           },
                       .named = [&](const std::string& name) { return crdCache.get(name); }});
  const std::string other = ns + "-b";
  create(*client, res::kNamespaces,
         json::object{{"apiVersion", "v1"},
                      {"kind", "Namespace"},
                      {"metadata", json::object{{"name", other}}}});
  // A FederatedObject of `apiVersion`/`kind` NAME and its binding on `cluster`, in namespace
  // `in`.
  auto customResource = [&](std::string in, const std::string& apiVersion,
                            const std::string& kind, const std::string& name,
                            const std::string& cluster) {
    std::swap(ns, in);  // (the fixture creates in `ns`)
    const std::string federated =
        federatedName(name, kind, apiVersion.substr(0, apiVersion.find('/')));
    auto fo = create(res::kFederatedObjects,
                     R"({"apiVersion": "flotilla.io/v1alpha1", "kind": "FederatedObject",
                         "metadata": {"name": ")" + federated + R"("},
                         "spec": {"template": {"apiVersion": ")" + apiVersion + R"(",
                           "kind": ")" + kind + R"(", "metadata": {"name": ")" + name +
                         R"("}, "spec": {"size": 1}}}})");
    auto rb = testing::parseObject(binding(federated, cluster));
    rb["spec"].as_object()["resource"] = json::object{
        {"apiVersion", apiVersion}, {"kind", kind}, {"namespace", ns}, {"name", name}};
    rb["metadata"].as_object()["ownerReferences"] = json::array{json::object{
        {"apiVersion", "flotilla.io/v1alpha1"},
        {"kind", "FederatedObject"},
        {"name", federated},
        {"uid", fo["metadata"].as_object()["uid"]},
        {"controller", true}}};
    create(*client, res::kResourceBindings, rb);
    caughtUpOn(*client, *fos, ns, federated);
    caughtUpOn(*client, *rbs, ns, federated);
    std::swap(ns, in);
    return federated;
  };
  const std::string here = ns;
  const auto a = customResource(here, group + "/v1", "Widget", "a", "member1");
  const auto b = customResource(other, group + "/v1", "Widget", "b", "member2");
  const auto m = customResource(here, "metrics.example.org/v1", "Sample", "m", "member1");

  const Dependency crd{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "", crdName, false};
  const auto leaders = index.leadersOf(crd);
  ASSERT_EQ(leaders.size(), 2u);
  const auto required = index.requiredBy(crd);
  ASSERT_EQ(required.size(), 2u);
  using Requirement = std::tuple<std::string, std::string, std::vector<std::string>>;
  std::vector<Requirement> got;
  for (const auto& r : required) got.emplace_back(r.namespace_, r.name, r.clusters);
  std::sort(got.begin(), got.end());
  const std::vector<Requirement> want{{here, a, {"member1"}}, {other, b, {"member2"}}};
  EXPECT_EQ(got, want);
  const ObjectKey crdKey{"apiextensions.k8s.io/v1", "CustomResourceDefinition", "", crdName};
  EXPECT_EQ(index.followerKeysOf(*rbs->store().get(here + "/" + a)),
            std::vector<std::string>{crdKey.str()});
  EXPECT_FALSE(index.leaderOf(*rbs->store().get(here + "/" + m)))
      << "no CRD serves metrics.example.org Sample: it needs nothing";
}

}  // namespace
}  // namespace flotilla::controllers::dependencies
