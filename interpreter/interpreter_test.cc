#include "interpreter/interpreter.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(Interpreter, AKindWithoutAnEntryIsAWholeObjectDuplicatedAndHealthyWhenItExists) {
  const auto& registry = Registry::builtIn();
  EXPECT_FALSE(registry.has("example.com", "Widget"));
  const Interpreter widget = registry.of("example.com/v1", "Widget");
  const json::object w = parse(R"({"apiVersion":"example.com/v1","kind":"Widget",
      "metadata":{"name":"w"},"spec":{"replicas":5,"size":"L"}})");
  EXPECT_FALSE(widget.divisible());
  EXPECT_EQ(widget.replicas(w), std::nullopt);  // spec.replicas means nothing to Flotilla here
  json::object revised = w;
  EXPECT_EQ(widget.reviseReplicas(revised, Share{.cluster = "a", .replicas = 2}), "");
  EXPECT_EQ(revised, w);
  EXPECT_EQ(widget.health(&w), (HealthReport{Health::kHealthy, ""}));
  EXPECT_EQ(widget.health(nullptr).health, Health::kUnknown);
  EXPECT_EQ(widget.aggregateStatus(w, {}), std::nullopt);
}

TEST(Interpreter, MemberTemplateKeepsWhatTheUserWroteAndDropsWhatTheServerSet) {
  const json::object source = parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"cfg","namespace":"shop","uid":"u-1","resourceVersion":"42",
        "generation":3,"creationTimestamp":"2026-01-01T00:00:00Z","selfLink":"/x",
        "managedFields":[{"manager":"kubectl"}],"ownerReferences":[{"name":"o"}],
        "finalizers":["f"],"generateName":"cfg-",
        "labels":{"app":"shop"},
        "annotations":{"team":"a",
          "kubectl.kubernetes.io/last-applied-configuration":"{}"}},
      "data":{"k":"v"},"status":{"x":1}})");
  const json::object want = parse(R"({"apiVersion":"v1","kind":"ConfigMap",
      "metadata":{"name":"cfg","namespace":"shop","labels":{"app":"shop"},
        "annotations":{"team":"a"}},
      "data":{"k":"v"}})");
  EXPECT_EQ(Registry::builtIn().of("v1", "ConfigMap").memberTemplate(source), want)
      << json::serialize(Registry::builtIn().of("v1", "ConfigMap").memberTemplate(source));
  // Annotations emptied by the pruning go away altogether.
  const json::object onlyApplied = parse(R"({"metadata":{"name":"n",
      "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}"}}})");
  EXPECT_EQ(Registry::builtIn().of("v1", "ConfigMap").memberTemplate(onlyApplied),
            parse(R"({"metadata":{"name":"n"}})"));
}

TEST(Interpreter, AnObjectBeingDeletedIsProgressing) {
  const json::object cm =
      parse(R"({"metadata":{"name":"c","deletionTimestamp":"2026-01-01T00:00:00Z"}})");
  EXPECT_EQ(Registry::builtIn().of("v1", "ConfigMap").health(&cm).health, Health::kProgressing);
}

TEST(Interpreter, EveryBuiltInKindHasAnEntry) {
  const auto& r = Registry::builtIn();
  for (auto [group, kind] : std::initializer_list<std::pair<const char*, const char*>>{
           {"apps", "Deployment"},
           {"", "ConfigMap"},
           {"", "Secret"},
           {"", "ServiceAccount"},
           {"", "Service"},
           {"", "PersistentVolumeClaim"},
           {"", "Namespace"},
           {"rbac.authorization.k8s.io", "Role"},
           {"rbac.authorization.k8s.io", "RoleBinding"},
           {"rbac.authorization.k8s.io", "ClusterRole"},
           {"rbac.authorization.k8s.io", "ClusterRoleBinding"},
           {"apiextensions.k8s.io", "CustomResourceDefinition"}})
    EXPECT_TRUE(r.has(group, kind)) << group << "/" << kind;
  // Lookups go by group, not version: apps/v1beta2 is the same kind.
  EXPECT_TRUE(r.of("apps/v1beta2", "Deployment").divisible());
  EXPECT_FALSE(r.of("extensions.example/v1", "Deployment").divisible());
}

}  // namespace
}  // namespace flotilla::interpreter
