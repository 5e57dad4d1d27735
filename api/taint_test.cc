#include "api/taint.h"

#include <gtest/gtest.h>

namespace flotilla::api {
namespace {

const Taint kNotReady{"cluster.flotilla.io/not-ready", "", "NoSchedule", ""};
const Taint kGpu{"gpu", "a100", "NoSchedule", ""};
const Taint kGpuPrefer{"gpu", "a100", "PreferNoSchedule", ""};

TEST(TaintTest, TolerationMatchingFollowsKubernetes) {
  // Equal (also the empty operator) needs key and value to match.
  EXPECT_TRUE((Toleration{"gpu", "Equal", "a100", "NoSchedule"}).toleratesTaint(kGpu));
  EXPECT_TRUE((Toleration{"gpu", "", "a100", ""}).toleratesTaint(kGpu));
  EXPECT_FALSE((Toleration{"gpu", "Equal", "h100", ""}).toleratesTaint(kGpu));
  // Exists ignores the value; an empty key with Exists tolerates everything.
  EXPECT_TRUE((Toleration{"gpu", "Exists", "", ""}).toleratesTaint(kGpu));
  EXPECT_TRUE((Toleration{"", "Exists", "", ""}).toleratesTaint(kNotReady));
  // An effect, when given, must match.
  EXPECT_FALSE((Toleration{"gpu", "Exists", "", "NoExecute"}).toleratesTaint(kGpu));
  EXPECT_TRUE((Toleration{"", "Exists", "", "PreferNoSchedule"}).toleratesTaint(kGpuPrefer));
  EXPECT_FALSE((Toleration{"", "Exists", "", "PreferNoSchedule"}).toleratesTaint(kGpu));
  // Unknown operators tolerate nothing.
  EXPECT_FALSE((Toleration{"gpu", "Near", "a100", ""}).toleratesTaint(kGpu));
}

TEST(TaintTest, FirstUntoleratedTaintConsidersOnlyGivenEffects) {
  std::vector<Taint> taints = {kGpuPrefer, kNotReady, kGpu};
  std::vector<Toleration> tolerations = {{"gpu", "Exists", "", ""}};
  const Taint* t = firstUntoleratedTaint(taints, tolerations, {"NoSchedule", "NoExecute"});
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->str(), "cluster.flotilla.io/not-ready:NoSchedule");
  EXPECT_EQ(firstUntoleratedTaint(taints, tolerations, {"NoExecute"}), nullptr);
  EXPECT_EQ(kGpu.str(), "gpu=a100:NoSchedule");
}

TEST(TaintTest, TolerationValidation) {
  EXPECT_TRUE(validateToleration({"gpu", "Equal", "a100", "NoSchedule"}, "t").empty());
  EXPECT_TRUE(validateToleration({"", "Exists", "", ""}, "t").empty());
  auto errors = validateToleration({"", "Equal", "x", ""}, "t[0]");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "t[0].operator");
  errors = validateToleration({"k", "Exists", "v", ""}, "t[1]");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "t[1].value");
  errors = validateToleration({"k", "Like", "", ""}, "t[2]");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "t[2].operator");
  errors = validateToleration({"k", "Exists", "", "Sometimes"}, "t[3]");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "t[3].effect");
  errors = validateToleration({"k", "Exists", "", "NoSchedule", 30}, "t[4]");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "t[4].tolerationSeconds");
}

TEST(TaintTest, TaintValidation) {
  EXPECT_TRUE(validateTaint(kGpu, "taints[0]").empty());
  auto errors = validateTaint({"", "", "Never", ""}, "taints[1]");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].field, "taints[1].key");
  EXPECT_EQ(errors[1].field, "taints[1].effect");
}

}  // namespace
}  // namespace flotilla::api
