#include "sim/server/table.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "api/time.h"

namespace flotilla::sim {
namespace {

namespace json = boost::json;

TEST(JsonPath, PrinterColumnSubset) {
  const json::value o = json::parse(R"({"metadata":{"name":"a"},"status":{"conditions":[
      {"type":"Scheduled","status":"False"},{"type":"Ready","status":"True"}]},
      "webhooks":[1,2,3],"spec":{"list":[{"x":5}]}})");
  EXPECT_EQ(*evalJsonPath(o, ".metadata.name"), "a");
  EXPECT_EQ(*evalJsonPath(o, ".status.conditions[?(@.type==\"Ready\")].status"), "True");
  EXPECT_EQ(*evalJsonPath(o, ".spec.list[0].x"), 5);
  EXPECT_EQ(*evalJsonPath(o, ".spec.list[*].x"),
            5);  // the first result, as kube-apiserver prints it
  EXPECT_EQ(*evalJsonPath(o, ".webhooks.length"), 3);
  EXPECT_FALSE(evalJsonPath(o, ".spec.missing"));
  EXPECT_FALSE(evalJsonPath(o, ".spec.list[3]"));
  EXPECT_FALSE(evalJsonPath(o, "spec"));
}

TEST(HumanDuration, MatchesKubectlAges) {
  using std::chrono::seconds;
  EXPECT_EQ(humanDuration(seconds(45)), "45s");
  EXPECT_EQ(humanDuration(seconds(150)), "2m30s");
  EXPECT_EQ(humanDuration(seconds(15 * 60)), "15m");
  EXPECT_EQ(humanDuration(seconds(5 * 3600 + 600)), "5h10m");
  EXPECT_EQ(humanDuration(seconds(20 * 3600)), "20h");
  EXPECT_EQ(humanDuration(seconds(3 * 86400)), "3d");
  EXPECT_EQ(humanDuration(seconds(400 * 86400)), "400d");
  EXPECT_EQ(humanDuration(seconds(800 * 86400)), "2y70d");
  EXPECT_EQ(humanDuration(seconds(3650 * 86400)), "10y");
  EXPECT_EQ(humanDuration(seconds(-1)), "0s");
  EXPECT_EQ(humanDuration(seconds(-2)), "<invalid>");
}

TEST(Table, NameColumnsAndAge) {
  ResourceInfo r;
  r.kind = "Widget";
  r.columns = {{"Ready", "string", ".status.conditions[?(@.type==\"Ready\")].status", "", 0},
               {"Size", "integer", ".spec.size", "", 1}};
  const auto now = *api::parseRfc3339("2026-11-22T10:00:00Z");
  auto object = json::parse(R"({"metadata":{"name":"w1","creationTimestamp":"2026-11-22T09:55:00Z"},
      "spec":{"size":3},"status":{"conditions":[{"type":"Ready","status":"True"}]}})")
                    .as_object();
  auto table = makeTable(r, {object}, now, IncludeObject::kMetadata, true, "7");
  EXPECT_EQ(table.at("kind"), "Table");
  const auto& columns = table.at("columnDefinitions").as_array();
  ASSERT_EQ(columns.size(), 4u);
  EXPECT_EQ(columns[0].at("name"), "Name");
  EXPECT_EQ(columns[2].at("priority"), 1);
  EXPECT_EQ(columns[3].at("name"), "Age");
  const auto& cells = table.at("rows").at(0).at("cells").as_array();
  EXPECT_EQ(cells, json::parse(R"(["w1","True",3,"5m"])").as_array());
  EXPECT_EQ(table.at("rows").at(0).at("object").at("kind"), "PartialObjectMetadata");
  auto noHeaders = makeTable(r, {object}, now, IncludeObject::kNone, false, "7");
  EXPECT_TRUE(noHeaders.at("columnDefinitions").as_array().empty());
}

}  // namespace
}  // namespace flotilla::sim

