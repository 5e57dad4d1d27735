#include "controllers/common/decoded_cache.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "api/flotilla_types.h"

namespace flotilla::controllers {
namespace {

namespace json = boost::json;

kube::ObjectPtr policy(const std::string& name, int64_t priority) {
  json::object o{{"apiVersion", "flotilla.io/v1alpha1"},
                 {"kind", "PropagationPolicy"},
                 {"metadata", json::object{{"name", name}, {"namespace", "ns"}}},
                 {"spec", json::object{{"priority", priority}}}};
  return std::make_shared<const json::object>(std::move(o));
}

TEST(DecodedCache, DecodesEachVersionOfAnObjectOnce) {
  DecodedCache<api::PropagationPolicy> cache;
  auto v1 = policy("a", 1);
  auto first = cache.get(v1);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ((*first)->metadata.name, "a");
  EXPECT_EQ((*first)->spec.priority, 1);
  auto again = cache.get(v1);
  ASSERT_TRUE(again);
  EXPECT_EQ(first->get(), again->get())
      << "the same pointer is the same version: not decoded again";

  auto v2 = policy("a", 7);  // the informer replaced the object: a new pointer
  auto changed = cache.get(v2);
  ASSERT_TRUE(changed);
  EXPECT_EQ((*changed)->spec.priority, 7);
  EXPECT_NE(first->get(), changed->get());
}

TEST(DecodedCache, ReturnsTheDecodingErrorAndKeepsNothing) {
  DecodedCache<api::PropagationPolicy> cache;
  auto bad =
      std::make_shared<const json::object>(json::parse(R"({"metadata": {"name": 5}})").as_object());
  auto got = cache.get(bad);
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message.find("metadata.name"), std::string::npos) << got.error().message;
  EXPECT_EQ(cache.size(), 0u);
}

TEST(DecodedCache, ForgetsObjectsNoCacheHoldsAnyMore) {
  DecodedCache<api::PropagationPolicy> cache;
  auto kept = policy("kept", 1);
  for (int i = 0; i < 2000; ++i) {
    auto transient = policy("p" + std::to_string(i), i);  // updated or deleted at once
    ASSERT_TRUE(cache.get(transient));
    ASSERT_TRUE(cache.get(kept));
  }
  // Swept every 1,024 lookups: what remains is the live object and the few seen since the sweep.
  EXPECT_LT(cache.size(), 1100u);
  auto still = cache.get(kept);
  ASSERT_TRUE(still);
  EXPECT_EQ((*still)->metadata.name, "kept");
}

// Two controllers' caches over the same informer objects (scheduler and automigration both
// decode FederatedClusters): neither keeps the other's old versions alive.
TEST(DecodedCache, CachesSharingObjectsBothForgetThem) {
  DecodedCache<api::PropagationPolicy> a;
  DecodedCache<api::PropagationPolicy> b;
  for (int i = 0; i < 2000; ++i) {
    auto version = policy("p", i);  // the informer's current version, replaced each time
    ASSERT_TRUE(a.get(version));
    ASSERT_TRUE(b.get(version));
  }
  EXPECT_LT(a.size(), 1100u);
  EXPECT_LT(b.size(), 1100u);
}

}  // namespace
}  // namespace flotilla::controllers
