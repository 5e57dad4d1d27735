#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <sstream>

#include "cli/commands.h"

namespace flotilla::cli {
namespace {

namespace json = boost::json;

const std::string kRoot = FLOTILLA_SOURCE_DIR;
const std::string kPolicy = kRoot + "/config/samples/demo/02-policy.yaml";
const std::string kDeployment = kRoot + "/config/samples/demo/03-deployment.yaml";
const std::string kFleet = kRoot + "/config/samples/offline/fleet-status.yaml";

struct Output {
  int code;
  std::string out;
  std::string err;
};

Output schedule(std::vector<std::string> args, const std::string& stdinText = "") {
  std::istringstream in(stdinText);
  std::ostringstream out;
  std::ostringstream err;
  int code = runSchedule(args, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(ScheduleCommandTest, DemoScenarioAsJson) {
  Output o = schedule({"-f", kPolicy, "-f", kDeployment, "-f", kFleet, "-o", "json"});
  ASSERT_EQ(o.code, 0) << o.err;
  json::value report = json::parse(o.out);
  EXPECT_EQ(report.at("placement"), json::parse(R"({"member1": 2, "member2": 2, "member3": 2})"));
  EXPECT_EQ(report.at("reason"), "Success");
  EXPECT_EQ(report.at("scheduleType"), "FirstSchedule (not scheduled yet)");
  ASSERT_EQ(report.at("clusters").as_array().size(), 3u);
  EXPECT_EQ(report.at("clusters").at(0).at("scores").as_object().size(), 6u);
}

// The same arithmetic as the operator's binding controller (one implementation): the pod's
// overhead counts, and so would the largest init container.
TEST(ScheduleCommandTest, ReplicaRequestsIncludeThePodsOverhead) {
  const std::string deployment = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo, labels: {app: web, flotilla.io/propagation-policy: demo-spread}}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      overhead: {cpu: 100m}
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 256Mi}}}]
)";
  Output o = schedule({"-f", kPolicy, "-f", "-", "-f", kFleet, "-o", "json"}, deployment);
  ASSERT_EQ(o.code, 0) << o.err;
  const std::string workload(json::parse(o.out).at("workload").as_string());
  EXPECT_NE(workload.find("requests cpu=600m memory=256Mi"), std::string::npos) << workload;
}

TEST(ScheduleCommandTest, TableShowsVerdictsAndUnschedulableExitsThree) {
  // Only one region left: the policy's spread over 2 regions cannot be met.
  const std::string fleetOneRegion = R"(
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: member1, labels: {env: demo}}
spec: {apiEndpoint: "https://10.0.0.1", secretRef: {name: s}, region: eu, zone: eu-1}
status:
  conditions: [{type: Ready, status: "True", reason: ClusterReady, lastTransitionTime: "2026-11-22T09:00:00Z"}]
  apiEnablements: [{groupVersion: apps/v1, resources: [{name: deployments, kind: Deployment}]}]
  resources: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}
---
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: member2, labels: {env: demo}}
spec: {apiEndpoint: "https://10.0.0.2", secretRef: {name: s}, region: us, zone: us-1}
status:
  conditions: [{type: Ready, status: "False", reason: ClusterNotReady, lastTransitionTime: "2026-11-22T09:00:00Z"}]
)";
  Output o = schedule({"-f", kPolicy, "-f", kDeployment, "-f", "-"}, fleetOneRegion);
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_NE(
      o.out.find("Result:         Unschedulable: spread constraint region: 1 group(s) available, "
                 "minGroups is 2"),
      std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("ClusterReady: cluster(s) were not ready"), std::string::npos) << o.out;
}

