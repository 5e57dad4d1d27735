// The namespaces controller's read → decide → write loop against a host and a member API server
// (controllers/testing/member_fixture.h): a member namespace Flotilla created stays while a
// binding of that host namespace places something on the member, goes once none does, and is
// never deleted when Flotilla did not create it or when it holds someone else's objects
// (docs/design.md §12).
#include "controllers/sync/namespace_controller.h"

#include <gtest/gtest.h>

#include "controllers/common/managed.h"
#include "controllers/sync/member_object.h"
#include "controllers/testing/member_fixture.h"

namespace flotilla::controllers::sync {
namespace {

namespace json = boost::json;
namespace res = resources;
using testing::kMember;

const kube::ResourceId kMemberConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};

class NamespaceReconcilerTest : public testing::MemberReconcilerTest {
 protected:
  // The member's namespace `ns` as the sync makes it, or (not `created`) as a member's owner
  // makes one and labels it for Flotilla.
  void memberNamespaceMade(bool created) {
    auto member = memberNamespace(
        json::object{{"apiVersion", "v1"},
                     {"kind", "Namespace"},
                     {"metadata", json::object{{"name", ns}}}});
    // (An owner's namespace labelled for Flotilla has no created-namespace annotation.)
    if (!created) member["metadata"].as_object().erase("annotations");
    auto made = io.run(memberClient().create(res::kNamespaces, "", member));
    ASSERT_TRUE(made) << made.error();
  }
  // Whether the member's namespace is still there and not being deleted.
  bool memberNamespaceLive() {
    auto got = io.run(memberClient().get(res::kNamespaces, "", ns));
    return got && !got->at("metadata").as_object().contains("deletionTimestamp");
  }
  json::object federatedConfigMap() {
    auto fo = testing::parseObject(R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "FederatedObject", "metadata": {"name": "settings-configmap"},
      "spec": {"template": {"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings"}, "data": {"A": "1"}}}})");
    fo["spec"].as_object()["template"].as_object()["metadata"].as_object()["namespace"] = ns;
    fo = create(*client, res::kFederatedObjects, fo);
    caughtUp(*fos, "settings-configmap");
    return fo;
  }
};

TEST_F(NamespaceReconcilerTest, ACreatedNamespaceGoesWithTheLastBindingPlacingThere) {
  auto& bindings = informer(res::kResourceBindings);  // (the controller indexes its own)
  NamespaceController controller(bindings, *members);
  memberNamespaceMade(true);
  const auto fo = federatedConfigMap();
  bind(fo, 0, {kMember});
  caughtUp(bindings, "settings-configmap");
  auto r = controller.reconcile(ns);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(memberNamespaceLive()) << "a binding still places something on the member";

  // The binding now places nothing there (it moved elsewhere, and no copy is left).
  bind(fo, 0, {"member9"});
  caughtUp(bindings, "settings-configmap");
  r = controller.reconcile(ns);
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(memberNamespaceLive()) << "nothing of the host is on the member any more";
}

TEST_F(NamespaceReconcilerTest, ANamespaceFlotillaDidNotCreateOrThatHoldsSomeoneElsesStays) {
  NamespaceController controller(informer(res::kResourceBindings), *members);
  memberNamespaceMade(false);
  auto r = controller.reconcile(ns);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(memberNamespaceLive()) << "Flotilla did not create it: never deleted";

  // Created by Flotilla, but a member user's ConfigMap is in it.
  auto current = io.run(memberClient().get(res::kNamespaces, "", ns)).value();
  current["metadata"].as_object()["annotations"] =
      json::object{{kCreatedNamespaceAnnotation, "true"}};
  ASSERT_TRUE(io.run(memberClient().update(res::kNamespaces, current)));
  json::object theirs{{"apiVersion", "v1"},
                      {"kind", "ConfigMap"},
                      {"metadata", json::object{{"name", "theirs"}, {"namespace", ns}}},
                      {"data", json::object{{"k", "v"}}}};
  ASSERT_TRUE(io.run(memberClient().create(kMemberConfigMaps, ns, theirs)));
  r = controller.reconcile(ns);
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(memberNamespaceLive()) << "never deleted under someone else's objects";

  ASSERT_TRUE(io.run(memberClient().remove(kMemberConfigMaps, ns, "theirs")));
  r = controller.reconcile(ns);
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(memberNamespaceLive()) << "empty and Flotilla's: it goes";
}

}  // namespace
}  // namespace flotilla::controllers::sync
