// The predicates for a controller's own objects (kube/controller/controller.h): a spec change
// outside the fields another controller owns, and no creations. Apart from controller_test.cc,
// whose gmock actions GCC 12 warns about under ASan when the file grows.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "kube/controller/controller.h"

namespace flotilla::kube {
namespace {

namespace json = boost::json;

ObjectPtr object(const char* text) {
  return std::make_shared<const json::object>(json::parse(text).as_object());
}

TEST(Predicates, SpecChangedExceptAndSkipCreates) {
  auto v1 = object(R"({"metadata":{"generation":1,"labels":{"a":"1"}}})");
  auto statusOnly = object(R"({"metadata":{"generation":1,"labels":{"a":"1"}},"status":{}})");
  auto v2 = object(R"({"metadata":{"generation":2,"labels":{"a":"1"}}})");
  // A write of only the ignored spec field (the scheduler's spec.clusters) passes no event; any
  // other spec change does, and so does a field that appears or goes.
  auto bound = object(R"({"metadata":{"generation":6},"spec":{"replicas":3}})");
  auto placed = std::make_shared<json::object>(*bound);
  placed->at("metadata").as_object()["generation"] = 7;
  placed->at("spec").as_object()["clusters"] = json::array{json::object{{"name", "m1"}}};
  EXPECT_FALSE(specChangedExcept({"clusters"}).update(bound, placed));
  EXPECT_TRUE(specChangedExcept({}).update(bound, placed));
  auto resized = std::make_shared<json::object>(*placed);
  resized->at("metadata").as_object()["generation"] = 8;
  resized->at("spec").as_object()["replicas"] = 9;
  EXPECT_TRUE(specChangedExcept({"clusters"}).update(placed, resized));
  auto dropped = std::make_shared<json::object>(*resized);
  dropped->at("metadata").as_object()["generation"] = 9;
  dropped->at("spec").as_object().erase("replicas");
  EXPECT_TRUE(specChangedExcept({"clusters"}).update(resized, dropped));
  EXPECT_TRUE(specChangedExcept({"clusters"}).update(dropped, resized));
  EXPECT_FALSE(specChangedExcept({"clusters"}).update(v1, statusOnly));
  // Without a new generation nothing passes, whatever the spec says (a status write carries the
  // spec it was read with).
  auto sameGeneration = std::make_shared<json::object>(*resized);
  sameGeneration->at("spec").as_object()["replicas"] = 10;
  EXPECT_FALSE(specChangedExcept({"clusters"}).update(resized, sameGeneration));
  const auto mine = skipCreates(generationChanged());
  EXPECT_FALSE(mine.create(v1));
  EXPECT_TRUE(mine.update(v1, v2));
  EXPECT_FALSE(mine.update(v1, statusOnly));
  EXPECT_FALSE(mine.remove);  // deletions pass
}

}  // namespace
}  // namespace flotilla::kube
