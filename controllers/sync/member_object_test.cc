#include "controllers/sync/member_object.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "controllers/common/managed.h"

namespace flotilla::controllers::sync {
namespace {

namespace json = boost::json;

api::FederatedDeployment fd() {
  api::FederatedDeployment f;
  f.metadata.name = "web";
  f.metadata.namespace_ = "demo";
  f.metadata.annotations[kSourceGenerationAnnotation] = "3";
  auto& t = f.spec.template_;
  t.metadata.labels = {{"app", "web"}};
  t.metadata.annotations = {{"team", "a"}};
  t.spec.replicas = 6;
  t.spec.selector = api::LabelSelector{{{"app", "web"}}, {}};
  t.spec.template_.metadata.labels = {{"app", "web"}};
  api::Container c;
  c.name = "web";
  c.image = "nginx:1.27";
  c.resources.requests["cpu"] = api::Quantity::parse("0.5").value();
  t.spec.template_.spec.containers = {c};
  t.spec.unknownFields["minReadySeconds"] = 5;  // a field Flotilla does not model
  return f;
}

api::JsonPatchOperation op(std::string o, std::string path, json::value value = nullptr) {
  api::JsonPatchOperation p;
  p.op = std::move(o);
  p.path = std::move(path);
  p.value = std::move(value);
  return p;
}

TEST(DesiredMemberDeployment, TemplateReplicasAndOwnershipMarks) {
  auto d = desiredMemberDeployment(fd(), "demo/web", "member1", 2);
  ASSERT_TRUE(d) << d.error();
  const auto& o = *d;
  EXPECT_EQ(o.at("apiVersion"), "apps/v1");
  EXPECT_EQ(o.at("kind"), "Deployment");
  const auto& meta = o.at("metadata").as_object();
  EXPECT_EQ(meta.at("name"), "web");
  EXPECT_EQ(meta.at("namespace"), "demo");
  const auto& labels = meta.at("labels").as_object();
  EXPECT_EQ(labels.at("app"), "web");
  EXPECT_EQ(labels.at(kManagedByLabel), "flotilla");
  EXPECT_EQ(labels.at(kBindingLabel), json::value(bindingHash("demo/web")));
  EXPECT_LE(bindingHash("demo/web").size(), 63u);
  const auto& annotations = meta.at("annotations").as_object();
  EXPECT_EQ(annotations.at("team"), "a");
  EXPECT_EQ(annotations.at(kBindingAnnotation), "demo/web");
  EXPECT_EQ(annotations.at(kSourceGenerationAnnotation), "3");
  EXPECT_TRUE(annotations.contains(kAppliedHashAnnotation));
  EXPECT_EQ(o.at("spec").at("replicas"), 2);
  EXPECT_EQ(o.at("spec").at("minReadySeconds"), 5);
  EXPECT_EQ(o.at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "nginx:1.27");
  EXPECT_FALSE(o.contains("status"));
  // The pods carry the marks too (auto-migration finds them by label), next to the user's.
  const auto& podLabels = o.at("spec").at("template").at("metadata").at("labels").as_object();
  EXPECT_EQ(podLabels.at("app"), "web");
  EXPECT_EQ(podLabels.at(kManagedByLabel), "flotilla");
  EXPECT_EQ(podLabels.at(kBindingLabel), json::value(bindingHash("demo/web")));
  EXPECT_EQ(o.at("spec").at("selector"), json::parse(R"({"matchLabels":{"app":"web"}})"));
  EXPECT_TRUE(managedFor(o, "demo/web"));
  EXPECT_FALSE(managedFor(o, "demo/other"));
}

// docs/security.md M1: who made a member object, and what cannot pose as Flotilla's.
TEST(DesiredMemberDeployment, HostAndClusterMarksOnTheDeploymentOnly) {
  auto d = desiredMemberDeployment(fd(), "demo/web", "member1", 2, "host-uid-1");
  ASSERT_TRUE(d) << d.error();
  const auto& labels = d->at("metadata").at("labels").as_object();
  EXPECT_EQ(labels.at(kHostLabel), "host-uid-1");
  EXPECT_EQ(labels.at(kClusterLabel), "member1");
  // Not on the pod template: a change would restart every pod.
  const auto& podLabels = d->at("spec").at("template").at("metadata").at("labels").as_object();
  EXPECT_FALSE(podLabels.contains(kHostLabel));
  EXPECT_FALSE(podLabels.contains(kClusterLabel));
  EXPECT_TRUE(managedFor(*d, "demo/web", "host-uid-1"));
  EXPECT_FALSE(managedFor(*d, "demo/web", "another-host"));  // another host's object
  // An override cannot forge the marks (they are set after the overrides).
  auto f = fd();
  api::ClusterOverride o;
  o.clusterName = "member1";
  o.patches = {op("add", "/metadata/labels/flotilla.io~1host", "another-host"),
               op("add", "/metadata/labels/flotilla.io~1cluster", "member2")};
  f.spec.overrides = {o};
  auto patched = desiredMemberDeployment(f, "demo/web", "member1", 2, "host-uid-1");
  ASSERT_TRUE(patched) << patched.error();
  EXPECT_EQ(patched->at("metadata").at("labels").at(kHostLabel), "host-uid-1");
  EXPECT_EQ(patched->at("metadata").at("labels").at(kClusterLabel), "member1");
}

TEST(ManagingBinding, ADecoyCannotPoseAsAWorkloadsCopy) {
  const auto object = [](std::string ns, std::string name, std::string annotation,
                         std::string host = "") {
    json::object labels{{kManagedByLabel, kManagedByValue},
                        {kBindingLabel, bindingHash(annotation)}};
    if (!host.empty()) labels[kHostLabel] = host;
    return json::object{
        {"metadata",
         json::object{{"namespace", ns},
                      {"name", name},
                      {"labels", labels},
                      {"annotations", json::object{{kBindingAnnotation, annotation}}}}}};
  };
  // The real copy.
  EXPECT_EQ(managingBinding(object("victim", "app", "victim/app", "h1"), "h1"), "victim/app");
  // A member user's Deployment in their own namespace, marked as the victim's copy.
  EXPECT_EQ(managingBinding(object("attacker", "decoy", "victim/app"), "h1"), "");
  EXPECT_EQ(managingBinding(object("attacker", "app", "victim/app"), "h1"), "");
  EXPECT_FALSE(managedFor(object("attacker", "decoy", "victim/app"), "victim/app", "h1"));
  // Another host's object at the same place is not this host's.
  EXPECT_EQ(managingBinding(object("victim", "app", "victim/app", "h2"), "h1"), "");
  // One made before the host label existed is (its next apply adds the label).
  EXPECT_EQ(managingBinding(object("victim", "app", "victim/app"), "h1"), "victim/app");
  // Malformed metadata is nobody's.
  json::object noName = object("victim", "app", "victim/app");
  noName["metadata"].as_object().erase("name");
  EXPECT_EQ(managingBinding(noName), "");
  // Any other kind belongs to its federated object's binding, <name>-<kind>: the kind counts.
  json::object cm = object("victim", "settings", "victim/settings-configmap", "h1");
  cm["apiVersion"] = "v1";
  cm["kind"] = "ConfigMap";
  EXPECT_EQ(managingBinding(cm, "h1"), "victim/settings-configmap");
  json::object secret = cm;
  secret["kind"] = "Secret";  // a Secret marked as the ConfigMap's copy is neither
  EXPECT_EQ(managingBinding(secret, "h1"), "");
  json::object role = object("", "reader", "reader-clusterrole", "h1");
  role["metadata"].as_object().erase("namespace");
  role["apiVersion"] = "rbac.authorization.k8s.io/v1";
  role["kind"] = "ClusterRole";
  EXPECT_EQ(managingBinding(role, "h1"), "reader-clusterrole");
  json::object kindless = cm;
  kindless.erase("kind");
  EXPECT_EQ(managingBinding(kindless, "h1"), "");
  EXPECT_EQ(madeThroughSelector("h1", "member1"),
            "flotilla.io/managed-by=flotilla,flotilla.io/host=h1,flotilla.io/cluster=member1");
}

// docs/security.md H3: the member namespace carries the host namespace's Pod Security labels.
TEST(MemberNamespace, CarriesPodSecurityLabelsAndTheCreatedMarkOnly) {
  const auto host = json::parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"team-a","uid":"u","resourceVersion":"9",
        "labels":{"pod-security.kubernetes.io/enforce":"restricted",
                  "pod-security.kubernetes.io/enforce-version":"latest",
                  "pod-security.kubernetes.io/warn":"restricted",
                  "kubernetes.io/metadata.name":"team-a","team":"a"},
        "annotations":{"owner":"a"}}})")
                        .as_object();
  EXPECT_EQ(json::value(memberNamespace(host)),
            json::parse(R"({"apiVersion":"v1","kind":"Namespace",
      "metadata":{"name":"team-a","labels":{"flotilla.io/managed-by":"flotilla",
        "pod-security.kubernetes.io/enforce":"restricted",
        "pod-security.kubernetes.io/enforce-version":"latest",
        "pod-security.kubernetes.io/warn":"restricted"},
      "annotations":{"flotilla.io/created-namespace":"true"}}})"));
  EXPECT_TRUE(flotillaNamespace(memberNamespace(host)));
  EXPECT_FALSE(flotillaNamespace(host));  // a namespace someone else made
  EXPECT_FALSE(flotillaNamespace(json::object{}));
  EXPECT_FALSE(flotillaNamespace(
      json::parse(R"({"metadata":{"labels":{"flotilla.io/managed-by":"other"}}})").as_object()));
}

