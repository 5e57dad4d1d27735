#include "controllers/common/finalizers.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::controllers {
namespace {

namespace json = boost::json;

json::object withFinalizers(json::array list) {
  return json::object{{"metadata", json::object{{"name", "x"}, {"finalizers", std::move(list)}}}};
}

TEST(Finalizers, AddIsIdempotentAndKeepsOthers) {
  json::object none{{"metadata", json::object{{"name", "x"}}}};
  EXPECT_TRUE(addFinalizer(none, "flotilla.io/cleanup").value());
  EXPECT_EQ(none.at("metadata").at("finalizers"), json::array{"flotilla.io/cleanup"});
  EXPECT_FALSE(addFinalizer(none, "flotilla.io/cleanup").value()) << "added twice";
  auto other = withFinalizers({"example.com/keep"});
  EXPECT_TRUE(addFinalizer(other, "flotilla.io/cleanup").value());
  EXPECT_EQ(other.at("metadata").at("finalizers"),
            (json::array{"example.com/keep", "flotilla.io/cleanup"}));
  json::object noMetadata;
  EXPECT_TRUE(addFinalizer(noMetadata, "f").value());
  EXPECT_EQ(noMetadata.at("metadata").at("finalizers"), json::array{"f"});
}

TEST(Finalizers, RemoveTakesOnlyItsOwn) {
  auto object = withFinalizers({"example.com/keep", "flotilla.io/cleanup", "flotilla.io/cleanup"});
  EXPECT_TRUE(removeFinalizer(object, "flotilla.io/cleanup").value());
  EXPECT_EQ(object.at("metadata").at("finalizers"), json::array{"example.com/keep"});
  EXPECT_FALSE(removeFinalizer(object, "flotilla.io/cleanup").value()) << "nothing to remove";
  json::object none{{"metadata", json::object{}}};
  EXPECT_FALSE(removeFinalizer(none, "flotilla.io/cleanup").value());
}

TEST(Finalizers, HasReadsTheTypedMetadata) {
  api::ObjectMeta meta;
  EXPECT_FALSE(hasFinalizer(meta, "f"));
  meta.finalizers = {"a", "f"};
  EXPECT_TRUE(hasFinalizer(meta, "f"));
}

}  // namespace
}  // namespace flotilla::controllers
