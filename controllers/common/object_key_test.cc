#include "controllers/common/object_key.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace flotilla::controllers {
namespace {

TEST(ObjectKey, RoundTripsNamespacedAndClusterScopedObjects) {
  const ObjectKey cm{"v1", "ConfigMap", "demo", "settings"};
  EXPECT_EQ(cm.str(), "ConfigMap/v1:demo/settings");
  EXPECT_EQ(ObjectKey::parse(cm.str()), cm);
  EXPECT_EQ(cm.cacheKey(), "demo/settings");
  EXPECT_EQ(cm.group(), "");
  // An RBAC name holds ':'; the apiVersion holds a '/'.
  const ObjectKey role{"rbac.authorization.k8s.io/v1", "ClusterRole", "", "system:reader"};
  EXPECT_EQ(role.str(), "ClusterRole/rbac.authorization.k8s.io/v1:system:reader");
  EXPECT_EQ(ObjectKey::parse(role.str()), role);
  EXPECT_EQ(role.group(), "rbac.authorization.k8s.io");
}

TEST(ObjectKey, TwoKindsOfOneNameAreTwoKeys) {
  EXPECT_NE((ObjectKey{"v1", "ConfigMap", "demo", "web"}).str(),
            (ObjectKey{"v1", "Secret", "demo", "web"}).str());
}

TEST(ObjectKey, MalformedTextIsRefused) {
  for (const char* text :
       {"", "demo/web", "ConfigMap:demo/web", "/v1:demo/web", "ConfigMap/:x",
        "ConfigMap/v1:", "ConfigMap/v1:/web", "ConfigMap/v1:demo/", "ConfigMap/v1:a/b/c"})
    EXPECT_FALSE(ObjectKey::parse(text)) << text;
}

TEST(ObjectKey, IsReadFromAnObject) {
  const auto o =
      boost::json::parse(
          R"({"apiVersion":"v1","kind":"Secret","metadata":{"namespace":"a","name":"b"}})")
          .as_object();
  EXPECT_EQ(ObjectKey::of(o), (ObjectKey{"v1", "Secret", "a", "b"}));
}

}  // namespace
}  // namespace flotilla::controllers
