#include "sim/member/statefulset_controller.h"

#include "sim/member/workload_test_fixture.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::WorkloadFixture;
using StatefulSetTest = WorkloadFixture;

json::object statefulSet(int replicas, const std::string& image, json::object extra = {}) {
  json::object spec{{"replicas", replicas},
                    {"serviceName", "db"},
                    {"selector", json::object{{"matchLabels", json::object{{"app", "db"}}}}},
                    {"template", WorkloadFixture::podTemplate("db", image)}};
  for (const auto& [k, v] : extra) spec[k] = v;
  return json::object{{"apiVersion", "apps/v1"},
                      {"kind", "StatefulSet"},
                      {"metadata", json::object{{"name", "db"}}},
                      {"spec", spec}};
}

std::vector<std::string> names(const std::vector<json::object>& pods) {
  std::vector<std::string> out;
  for (const auto& p : pods) out.push_back(WorkloadFixture::podName(p));
  std::sort(out.begin(), out.end());
  return out;
}

TEST_F(StatefulSetTest, OrderedReadyCreatesOnePodAtATimeAndReportsRolloutStatus) {
  put("apps", "statefulsets", statefulSet(3, "db:1"));
  controller_->reconcile();
  EXPECT_EQ(names(pods()), std::vector<std::string>{"db-0"});
  // db-1 waits for db-0 to be Running and Ready.
  now_ += 500ms;
  controller_->reconcile();
  EXPECT_EQ(pods().size(), 1u);
  settle();
  EXPECT_EQ(names(pods()), (std::vector<std::string>{"db-0", "db-1", "db-2"}));
  const auto pod = get("/pods", "db-1");
  const auto& labels = pod.at("metadata").at("labels").as_object();
  EXPECT_EQ(labels.at("statefulset.kubernetes.io/pod-name"), "db-1");
  EXPECT_EQ(labels.at("apps.kubernetes.io/pod-index"), "1");
  EXPECT_EQ(pod.at("spec").at("hostname"), "db-1");
  EXPECT_EQ(pod.at("spec").at("subdomain"), "db");
  EXPECT_EQ(pod.at("metadata").at("ownerReferences").at(0).at("kind"), "StatefulSet");
  auto sts = get("apps/statefulsets", "db");
  const auto& status = sts.at("status").as_object();
  EXPECT_EQ(status.at("replicas"), 3);
  EXPECT_EQ(status.at("readyReplicas"), 3);
  EXPECT_EQ(status.at("availableReplicas"), 3);
  EXPECT_EQ(status.at("updatedReplicas"), 3);
  EXPECT_EQ(status.at("currentReplicas"), 3);
  EXPECT_EQ(status.at("observedGeneration"), 1);
  EXPECT_EQ(status.at("collisionCount"), 0);
  EXPECT_EQ(status.at("currentRevision"), status.at("updateRevision"));
  EXPECT_EQ(labels.at("controller-revision-hash"), status.at("updateRevision"));
  // Settled: no writes.
  EXPECT_EQ(controller_->reconcile(), 0);
}

TEST_F(StatefulSetTest, TemplateChangeRollsFromTheHighestOrdinal) {
  put("apps", "statefulsets", statefulSet(3, "db:1"));
  settle();
  const std::string oldRevision(
      get("apps/statefulsets", "db").at("status").at("updateRevision").as_string());
  put("apps", "statefulsets", statefulSet(3, "db:2"));
  controller_->reconcile();
  // db-2 goes first; db-0 and db-1 still run the old revision.
  auto status = get("apps/statefulsets", "db").at("status").as_object();
  EXPECT_NE(status.at("updateRevision"), json::value(oldRevision));
  EXPECT_EQ(status.at("currentRevision"), json::value(oldRevision));
  EXPECT_FALSE(store_->get({"/pods", "default", "db-2"}));
  EXPECT_EQ(get("/pods", "db-0").at("spec").at("containers").at(0).at("image"), "db:1");
  settle();
  for (const auto& p : pods())
    EXPECT_EQ(p.at("spec").at("containers").at(0).at("image"), "db:2") << podName(p);
  status = get("apps/statefulsets", "db").at("status").as_object();
  EXPECT_EQ(status.at("currentRevision"), status.at("updateRevision"));
  EXPECT_EQ(status.at("updatedReplicas"), 3);
  EXPECT_EQ(status.at("observedGeneration"), 2);
  EXPECT_EQ(controller_->reconcile(), 0);
}

TEST_F(StatefulSetTest, ScaleDownFromTheTopAndParallelCreatesAllAtOnce) {
  put("apps", "statefulsets", statefulSet(3, "db:1", {{"podManagementPolicy", "Parallel"}}));
  controller_->reconcile();
  EXPECT_EQ(pods().size(), 3u);
  settle();
  put("apps", "statefulsets", statefulSet(1, "db:1", {{"podManagementPolicy", "Parallel"}}));
  settle();
  EXPECT_EQ(names(pods()), std::vector<std::string>{"db-0"});
  EXPECT_EQ(get("apps/statefulsets", "db").at("status").at("replicas"), 1);
}

TEST_F(StatefulSetTest, StartOrdinalMovesThePods) {
  put("apps", "statefulsets", statefulSet(2, "db:1", {{"ordinals", json::object{{"start", 5}}}}));
  settle();
  EXPECT_EQ(names(pods()), (std::vector<std::string>{"db-5", "db-6"}));
  put("apps", "statefulsets", statefulSet(2, "db:1", {{"ordinals", json::object{{"start", 6}}}}));
  settle();
  EXPECT_EQ(names(pods()), (std::vector<std::string>{"db-6", "db-7"}));
  EXPECT_EQ(get("apps/statefulsets", "db").at("status").at("readyReplicas"), 2);
}

TEST_F(StatefulSetTest, AV126MemberIgnoresOrdinals) {
  options_.minorVersion = 26;
  start();
  put("apps", "statefulsets", statefulSet(2, "db:1", {{"ordinals", json::object{{"start", 5}}}}));
  settle();
  EXPECT_EQ(names(pods()), (std::vector<std::string>{"db-0", "db-1"}));
  EXPECT_FALSE(get("/pods", "db-0")
                   .at("metadata")
                   .at("labels")
                   .as_object()
                   .contains("apps.kubernetes.io/pod-index"));
}

TEST_F(StatefulSetTest, ClaimTemplatesGetBoundClaims) {
  json::object claim{
      {"metadata", json::object{{"name", "data"}}},
      {"spec",
       json::object{{"accessModes", json::array{"ReadWriteOnce"}},
                    {"resources", json::object{{"requests", json::object{{"storage", "1Gi"}}}}}}}};
  put("apps", "statefulsets",
      statefulSet(1, "db:1", {{"volumeClaimTemplates", json::array{claim}}}));
  settle();
  auto pvc = get("/persistentvolumeclaims", "data-db-0");
  EXPECT_EQ(pvc.at("status").at("phase"), "Bound");
  EXPECT_EQ(get("/pods", "db-0").at("status").at("phase"), "Running");
  EXPECT_EQ(get("/pods", "db-0").at("spec").at("volumes").at(0).at("persistentVolumeClaim"),
            json::parse(R"({"claimName":"data-db-0"})"));
}

}  // namespace
}  // namespace flotilla::sim