namespace flotilla::sim {
namespace {

// Cells and headers below are what kube-apiserver v1.24 returned for the same objects.
const auto kNow = *api::parseRfc3339("2026-11-23T05:05:00Z");

ResourceInfo builtinResource(std::string group, std::string resource) {
  ResourceInfo r;
  r.group = std::move(group);
  r.resource = std::move(resource);
  return r;
}

json::object tableOf(const std::string& group, const std::string& resource,
                     std::string_view object) {
  return makeTable(builtinResource(group, resource), {json::parse(object).as_object()}, kNow,
                   IncludeObject::kMetadata, true, "1");
}

json::array cellsOf(const std::string& group, const std::string& resource,
                    std::string_view object) {
  return tableOf(group, resource, object).at("rows").at(0).at("cells").as_array();
}

std::string headers(const std::string& group, const std::string& resource) {
  std::string out;
  const auto table = tableOf(group, resource, "{}");
  for (const auto& c : table.at("columnDefinitions").as_array())
    out += std::string(c.at("name").as_string()) + (c.at("priority") == 1 ? "* " : " ");
  return out;
}

TEST(BuiltinTable, HeadersAsKubeApiserverDefinesThem) {
  EXPECT_EQ(headers("", "pods"),
            "Name Ready Status Restarts Age IP* Node* Nominated Node* Readiness Gates* ");
  EXPECT_EQ(headers("apps", "deployments"),
            "Name Ready Up-to-date Available Age Containers* Images* Selector* ");
  EXPECT_EQ(headers("apps", "replicasets"),
            "Name Desired Current Ready Age Containers* Images* Selector* ");
  EXPECT_EQ(headers("", "nodes"),
            "Name Status Roles Age Version Internal-IP* External-IP* OS-Image* Kernel-Version* "
            "Container-Runtime* ");
  EXPECT_EQ(headers("", "events"),
            "Last Seen Type Reason Object Subobject* Source* Message First Seen* Count* Name* ");
  EXPECT_EQ(headers("events.k8s.io", "events"), headers("", "events"));
  EXPECT_EQ(headers("", "services"), "Name Type Cluster-IP External-IP Port(s) Age Selector* ");
  EXPECT_EQ(headers("", "namespaces"), "Name Status Age ");
  EXPECT_EQ(headers("", "secrets"), "Name Type Data Age ");
  EXPECT_EQ(headers("", "configmaps"), "Name Data Age ");
  EXPECT_EQ(headers("", "serviceaccounts"), "Name Secrets Age ");
  EXPECT_EQ(headers("coordination.k8s.io", "leases"), "Name Holder Age ");
  EXPECT_EQ(headers("admissionregistration.k8s.io", "validatingwebhookconfigurations"),
            "Name Webhooks Age ");
  EXPECT_EQ(headers("apiextensions.k8s.io", "customresourcedefinitions"), "Name Created At ");
  const auto pods = tableOf("", "pods", "{}").at("columnDefinitions").as_array();
  EXPECT_EQ(pods[0].at("format"), "name");
  EXPECT_EQ(pods[3].at("type"), "string");  // Restarts: "2 (5m ago)"
}

TEST(BuiltinTable, PodStatusReadyRestarts) {
  EXPECT_EQ(
      cellsOf("", "pods", R"({"metadata":{"name":"pod1",
      "creationTimestamp":"2026-11-23T05:04:06Z"},"spec":{"containers":[{"name":"web"}]},
      "status":{"phase":"Pending","qosClass":"BestEffort"}})"),
      json::parse(R"(["pod1","0/1","Pending","0","54s","<none>","<none>","<none>","<none>"])"));
  EXPECT_EQ(cellsOf("", "pods", R"({"metadata":{"name":"web-1",
      "creationTimestamp":"2026-11-23T04:00:00Z"},
      "spec":{"nodeName":"n1","containers":[{"name":"a"},{"name":"b"}],
              "readinessGates":[{"conditionType":"x"},{"conditionType":"y"}]},
      "status":{"phase":"Running","podIP":"10.244.0.5","nominatedNodeName":"n2",
        "conditions":[{"type":"x","status":"True"},{"type":"y","status":"False"}],
        "containerStatuses":[
          {"name":"a","ready":true,"restartCount":2,"state":{"running":{}},
           "lastState":{"terminated":{"exitCode":1,"finishedAt":"2026-11-23T05:00:00Z"}}},
          {"name":"b","ready":true,"restartCount":0,"state":{"running":{}}}]}})"),
            json::parse(R"j(["web-1","2/2","Running","2 (5m ago)","65m","10.244.0.5","n1","n2",
                            "1/2"])j"));
  auto status = [](std::string_view pod) {
    return std::string(cellsOf("", "pods", pod).at(2).as_string());
  };
  EXPECT_EQ(status(R"({"spec":{"initContainers":[{"name":"i"}],"containers":[{"name":"c"}]},
      "status":{"phase":"Pending","initContainerStatuses":[
        {"state":{"waiting":{"reason":"PodInitializing"}}}]}})"),
            "Init:0/1");
  EXPECT_EQ(status(R"({"status":{"phase":"Pending","initContainerStatuses":[
        {"state":{"terminated":{"exitCode":0}}},{"state":{"waiting":{"reason":"ErrImagePull"}}}]}})"),
            "Init:ErrImagePull");
  EXPECT_EQ(status(R"({"status":{"phase":"Pending","initContainerStatuses":[
        {"state":{"terminated":{"exitCode":2}}}]}})"),
            "Init:ExitCode:2");
  EXPECT_EQ(status(R"({"status":{"phase":"Running","containerStatuses":[
        {"ready":false,"state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})"),
            "CrashLoopBackOff");
  EXPECT_EQ(status(R"({"status":{"phase":"Running","containerStatuses":[
        {"ready":true,"state":{"running":{}}},
        {"ready":false,"state":{"terminated":{"exitCode":0,"reason":"Completed"}}}],
        "conditions":[{"type":"Ready","status":"True"}]}})"),
            "Running");
  EXPECT_EQ(status(R"({"status":{"phase":"Running","containerStatuses":[
        {"state":{"terminated":{"exitCode":137,"signal":9}}}]}})"),
            "Signal:9");
  EXPECT_EQ(status(R"({"metadata":{"deletionTimestamp":"2026-11-23T05:00:00Z"},
        "status":{"phase":"Running"}})"),
            "Terminating");
  EXPECT_EQ(status(R"({"status":{"phase":"Failed","reason":"Evicted"}})"), "Evicted");
  const auto done = tableOf("", "pods", R"({"status":{"phase":"Succeeded"}})");
  EXPECT_EQ(done.at("rows").at(0).at("conditions").at(0).at("reason"), "Succeeded");
}

