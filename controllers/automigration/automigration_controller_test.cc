// The automigration reconciler's read → decide → write loop against a host and a member API
// server (controllers/testing/member_fixture.h): a workload whose pods the member cannot all
// schedule gets that member's estimated capacity in its binding's status, once, and a 409 on the
// way is retried.
#include "controllers/automigration/automigration_controller.h"

#include <gtest/gtest.h>

#include "controllers/sync/sync_controller.h"
#include "controllers/testing/member_fixture.h"

namespace flotilla::controllers::automigration {
namespace {

namespace json = boost::json;
namespace res = resources;
using net::testing::eventually;
using testing::kMember;
using namespace std::chrono_literals;

class AutoMigrationReconcilerTest : public testing::MemberReconcilerTest {
 protected:
  void SetUp() override {
    MemberReconcilerTest::SetUp();
    pps = &informer(res::kPropagationPolicies);
    cpps = &informer(res::kClusterPropagationPolicies);
    mutableRbs = const_cast<kube::SharedInformer*>(rbs);
  }
  std::unique_ptr<AutoMigrationController> controller(kube::RestClient& with) {
    // Ten minutes from now: every pending pod has been pending longer than the policy allows.
    return std::make_unique<AutoMigrationController>(
        with, io.io().get_executor(), Informers{*mutableRbs, *pps, *cpps, *clusters}, *members,
        [] { return api::Clock::now() + 10min; });
  }
  // Four replicas of 3 CPUs on a member whose one node has 8: two run (fewer when other tests'
  // pods share the node), the rest stay Pending. Sets `bound` to how many run.
  void runOversizedWorkload() {
    create(res::kPropagationPolicies, R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "PropagationPolicy", "metadata": {"name": "p"},
      "spec": {"resourceSelectors": [{"apiVersion": "apps/v1", "kind": "Deployment"}],
               "autoMigration": {"podUnschedulableFor": "1m"}}})");
    caughtUp(*pps, "p");
    auto fd = create(res::kFederatedDeployments, R"({"apiVersion": "flotilla.io/v1alpha1",
      "kind": "FederatedDeployment", "metadata": {"name": "big",
                                                  "finalizers": ["flotilla.io/cleanup"]},
      "spec": {"template": {"metadata": {"labels": {"app": "big"}},
        "spec": {"replicas": 4, "selector": {"matchLabels": {"app": "big"}},
          "template": {"metadata": {"labels": {"app": "big"}},
            "spec": {"containers": [{"name": "big", "image": "nginx:1.27",
              "resources": {"requests": {"cpu": "3"}}}]}}}}}})");
    caughtUp(*fds, "big");
    bind(fd, 4, {kMember},
         json::object{{"policy", json::object{{"kind", "PropagationPolicy"}, {"name", "p"}}}});
    sync::SyncController sync(*client, io.io().get_executor(),
                              sync::Informers{*fds, *rbs, *clusters, fos, cfos, crbs}, *members,
                              events, sync::SyncControllerOptions{.hostId = "test-host"});
    auto synced = sync.reconcile(key("big"));
    ASSERT_TRUE(synced) << synced.error();
    ASSERT_FALSE(memberObject(res::kDeployments, "big").empty());
    // The member's scheduler has placed what fits and left the rest pending.
    ASSERT_TRUE(eventually(
        [&] {
          auto pods = io.run(memberClient().list(res::kPods, ns, {}));
          if (!pods) return false;
          // Settled: every pod either placed and running (the estimate counts what runs) or
          // tried by the scheduler and left Unschedulable.
          int running = 0, unschedulable = 0;
          for (const auto& pod : pods->items) {
            const auto* status = pod.if_contains("status");
            const auto* phase = status ? status->as_object().if_contains("phase") : nullptr;
            const auto* spec = pod.if_contains("spec");
            if (spec && spec->as_object().if_contains("nodeName")) {
              if (phase && *phase == "Running") ++running;
              continue;
            }
            const auto* conditions =
                status ? status->as_object().if_contains("conditions") : nullptr;
            for (const auto& c : conditions ? conditions->as_array() : json::array{})
              if (c.at("type") == "PodScheduled" && c.at("status") == "False") ++unschedulable;
          }
          this->bound = running;
          return running + unschedulable == 4 && unschedulable >= 2;
        },
        30s));
  }
  static int64_t estimate(const json::object& rb) {
    const auto* status = rb.if_contains("status");
    const auto* am = status ? status->as_object().if_contains("autoMigration") : nullptr;
    const auto* capacity = am ? am->as_object().if_contains("estimatedCapacity") : nullptr;
    const auto* value = capacity ? capacity->as_object().if_contains(kMember) : nullptr;
    return value && value->is_int64() ? value->as_int64() : -1;
  }

  const kube::SharedInformer *pps, *cpps;
  kube::SharedInformer* mutableRbs;
  int bound = -1;
};

TEST_F(AutoMigrationReconcilerTest, AMemberThatCannotRunEveryReplicaGetsItsCapacityEstimated) {
  runOversizedWorkload();
  auto c = controller(*client);
  ASSERT_TRUE(eventually(
      [&] {
        caughtUp(*rbs, "big");
        auto r = c->reconcile(key("big"));
        EXPECT_TRUE(r) << r.error();
        return estimate(get(res::kResourceBindings, "big")) >= 0;
      },
      30s))
      << json::serialize(get(res::kResourceBindings, "big"));
  EXPECT_EQ(estimate(get(res::kResourceBindings, "big")), bound)
      << "the member's capacity is the replicas it placed";

  caughtUp(*rbs, "big");
  const auto before = hostWrites();
  ASSERT_TRUE(c->reconcile(key("big")));
  EXPECT_EQ(hostWrites(), before) << "an unchanged estimate was written again";
}

TEST_F(AutoMigrationReconcilerTest, AnEstimateThatMeetsAConflictIsWrittenOnTheNextPass) {
  runOversizedWorkload();
  auto conflicted = controller(conflictClient());
  // Once the member's scheduler has left pods pending, the estimate is written and answered 409:
  // the reconcile fails (the queue retries it with backoff) and nothing is written.
  ASSERT_TRUE(eventually(
      [&] {
        auto r = conflicted->reconcile(key("big"));
        return !r && r.error().code == 409;
      },
      30s));
  EXPECT_EQ(estimate(get(res::kResourceBindings, "big")), -1);
  caughtUp(*rbs, "big");
  ASSERT_TRUE(controller(*client)->reconcile(key("big")));
  EXPECT_EQ(estimate(get(res::kResourceBindings, "big")), bound);
}

}  // namespace
}  // namespace flotilla::controllers::automigration