TEST(DesiredMemberDeployment, OverridesApplyToTheirClusterOnly) {
  auto f = fd();
  f.spec.overrides = {{"member2",
                       {op("replace", "/spec/template/spec/containers/0/image", "nginx:canary"),
                        op("add", "/metadata/labels/canary", "yes")}}};
  auto m1 = desiredMemberDeployment(f, "demo/web", "member1", 2);
  auto m2 = desiredMemberDeployment(f, "demo/web", "member2", 2);
  ASSERT_TRUE(m1 && m2);
  EXPECT_EQ(m1->at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "nginx:1.27");
  EXPECT_EQ(m2->at("spec").at("template").at("spec").at("containers").at(0).at("image"),
            "nginx:canary");
  EXPECT_EQ(m2->at("metadata").at("labels").at("canary"), "yes");
  // Different content, different applied hash.
  EXPECT_NE(m1->at("metadata").at("annotations").at(kAppliedHashAnnotation),
            m2->at("metadata").at("annotations").at(kAppliedHashAnnotation));
}

TEST(DesiredMemberDeployment, OverridesCannotTakeOwnershipAway) {
  auto f = fd();
  f.spec.overrides = {{"member1",
                       {op("add", "/metadata/labels/flotilla.io~1managed-by", "someone-else"),
                        op("replace", "/metadata/name", "other")}}};
  auto d = desiredMemberDeployment(f, "demo/web", "member1", 1);
  ASSERT_TRUE(d) << d.error();
  EXPECT_TRUE(managedFor(*d, "demo/web"));
  EXPECT_EQ(d->at("metadata").at("name"), "web");
}