TEST(BuiltinTable, DeploymentsAndReplicaSets) {
  const char* deployment = R"({"metadata":{"name":"web","creationTimestamp":"2026-11-23T05:03:32Z"},
      "spec":{"replicas":3,"selector":{"matchLabels":{"app":"web","tier":"a"},
        "matchExpressions":[{"key":"env","operator":"In","values":["prod","dev"]},
                            {"key":"gone","operator":"DoesNotExist"}]},
        "template":{"spec":{"containers":[{"name":"web","image":"nginx:1.25"},
                                          {"name":"side","image":"busybox:latest"}]}}},
      "status":{"readyReplicas":3,"updatedReplicas":3,"availableReplicas":2}})";
  EXPECT_EQ(cellsOf("apps", "deployments", deployment),
            json::parse(R"(["web","3/3",3,2,"88s","web,side","nginx:1.25,busybox:latest",
                            "app=web,env in (dev,prod),!gone,tier=a"])"));
  EXPECT_EQ(cellsOf("apps", "deployments", R"({"spec":{"replicas":1}})"),
            json::parse(R"(["","0/1",0,0,"<unknown>","","",""])"));
  EXPECT_EQ(cellsOf("apps", "replicasets", R"({"metadata":{"name":"web-577bd7bc88",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"replicas":1,
      "selector":{"matchLabels":{"app":"web","pod-template-hash":"577bd7bc88"}},
      "template":{"spec":{"containers":[{"name":"web","image":"nginx:1.25"}]}}},
      "status":{"replicas":1}})"),
            json::parse(R"(["web-577bd7bc88",1,1,0,"88s","web","nginx:1.25",
                            "app=web,pod-template-hash=577bd7bc88"])"));
  EXPECT_EQ(cellsOf("apps", "replicasets", R"({"spec":{}})").at(7), "<none>");
}

