// Which API groups are Kubernetes' own (names.h): the federated objects' names use
// kubernetesGroup; whether a kind can be a custom resource with a CRD uses builtInGroup.
#include "api/names.h"

#include <gtest/gtest.h>

namespace flotilla::api {
namespace {

TEST(Groups, BuiltInIsWhatKubeApiserverServesItself) {
  for (const char* group : {"", "apps", "batch", "rbac.authorization.k8s.io", "networking.k8s.io",
                            "apiextensions.k8s.io", "storage.k8s.io"})
    EXPECT_TRUE(builtInGroup(group)) << group;
  // CRD-defined groups, some of them under k8s.io, and aggregated APIs.
  for (const char* group : {"gateway.networking.k8s.io", "snapshot.storage.k8s.io",
                            "example.com", "metrics.k8s.io", "flotilla.io"})
    EXPECT_FALSE(builtInGroup(group)) << group;
  EXPECT_TRUE(kubernetesGroup("gateway.networking.k8s.io")) << "named as Kubernetes' own";
  EXPECT_FALSE(kubernetesGroup("example.com"));
}

}  // namespace
}  // namespace flotilla::api
