#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }
Interpreter of(const char* apiVersion, const char* kind) {
  return Registry::builtIn().of(apiVersion, kind);
}

TEST(CoreEntries, ConfigMapsAndSecretsGoWholeAndAreDuplicated) {
  const json::object secret = parse(R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},
      "type":"Opaque","data":{"k":"dg=="},"immutable":true})");
  EXPECT_EQ(of("v1", "Secret").memberTemplate(secret), secret);
  EXPECT_FALSE(of("v1", "Secret").divisible());
  EXPECT_FALSE(of("v1", "ConfigMap").divisible());
}

TEST(CoreEntries, AClaimLosesTheHostsVolumeBindingAndReportsItsPhase) {
  const json::object pvc = parse(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
      "metadata":{"name":"data","annotations":{"pv.kubernetes.io/bind-completed":"yes",
        "pv.kubernetes.io/bound-by-controller":"yes",
        "volume.kubernetes.io/storage-provisioner":"csi.example",
        "volume.beta.kubernetes.io/storage-provisioner":"csi.example",
        "volume.kubernetes.io/selected-node":"host-node-1","team":"a"}},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},
        "storageClassName":"fast","volumeName":"pvc-1234","volumeMode":"Filesystem"},
      "status":{"phase":"Bound"}})");
  const json::object want = parse(R"({"apiVersion":"v1","kind":"PersistentVolumeClaim",
      "metadata":{"name":"data","annotations":{"team":"a"}},
      "spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},
        "storageClassName":"fast","volumeMode":"Filesystem"}})");
  const Interpreter claim = of("v1", "PersistentVolumeClaim");
  EXPECT_EQ(claim.memberTemplate(pvc), want) << json::serialize(claim.memberTemplate(pvc));

  const json::object bound = parse(R"({"status":{"phase":"Bound"}})");
  const json::object pending = parse(R"({"status":{"phase":"Pending"}})");
  const json::object lost = parse(R"({"status":{"phase":"Lost"}})");
  EXPECT_EQ(claim.health(&bound).health, Health::kHealthy);
  EXPECT_EQ(claim.health(&pending), (HealthReport{Health::kProgressing, "phase Pending"}));
  EXPECT_EQ(claim.health(&lost).health, Health::kUnhealthy);
  // Bound only when every member's is; Lost wins over Pending; a missing member is Pending.
  EXPECT_EQ(*claim.aggregateStatus(pvc, {{"a", &bound}, {"b", &bound}}),
            parse(R"({"phase":"Bound"})"));
  EXPECT_EQ(*claim.aggregateStatus(pvc, {{"a", &bound}, {"b", nullptr}}),
            parse(R"({"phase":"Pending"})"));
  EXPECT_EQ(*claim.aggregateStatus(pvc, {{"a", &pending}, {"b", &lost}, {"c", &bound}}),
            parse(R"({"phase":"Lost"})"));
}

TEST(CoreEntries, ANamespaceLeavesItsFinalizersToEachCluster) {
  const json::object ns = parse(R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"shop",
      "labels":{"pod-security.kubernetes.io/enforce":"restricted"}},
      "spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}})");
  const Interpreter namespaces = of("v1", "Namespace");
  EXPECT_EQ(namespaces.memberTemplate(ns), parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"shop","labels":{"pod-security.kubernetes.io/enforce":"restricted"}},
      "spec":{}})"));
  EXPECT_EQ(namespaces.health(&ns).health, Health::kHealthy);
  const json::object terminating = parse(R"({"status":{"phase":"Terminating"}})");
  EXPECT_EQ(namespaces.health(&terminating).health, Health::kProgressing);
}

TEST(CoreEntries, AServiceAccountKeepsItsMembersTokenSecretsAndTheUsersOwn) {
  const json::object sa = parse(R"({"apiVersion":"v1","kind":"ServiceAccount",
      "metadata":{"name":"web"},"imagePullSecrets":[{"name":"registry"}],
      "secrets":[{"name":"web-token-abcde"},{"name":"extra"}]})");
  const Interpreter accounts = of("v1", "ServiceAccount");
  json::object desired = accounts.memberTemplate(sa);
  EXPECT_EQ(desired, parse(R"({"apiVersion":"v1","kind":"ServiceAccount",
      "metadata":{"name":"web"},"imagePullSecrets":[{"name":"registry"}],
      "secrets":[{"name":"extra"}]})"));
  // The member's token entries are kept; the user's entries follow the host (here "old" was
  // removed on the host and "extra" added).
  const json::object live = parse(R"({"secrets":[{"name":"web-token-zzzzz"},{"name":"old"}]})");
  accounts.retain(desired, live);
  EXPECT_EQ(desired.at("secrets"),
            parse(R"({"s":[{"name":"extra"},{"name":"web-token-zzzzz"}]})").at("s"));
  // Only the host's tokens: the list goes altogether.
  const json::object tokensOnly =
      parse(R"({"metadata":{"name":"web"},"secrets":[{"name":"web-token-1"}]})");
  EXPECT_FALSE(accounts.memberTemplate(tokensOnly).contains("secrets"));
}

TEST(RbacEntries, AnAggregatedClusterRolesRulesAreTheMembersOwn) {
  const Interpreter roles = of("rbac.authorization.k8s.io/v1", "ClusterRole");
  const json::object aggregated = parse(R"({"metadata":{"name":"view-all"},
      "aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"agg":"view"}}]},
      "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
  json::object desired = roles.memberTemplate(aggregated);
  EXPECT_FALSE(desired.contains("rules"));
  const json::object live =
      parse(R"({"rules":[{"apiGroups":["apps"],"resources":["deployments"],"verbs":["get"]}]})");
  roles.retain(desired, live);
  EXPECT_EQ(desired.at("rules"), live.at("rules"));
  // A plain ClusterRole's rules are the user's: sent, and never replaced by the member's.
  const json::object plain = parse(R"({"metadata":{"name":"r"},
      "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})");
  json::object plainDesired = roles.memberTemplate(plain);
  roles.retain(plainDesired, live);
  EXPECT_EQ(plainDesired.at("rules"), plain.at("rules"));
}

TEST(ExtensionEntries, ACrdIsHealthyOnceEstablished) {
  const Interpreter crds = of("apiextensions.k8s.io/v1", "CustomResourceDefinition");
  const json::object established = parse(R"({"status":{"conditions":[
      {"type":"NamesAccepted","status":"True"},{"type":"Established","status":"True"}]}})");
  const json::object waiting =
      parse(R"({"status":{"conditions":[{"type":"NamesAccepted","status":"True"}]}})");
  const json::object clash =
      parse(R"({"status":{"conditions":[{"type":"NamesAccepted","status":"False",
      "message":"\"widgets\" is already in use"},{"type":"Established","status":"False"}]}})");
  EXPECT_EQ(crds.health(&established).health, Health::kHealthy);
  EXPECT_EQ(crds.health(&waiting), (HealthReport{Health::kProgressing, "not established yet"}));
  EXPECT_EQ(crds.health(&clash),
            (HealthReport{Health::kUnhealthy, "\"widgets\" is already in use"}));
}

}  // namespace
}  // namespace flotilla::interpreter