TEST(BuiltinTable, Nodes) {
  EXPECT_EQ(cellsOf("", "nodes", R"({"metadata":{"name":"sim-cmp-node",
      "creationTimestamp":"2026-11-23T05:04:48Z","labels":{
        "node-role.kubernetes.io/control-plane":"","node-role.kubernetes.io/master":"",
        "kubernetes.io/role":"worker"}},"spec":{"unschedulable":true}})"),
            json::parse(R"(["sim-cmp-node","Unknown,SchedulingDisabled",
                "control-plane,master,worker","12s","","<none>","<none>","<unknown>","<unknown>",
                "<unknown>"])"));
  EXPECT_EQ(cellsOf("", "nodes", R"j({"metadata":{"name":"n1",
      "creationTimestamp":"2026-11-23T05:04:48Z"},"status":{
        "conditions":[{"type":"MemoryPressure","status":"False"},{"type":"Ready","status":"True"}],
        "addresses":[{"type":"Hostname","address":"n1"},{"type":"InternalIP","address":"10.0.0.4"}],
        "nodeInfo":{"kubeletVersion":"v1.32.0","osImage":"Debian GNU/Linux 12 (bookworm)",
          "kernelVersion":"6.1.0","containerRuntimeVersion":"containerd://1.7.0"}}})j"),
            json::parse(R"j(["n1","Ready","<none>","12s","v1.32.0","10.0.0.4","<none>",
                "Debian GNU/Linux 12 (bookworm)","6.1.0","containerd://1.7.0"])j"));
  EXPECT_EQ(
      cellsOf("", "nodes", R"({"status":{"conditions":[{"type":"Ready","status":"Unknown"}]}})")
          .at(1),
      "NotReady");
}

TEST(BuiltinTable, EventsThroughBothApis) {
  EXPECT_EQ(cellsOf("", "events", R"({"metadata":{"name":"ev-core"},
      "involvedObject":{"kind":"Deployment","name":"web"},"reason":"ScalingReplicaSet",
      "message":"Scaled up replica set web-1 to 1\n","type":"Normal",
      "source":{"component":"deployment-controller"},"count":3,
      "firstTimestamp":"2026-11-23T04:00:00Z","lastTimestamp":"2026-11-23T05:02:03Z"})"),
            json::parse(R"(["2m57s","Normal","ScalingReplicaSet","deployment/web","",
                "deployment-controller","Scaled up replica set web-1 to 1","65m",3,"ev-core"])"));
  // Written with events.k8s.io/v1: times from eventTime and series, source from the reporter.
  EXPECT_EQ(cellsOf("events.k8s.io", "events", R"({"apiVersion":"events.k8s.io/v1",
      "metadata":{"name":"ev-new"},"regarding":{"kind":"Pod","name":"pod1",
      "fieldPath":"spec.containers{web}"},"reason":"Started","note":"Started container web",
      "type":"Warning","reportingController":"flotilla.io/test","reportingInstance":"test-1",
      "eventTime":"2026-11-23T05:02:03.123456Z",
      "series":{"count":4,"lastObservedTime":"2026-11-23T05:03:03.000000Z"}})"),
            json::parse(R"(["117s","Warning","Started","pod/pod1","spec.containers{web}",
                "flotilla.io/test, test-1","Started container web","2m56s",4,"ev-new"])"));
  EXPECT_EQ(cellsOf("", "events", R"({"metadata":{"name":"ev-new2"},
      "involvedObject":{"kind":"Pod","name":"pod1"},"reason":"Pulled","message":"pulled",
      "type":"Normal","source":{},"reportingComponent":"kubelet","reportingInstance":"node-1",
      "eventTime":"2026-11-23T05:02:03.000000Z","firstTimestamp":null,"lastTimestamp":null})"),
            json::parse(R"(["2m57s","Normal","Pulled","pod/pod1","","kubelet, node-1","pulled",
                "2m57s",1,"ev-new2"])"));
}