TEST(DesiredMemberDeployment, AFailingPatchNamesItsPointerAndReason) {
  auto f = fd();
  f.spec.overrides = {{"member1", {op("replace", "/spec/template/spec/containers/3/image", "x")}}};
  auto d = desiredMemberDeployment(f, "demo/web", "member1", 1);
  ASSERT_FALSE(d);
  EXPECT_NE(
      d.error().message.find("override patch 0 (replace /spec/template/spec/containers/3/image)"),
      std::string::npos)
      << d.error().message;
  EXPECT_NE(d.error().message.find("member1"), std::string::npos);
  // Another cluster is not affected.
  EXPECT_TRUE(desiredMemberDeployment(f, "demo/web", "member2", 1));
}

TEST(DesiredMemberDeployment, Deterministic) {
  auto a = desiredMemberDeployment(fd(), "demo/web", "member1", 2);
  auto b = desiredMemberDeployment(fd(), "demo/web", "member1", 2);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(*a, *b);
}

TEST(Holds, ServerDefaultsAndOtherManagersFieldsAreIgnored) {
  auto desired = desiredMemberDeployment(fd(), "demo/web", "member1", 2).value();
  // What a kube-apiserver returns: defaults filled in, status, metadata it owns, another
  // manager's annotation, quantities in canonical form.
  json::value live = desired;
  auto& l = live.as_object();
  l["status"] = json::object{{"replicas", 2}};
  auto& meta = l["metadata"].as_object();
  meta["uid"] = "u";
  meta["resourceVersion"] = "7";
  meta["annotations"].as_object()["sidecar.istio.io/status"] = "injected";
  auto& spec = l["spec"].as_object();
  spec["revisionHistoryLimit"] = 10;
  spec["progressDeadlineSeconds"] = 600;
  auto& container =
      spec["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object();
  container["imagePullPolicy"] = "IfNotPresent";
  container["terminationMessagePath"] = "/dev/termination-log";
  container["resources"].as_object()["requests"].as_object()["cpu"] = "500m";
  EXPECT_TRUE(holds(live, desired));
}

TEST(Holds, DifferencesThatMatter) {
  const auto desired = desiredMemberDeployment(fd(), "demo/web", "member1", 2).value();
  struct Case {
    const char* name;
    std::function<void(json::object&)> change;
  };
  const std::vector<Case> cases = {
      {"replicas changed on the member", [](auto& o) { o["spec"].as_object()["replicas"] = 5; }},
      {"image edited on the member",
       [](auto& o) {
         o["spec"]
             .as_object()["template"]
             .as_object()["spec"]
             .as_object()["containers"]
             .as_array()[0]
             .as_object()["image"] = "evil";
       }},
      {"a container added",
       [](auto& o) {
         o["spec"]
             .as_object()["template"]
             .as_object()["spec"]
             .as_object()["containers"]
             .as_array()
             .push_back(json::object{{"name", "x"}});
       }},
      {"applied from another template (hash)",
       [](auto& o) {
         o["metadata"].as_object()["annotations"].as_object()[kAppliedHashAnnotation] = "old";
       }},
      {"ownership label gone",
       [](auto& o) { o["metadata"].as_object()["labels"].as_object().erase(kManagedByLabel); }},
  };
  for (const auto& c : cases) {
    json::object live = desired;
    c.change(live);
    EXPECT_FALSE(holds(live, desired)) << c.name;
  }
  // A removed template field changes the hash: a live object applied from the old template does
  // not hold the new one even though it is a superset of it.
  auto f = fd();
  f.spec.template_.metadata.annotations.clear();
  const auto without = desiredMemberDeployment(f, "demo/web", "member1", 2).value();
  EXPECT_FALSE(holds(desired, without));
}

TEST(Holds, NumbersAndQuantities) {
  EXPECT_TRUE(holds(json::value(2), json::value(2u)));
  EXPECT_TRUE(holds(json::value(2.0), json::value(2)));
  EXPECT_FALSE(holds(json::value(3), json::value(2)));
  EXPECT_TRUE(holds(json::value("1Gi"), json::value("1073741824")));
  EXPECT_FALSE(holds(json::value("1Gi"), json::value("1G")));
  EXPECT_FALSE(holds(json::value("nginx"), json::value("nginx:1")));
  EXPECT_TRUE(holds(json::parse(R"({"a":1})"), json::parse(R"({"b":{},"c":[]})")));
}

}  // namespace
}  // namespace flotilla::controllers::sync