TEST(ScheduleCommandTest, DynamicWeightsShortfallIsNamed) {
  // Dynamic weights (no weights): 6 replicas of 500m CPU; the members have room for 1, 1 and 2.
  std::string input = R"(
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: dynamic, namespace: demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling: {type: Divided, division: Weighted}
)";
  for (const auto& [name, cpu] :
       {std::pair{"member1", "500m"}, {"member2", "700m"}, {"member3", "1"}}) {
    input += std::string("---\napiVersion: flotilla.io/v1alpha1\nkind: FederatedCluster\n") +
             "metadata: {name: " + name + "}\n" +
             "spec: {apiEndpoint: \"https://10.0.0.1\", secretRef: {name: s}, region: eu}\n" +
             "status:\n" +
             "  conditions: [{type: Ready, status: \"True\", reason: ClusterReady, "
             "lastTransitionTime: \"2026-11-22T09:00:00Z\"}]\n" +
             "  apiEnablements: [{groupVersion: apps/v1, resources: [{name: deployments, kind: "
             "Deployment}]}]\n" +
             "  resources: {allocatable: {cpu: \"" + cpu + "\", memory: 32Gi, pods: \"110\"}}\n";
  }
  Output o = schedule({"-f", kDeployment, "-f", "-"}, input);
  EXPECT_EQ(o.code, 3) << o.err;
  EXPECT_NE(o.out.find("Result:         Unschedulable: 0/3 clusters have enough room: 4 of 6 "
                       "replicas fit"),
            std::string::npos)
      << o.out;
}

// Any kind goes through the binding controller's own decision: a ConfigMap has no replicas, so it
// is placed on every cluster the policy selects, Divided or not.
TEST(ScheduleCommandTest, AnyKindIsScheduledAsTheOperatorWould) {
  const std::string objects = R"(
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: settings, namespace: demo}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: settings}]
  placement:
    clusterAffinity: {clusterNames: [member1, member3]}
    replicaScheduling: {type: Divided}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: demo}
data: {mode: fast}
)";
  Output o = schedule({"-f", "-", "-f", kFleet, "-o", "json"}, objects);
  ASSERT_EQ(o.code, 0) << o.err;
  json::value report = json::parse(o.out);
  EXPECT_EQ(report.at("placement"), json::parse(R"({"member1": 0, "member3": 0})"));
  EXPECT_NE(std::string(report.at("workload").as_string()).find("demo/settings (0 replicas"),
            std::string::npos)
      << report.at("workload");
}

TEST(ScheduleCommandTest, InputErrors) {
  EXPECT_EQ(schedule({"-f", kDeployment, "-f", kFleet}).code, 1);  // no policy
  Output twoPolicies = schedule({"-f", kPolicy, "-f", kPolicy, "-f", kDeployment, "-f", kFleet});
  EXPECT_EQ(twoPolicies.code, 1);
  EXPECT_NE(twoPolicies.err.find("more than one policy given"), std::string::npos);
  Output invalid = schedule({"-f", "-"},
                            "apiVersion: flotilla.io/v1alpha1\nkind: PropagationPolicy\n"
                            "metadata: {name: p}\nspec: {priority: x}\n");
  EXPECT_EQ(invalid.code, 1);
  EXPECT_NE(invalid.err.find("spec.priority: expected integer, got string"), std::string::npos)
      << invalid.err;
  EXPECT_EQ(schedule({"-o", "yaml", "-f", kPolicy}).code, 2);
}

}  // namespace
}  // namespace flotilla::cli

namespace flotilla::cli {
namespace {

// A SchedulerExtender given with the objects is called; one that cannot be reached fails the
// cycle unless it is ignorable, in which case the result carries a warning.
TEST(ScheduleCommandTest, CallsSchedulerExtendersGivenWithTheObjects) {
  // Port 1 on loopback: nothing listens there, the connection is refused at once.
  const std::string extender = R"(
apiVersion: flotilla.io/v1alpha1
kind: SchedulerExtender
metadata: {name: capacity}
spec: {urlPrefix: "http://127.0.0.1:1/scheduler", filterVerb: filter, httpTimeout: 2s, ignorable: IGNORABLE}
)";
  auto with = [&](const char* ignorable) {
    std::string text = extender;
    text.replace(text.find("IGNORABLE"), 9, ignorable);
    return schedule({"-f", kPolicy, "-f", kDeployment, "-f", kFleet, "-f", "-", "-o", "json"},
                    text);
  };
  Output failing = with("false");
  ASSERT_EQ(failing.code, 3) << failing.err;
  json::value report = json::parse(failing.out);
  EXPECT_EQ(report.at("reason"), "SchedulerError");
  EXPECT_NE(std::string(report.at("message").as_string()).find("extender capacity filter"),
            std::string::npos);

  Output skipped = with("true");
  ASSERT_EQ(skipped.code, 0) << skipped.err;
  report = json::parse(skipped.out);
  EXPECT_EQ(report.at("reason"), "Success");
  ASSERT_EQ(report.at("warnings").as_array().size(), 1u);
}

}  // namespace
}  // namespace flotilla::cli