TEST(BuiltinTable, ServicesAndSmallKinds) {
  const char* age = R"("creationTimestamp":"2026-11-23T05:04:48Z")";
  auto with = [&](std::string body) {
    body.replace(body.find("AGE"), 3, age);
    return body;
  };
  EXPECT_EQ(cellsOf("", "services", with(R"({"metadata":{"name":"svc1",AGE},"spec":{
      "type":"ClusterIP","clusterIP":"10.0.0.137","clusterIPs":["10.0.0.137"],
      "selector":{"app":"web"},"ports":[{"port":80,"protocol":"TCP"},{"port":443,"protocol":"TCP"}]}})")),
            json::parse(R"(["svc1","ClusterIP","10.0.0.137","<none>","80/TCP,443/TCP","12s",
                            "app=web"])"));
  EXPECT_EQ(cellsOf("", "services", with(R"({"metadata":{"name":"svc2",AGE},"spec":{
      "type":"NodePort","ports":[{"port":80,"nodePort":31056,"protocol":"TCP"}]}})")),
            json::parse(R"(["svc2","NodePort","<none>","<none>","80:31056/TCP","12s","<none>"])"));
  EXPECT_EQ(
      cellsOf("", "services", with(R"({"metadata":{"name":"svc3",AGE},"spec":{
      "type":"ExternalName","externalName":"example.com"}})")),
      json::parse(R"(["svc3","ExternalName","<none>","example.com","<none>","12s","<none>"])"));
  EXPECT_EQ(cellsOf("", "services", with(R"({"metadata":{"name":"svc4",AGE},"spec":{
      "type":"LoadBalancer","externalIPs":["1.2.3.4"],"ports":[{"port":53,"protocol":"UDP"}]}})"))
                .at(3),
            "1.2.3.4");
  EXPECT_EQ(cellsOf("", "services", R"({"spec":{"type":"LoadBalancer"}})").at(3), "<pending>");
  EXPECT_EQ(cellsOf("", "services", R"({"spec":{"type":"LoadBalancer"},
      "status":{"loadBalancer":{"ingress":[{"ip":"5.6.7.8"},{"hostname":"lb.example.com"}]}}})")
                .at(3),
            "5.6.7.8,lb.example.com");
  EXPECT_EQ(cellsOf("", "configmaps", with(R"({"metadata":{"name":"cm1",AGE},
      "data":{"a":"1","b":"2"},"binaryData":{"c":"aGVsbG8="}})")),
            json::parse(R"(["cm1",3,"12s"])"));
  EXPECT_EQ(cellsOf("", "secrets", with(R"({"metadata":{"name":"s1",AGE},"type":"Opaque",
      "data":{"x":"MQ==","z":"Mg=="}})")),
            json::parse(R"(["s1","Opaque",2,"12s"])"));
  EXPECT_EQ(cellsOf("", "serviceaccounts", with(R"({"metadata":{"name":"sa1",AGE},
      "secrets":[{"name":"sa1-token"}]})")),
            json::parse(R"(["sa1",1,"12s"])"));
  EXPECT_EQ(cellsOf("coordination.k8s.io", "leases", with(R"({"metadata":{"name":"l1",AGE},
      "spec":{"holderIdentity":"me_1234"}})")),
            json::parse(R"(["l1","me_1234","12s"])"));
  EXPECT_EQ(cellsOf("coordination.k8s.io", "leases", R"({"spec":{}})").at(1), "");
  EXPECT_EQ(cellsOf("admissionregistration.k8s.io", "mutatingwebhookconfigurations",
                    with(R"({"metadata":{"name":"m",AGE},"webhooks":[]})")),
            json::parse(R"(["m",0,"12s"])"));
  EXPECT_EQ(cellsOf("apiextensions.k8s.io", "customresourcedefinitions",
                    with(R"({"metadata":{"name":"simcmps.example.com",AGE}})")),
            json::parse(R"(["simcmps.example.com","2026-11-23T05:04:48Z"])"));
  EXPECT_EQ(cellsOf("", "namespaces", with(R"({"metadata":{"name":"ns",AGE},
      "status":{"phase":"Terminating"}})")),
            json::parse(R"(["ns","Terminating","12s"])"));
}

TEST(BuiltinTable, CustomResourcesKeepTheirColumnsWithDateTypes) {
  ResourceInfo r;
  r.custom = true;
  r.group = "example.com";
  r.resource = "simcmps";
  auto table = makeTable(r,
                         {json::parse(R"({"metadata":{"name":"c1",
      "creationTimestamp":"2026-11-23T05:04:48Z"}})")
                              .as_object()},
                         kNow, IncludeObject::kNone, true, "1");
  const auto& columns = table.at("columnDefinitions").as_array();
  ASSERT_EQ(columns.size(), 2u);
  EXPECT_EQ(columns[1].at("name"), "Age");
  EXPECT_EQ(columns[1].at("type"), "date");
  EXPECT_EQ(table.at("rows").at(0).at("cells"), json::parse(R"(["c1","12s"])"));
  EXPECT_FALSE(table.at("rows").at(0).as_object().contains("object"));
}

}  // namespace
}  // namespace flotilla::sim

