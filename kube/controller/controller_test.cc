#include "kube/controller/controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/net/test_server.h"
#include "kube/testing/mocks.h"

namespace flotilla::kube {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using net::testing::eventually;
using ::testing::Return;
using ::testing::Throw;

ObjectPtr object(std::string_view text) {
  return std::make_shared<json::object>(json::parse(text).as_object());
}

struct ControllerFixture : ::testing::Test {
  api::FakeSteadyClock clock;
  testing::MockReconciler reconciler;
  std::unique_ptr<Controller> controller;

  void make(int workers = 1) {
    ControllerOptions options;
    options.workers = workers;
    options.clock = &clock;
    controller = std::make_unique<Controller>("test", reconciler, std::move(options));
  }
  bool idle() {
    auto s = controller->queue().stats();
    return s.depth == 0 && s.processing == 0;
  }
};

TEST_F(ControllerFixture, ErrorsBackOffPerKeyAndSuccessForgets) {
  make();
  EXPECT_CALL(reconciler, reconcile("d/web"))
      .WillOnce(Return(api::Error{api::reason::kConflict, 409, "stale", {}}))
      .WillOnce(Return(api::Error{api::reason::kConflict, 409, "stale", {}}))
      .WillOnce(Return(ReconcileResult{}));
  controller->start();
  controller->queue().add("d/web");
  ASSERT_TRUE(eventually([&] { return controller->stats().errors == 1 && idle(); }));
  EXPECT_EQ(controller->queue().numRequeues("d/web"), 1);
  EXPECT_EQ(controller->queue().stats().delayed, 1u);
  clock.advance(5ms);  // first retry after 5 ms
  controller->queue().wake();
  ASSERT_TRUE(eventually([&] { return controller->stats().errors == 2 && idle(); }));
  clock.advance(5ms);  // the second waits 10 ms: not yet
  controller->queue().wake();
  EXPECT_EQ(controller->stats().reconciles, 2u);
  clock.advance(5ms);
  controller->queue().wake();
  ASSERT_TRUE(eventually([&] { return controller->stats().reconciles == 3 && idle(); }));
  EXPECT_EQ(controller->queue().numRequeues("d/web"), 0);  // success forgot the backoff
  controller->stop();
}

TEST_F(ControllerFixture, RequeueAfterAndThrowingReconcilesAreSurvived) {
  make(2);
  EXPECT_CALL(reconciler, reconcile("later"))
      .WillOnce(Return(ReconcileResult{false, 30s}))
      .WillOnce(Return(ReconcileResult{}));
  EXPECT_CALL(reconciler, reconcile("bad"))
      .WillOnce(Throw(std::runtime_error("nil map")))
      .WillOnce(Return(ReconcileResult{}));
  controller->start();
  controller->queue().add("later");
  controller->queue().add("bad");
  ASSERT_TRUE(eventually([&] { return controller->stats().reconciles == 2 && idle(); }));
  EXPECT_EQ(controller->stats().exceptions, 1u);
  EXPECT_EQ(controller->queue().numRequeues("later"), 0);
  EXPECT_EQ(controller->queue().numRequeues("bad"), 1);
  clock.advance(30s);
  controller->queue().wake();
  ASSERT_TRUE(eventually([&] { return controller->stats().reconciles == 4 && idle(); }));
  controller->stop();
}

TEST(Predicates, GenerationLabelsAnnotations) {
  auto v1 = object(R"({"metadata":{"generation":1,"labels":{"a":"1"}}})");
  auto statusOnly = object(R"({"metadata":{"generation":1,"labels":{"a":"1"}},"status":{}})");
  auto v2 = object(R"({"metadata":{"generation":2,"labels":{"a":"1"}}})");
  auto relabeled = object(R"({"metadata":{"generation":1,"labels":{"a":"2"}}})");
  EXPECT_FALSE(generationChanged().update(v1, statusOnly));
  EXPECT_TRUE(generationChanged().update(v1, v2));
  EXPECT_FALSE(labelsChanged().update(v1, v2));
  EXPECT_TRUE(labelsChanged().update(v1, relabeled));
  EXPECT_FALSE(annotationsChanged().update(v1, relabeled));
  EXPECT_FALSE(deletionChanged().update(v1, v2));
  auto deleting = std::make_shared<json::object>(*v1);
  deleting->at("metadata").as_object()["deletionTimestamp"] = "2026-11-28T10:00:00Z";
  EXPECT_TRUE(deletionChanged().update(v1, deleting));
  auto either = anyOf({generationChanged(), labelsChanged()});
  EXPECT_TRUE(either.update(v1, relabeled));
  EXPECT_TRUE(either.update(v1, v2));
  EXPECT_FALSE(either.update(v1, statusOnly));
}

TEST(MapFuncs, OwnerSelfAndCluster) {
  auto pod = object(R"({"metadata":{"name":"web-1","namespace":"d","ownerReferences":[
      {"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-abc","controller":true},
      {"apiVersion":"apps/v1","kind":"Deployment","name":"not-controller","controller":false},
      {"apiVersion":"other.io/v1","kind":"ReplicaSet","name":"wrong-group","controller":true}]}})");
  EXPECT_EQ(mapToSelf()(pod), std::vector<std::string>{"d/web-1"});
  EXPECT_EQ(mapToOwner("ReplicaSet", "apps")(pod), std::vector<std::string>{"d/web-abc"});
  EXPECT_TRUE(mapToOwner("Deployment", "apps")(pod).empty());
  EXPECT_EQ(mapWithCluster("member1")(pod), std::vector<std::string>{"member1/d/web-1"});
  auto cluster = object(R"({"metadata":{"name":"member1"}})");
  EXPECT_EQ(mapToSelf()(cluster), std::vector<std::string>{"member1"});
}

}  // namespace
}  // namespace flotilla::kube
