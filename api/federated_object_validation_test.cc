// Validation and defaulting of FederatedObject, ClusterFederatedObject and ClusterResourceBinding,
// and the never-propagated rule they share with the policy resolver.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "api/json_codec.h"
#include "api/validation.h"

namespace flotilla::api {
namespace {
namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(NeverPropagated, Kinds) {
  struct Case {
    const char* apiVersion;
    const char* kind;
    const char* object;  // "" = none
    bool never;
  };
  const Case cases[] = {
      {"flotilla.io/v1alpha1", "PropagationPolicy", "", true},
      {"flotilla.io/v1alpha1", "FederatedObject", "", true},
      {"v1", "Event", "", true},
      {"events.k8s.io/v1", "Event", "", true},
      {"coordination.k8s.io/v1", "Lease", "", true},
      {"v1", "Endpoints", "", true},
      {"discovery.k8s.io/v1", "EndpointSlice", "", true},
      {"v1", "Node", "", true},
      {"v1", "Secret", R"({"type":"kubernetes.io/service-account-token"})", true},
      {"v1", "Secret", R"({"type":"Opaque"})", false},
      {"v1", "ConfigMap", R"({"metadata":{"name":"kube-root-ca.crt"}})", true},
      {"v1", "ConfigMap", R"({"metadata":{"name":"app-ca.crt"}})", false},
      {"v1", "ServiceAccount", R"({"metadata":{"name":"default"}})", true},
      {"v1", "ServiceAccount", R"({"metadata":{"name":"web"}})", false},
      {"v1", "Secret", "", false},
      {"v1", "ConfigMap", "", false},
      {"apps/v1", "Deployment", "", false},
      {"example.com/v1", "Event", "", false},  // someone else's Event kind
      {"example.com/v1", "Lease", "", false},
  };
  for (const auto& c : cases) {
    json::object object;
    if (*c.object) object = parse(c.object);
    const auto why = neverPropagated(c.apiVersion, c.kind, *c.object ? &object : nullptr);
    EXPECT_EQ(why.has_value(), c.never) << c.apiVersion << " " << c.kind << " " << c.object;
    if (why) {
      EXPECT_FALSE(why->empty());
    }
  }
}

std::vector<std::string> fields(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.field + ": " + e.message);
  return out;
}

FederatedObject fo(std::string_view templateJson, std::string ns = "shop") {
  FederatedObject o;
  o.metadata.name = "cfg-configmap";
  o.metadata.namespace_ = std::move(ns);
  o.spec.template_ = parse(templateJson);
  return o;
}

TEST(FederatedObjectValidation, AValidTemplateAndItsDefaults) {
  FederatedObject o = fo(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cfg"},
      "data":{"k":"v"}})");
  setDefaults(o);
  EXPECT_EQ(o.spec.template_.at("metadata").at("namespace"), "shop");
  EXPECT_TRUE(validate(o).empty()) << fields(validate(o)).front();
  FederatedObject again = o;
  setDefaults(again);  // idempotent
  EXPECT_EQ(encode(again), encode(o));
}

TEST(FederatedObjectValidation, Rules) {
  struct Case {
    const char* name;
    const char* tmpl;
    std::vector<std::string> want;
  };
  const Case cases[] = {
      {"no apiVersion, kind or name",
       R"({"metadata":{}})",
       {"spec.template.apiVersion: Required value", "spec.template.kind: Required value",
        "spec.template.metadata.name: Required value"}},
      {"another namespace",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"other"}})",
       {"spec.template.metadata.namespace: Invalid value: \"other\": must be the "
        "FederatedObject's namespace \"shop\""}},
      {"a path in the name",
       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a/b"}})",
       {"spec.template.metadata.name: Invalid value: \"a/b\": may not be '.' or '..' nor contain "
        "'/' or '%'"}},
      {"an RBAC name",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role",
           "metadata":{"name":"system:Reader"}})",
       {}},
      {"flotilla's own",
       R"({"apiVersion":"flotilla.io/v1alpha1","kind":"PropagationPolicy","metadata":{"name":"p"}})",
       {"spec.template.kind: Forbidden: never propagated: Flotilla's own kinds describe the fleet, "
        "not a workload"}},
      {"a token Secret",
       R"({"apiVersion":"v1","kind":"Secret","type":"kubernetes.io/service-account-token",
           "metadata":{"name":"t"}})",
       {"spec.template.kind: Forbidden: never propagated: ServiceAccount token Secrets are minted "
        "by each cluster for its own ServiceAccounts"}},
      {"a Deployment",
       R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}})",
       {"spec.template.kind: Forbidden: a Deployment's federated form is a FederatedDeployment"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(fields(validate(fo(c.tmpl))), c.want) << c.name;
  }
  // Overrides follow FederatedDeployment's rules.
  FederatedObject o = fo(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}})");
  o.spec.overrides.push_back({"member1", {{"add", "data/x", "", "v"}}});
  EXPECT_EQ(fields(validate(o)),
            std::vector<std::string>{"spec.overrides[0].patches[0].path: Invalid value: "
                                     "\"data/x\": must be a JSON pointer such as /spec/replicas"});
}

TEST(ClusterFederatedObjectValidation, TheTemplateIsClusterScoped) {
  ClusterFederatedObject o;
  o.metadata.name = "reader-clusterrole";
  o.spec.template_ = parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole",
      "metadata":{"name":"reader"},"rules":[]})");
  setDefaults(o);
  EXPECT_TRUE(validate(o).empty());
  EXPECT_FALSE(o.spec.template_.at("metadata").as_object().contains("namespace"));
  o.spec.template_["metadata"].as_object()["namespace"] = "shop";
  EXPECT_EQ(fields(validate(o)),
            std::vector<std::string>{
                "spec.template.metadata.namespace: Invalid value: \"shop\": a "
                "ClusterFederatedObject holds a cluster-scoped object; a namespaced one is a "
                "FederatedObject in its namespace"});
}

TEST(ClusterResourceBindingValidation, SameRulesAsAResourceBindingClusterScoped) {
  ClusterResourceBinding b;
  b.metadata.name = "reader-clusterrole";
  b.spec.resource = {"flotilla.io/v1alpha1", "ClusterFederatedObject", "", "reader-clusterrole",
                     ""};
  setDefaults(b);
  EXPECT_TRUE(validate(b).empty()) << fields(validate(b)).front();
  ASSERT_TRUE(b.spec.placement.replicaScheduling);  // the placement defaults
  EXPECT_EQ(b.spec.placement.replicaScheduling->type, "Divided");
  b.spec.replicas = -1;
  b.spec.clusters = {{"member1", 1}, {"member1", 2}};
  EXPECT_EQ(fields(validate(b)),
            (std::vector<std::string>{
                "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                "spec.clusters[1].name: Duplicate value: \"member1\""}));
}

}  // namespace
}  // namespace flotilla::api