namespace flotilla::sim {
namespace {

TEST(BuiltinTable, WorkloadKinds) {
  EXPECT_EQ(cellsOf("apps", "statefulsets", R"({"metadata":{"name":"db",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"replicas":3,
      "template":{"spec":{"containers":[{"name":"db","image":"postgres:16"}]}}},
      "status":{"readyReplicas":2}})"),
            json::parse(R"(["db","2/3","88s","db","postgres:16"])"));
  EXPECT_EQ(cellsOf("apps", "daemonsets", R"({"metadata":{"name":"agent",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"selector":{"matchLabels":{"app":"a"}},
      "template":{"spec":{"nodeSelector":{"disk":"ssd"},
        "containers":[{"name":"a","image":"agent:1"}]}}},
      "status":{"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":2,
        "updatedNumberScheduled":3,"numberAvailable":2}})"),
            json::parse(R"(["agent",3,3,2,3,2,"disk=ssd","88s","a","agent:1","app=a"])"));
  EXPECT_EQ(cellsOf("batch", "jobs", R"({"metadata":{"name":"pi",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"completions":3,"parallelism":1,
      "template":{"spec":{"containers":[{"name":"pi","image":"perl"}]}}},
      "status":{"succeeded":3,"startTime":"2026-11-23T05:03:32Z",
        "completionTime":"2026-11-23T05:04:02Z",
        "conditions":[{"type":"SuccessCriteriaMet","status":"True"},
                      {"type":"Complete","status":"True"}]}})"),
            json::parse(R"(["pi","Complete","3/3","30s","88s","pi","perl","<none>"])"));
  auto running = cellsOf("batch", "jobs", R"({"metadata":{"name":"q"},
      "spec":{"parallelism":2},"status":{}})");
  EXPECT_EQ(running.at(1), "Running");
  EXPECT_EQ(running.at(2), "0/1 of 2");
  EXPECT_EQ(running.at(3), "");
  EXPECT_EQ(cellsOf("batch", "jobs", R"({"spec":{"completions":1},"status":{"conditions":[
      {"type":"Failed","status":"True"}]}})")
                .at(1),
            "Failed");
  EXPECT_EQ(cellsOf("batch", "cronjobs", R"({"metadata":{"name":"tick",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"schedule":"*/1 * * * *","suspend":false,
      "jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"t","image":"busybox"}]}}}}},
      "status":{"active":[{"name":"tick-1"}],"lastScheduleTime":"2026-11-23T05:04:00Z"}})"),
            json::parse(R"(["tick","*/1 * * * *","<none>","False",1,"60s","88s","t","busybox",
                            "<none>"])"));
  EXPECT_EQ(cellsOf("autoscaling", "horizontalpodautoscalers", R"({"metadata":{"name":"web",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"minReplicas":1,"maxReplicas":10,
      "scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "metrics":[{"type":"Resource","resource":{"name":"cpu",
        "target":{"type":"Utilization","averageUtilization":80}}}]},
      "status":{"currentReplicas":2}})"),
            json::parse(R"(["web","Deployment/web","cpu: <unknown>/80%","1",10,2,"88s"])"));
  EXPECT_EQ(cellsOf("networking.k8s.io", "ingresses", R"({"metadata":{"name":"web",
      "creationTimestamp":"2026-11-23T05:03:32Z"},"spec":{"ingressClassName":"nginx",
      "rules":[{"host":"a.example"},{"host":"b.example"},{"host":"c.example"},{"host":"d.example"}],
      "tls":[{"hosts":["a.example"]}]},
      "status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.7"}]}}})"),
            json::parse(R"(["web","nginx","a.example,b.example,c.example + 1 more...",
                            "198.51.100.7","80, 443","88s"])"));
  EXPECT_EQ(cellsOf("networking.k8s.io", "ingresses", R"({"spec":{"rules":[{}]},"status":{}})"),
            json::parse(R"(["","<none>","*","","80","<unknown>"])"));
}

}  // namespace
}  // namespace flotilla::sim
