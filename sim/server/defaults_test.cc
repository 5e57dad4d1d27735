// Expected objects are what kube-apiserver v1.24 returned for the same input (less the
// serialization-only `template.metadata.creationTimestamp: null` and the ServiceAccount plugin's
// token volume, which the sim does not add).
#include "sim/server/defaults.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::sim {
namespace {

namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }

TEST(Defaults, DeploymentAsKubeApiserverReturnsIt) {
  auto d = parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
    "spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},
    "spec":{"initContainers":[{"name":"init","image":"busybox"}],
      "containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80}],
        "env":[{"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
        "readinessProbe":{"httpGet":{"path":"/","port":80}},
        "livenessProbe":{"exec":{"command":["true"]},"periodSeconds":5}},
      {"name":"side","image":"busybox:latest"}]}}}})");
  applyDefaults("apps", "deployments", d);
  EXPECT_EQ(d.at("spec"), json::parse(R"({
    "progressDeadlineSeconds":600,"replicas":1,"revisionHistoryLimit":10,
    "selector":{"matchLabels":{"app":"web"}},
    "strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":"25%"},"type":"RollingUpdate"},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{
      "containers":[
        {"env":[{"name":"POD","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],
         "image":"nginx:1.25","imagePullPolicy":"IfNotPresent",
         "livenessProbe":{"exec":{"command":["true"]},"failureThreshold":3,"periodSeconds":5,
                          "successThreshold":1,"timeoutSeconds":1},
         "name":"web","ports":[{"containerPort":80,"protocol":"TCP"}],
         "readinessProbe":{"failureThreshold":3,"httpGet":{"path":"/","port":80,"scheme":"HTTP"},
                           "periodSeconds":10,"successThreshold":1,"timeoutSeconds":1},
         "resources":{},"terminationMessagePath":"/dev/termination-log",
         "terminationMessagePolicy":"File"},
        {"image":"busybox:latest","imagePullPolicy":"Always","name":"side","resources":{},
         "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
      "dnsPolicy":"ClusterFirst",
      "initContainers":[{"image":"busybox","imagePullPolicy":"Always","name":"init","resources":{},
         "terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],
      "restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},
      "terminationGracePeriodSeconds":30}}})"));
  // Defaulting a defaulted object changes nothing.
  auto again = d;
  applyDefaults("apps", "deployments", again);
  EXPECT_EQ(again, d);
  // A pod template is not a pod: no enableServiceLinks, no requests from limits, no tolerations.
  EXPECT_FALSE(d.at("spec").at("template").at("spec").as_object().contains("enableServiceLinks"));
}

TEST(Defaults, DeploymentStrategyAndExplicitValues) {
  auto recreate = parse(R"({"spec":{"replicas":0,"strategy":{"type":"Recreate"},
      "revisionHistoryLimit":2,"template":{"spec":{"containers":[{"name":"web",
      "image":"nginx:1.25","resources":{"limits":{"cpu":"100m"}}}]}}}})");
  applyDefaults("apps", "deployments", recreate);
  const auto& spec = recreate.at("spec").as_object();
  EXPECT_EQ(spec.at("replicas"), 0);
  EXPECT_EQ(spec.at("revisionHistoryLimit"), 2);
  EXPECT_EQ(spec.at("strategy"), json::parse(R"({"type":"Recreate"})"));
  EXPECT_EQ(spec.at("template").at("spec").at("containers").at(0).at("resources"),
            json::parse(R"({"limits":{"cpu":"100m"}})"));

  auto partial = parse(R"({"spec":{"strategy":{"rollingUpdate":{"maxSurge":1}}}})");
  applyDefaults("apps", "deployments", partial);
  EXPECT_EQ(partial.at("spec").at("strategy"),
            json::parse(R"({"rollingUpdate":{"maxSurge":1,"maxUnavailable":"25%"},
                            "type":"RollingUpdate"})"));
}

TEST(Defaults, ImagePullPolicyFollowsTheTag) {
  auto policy = [](const char* image) {
    auto rs = parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}})");
    rs["spec"]
        .as_object()["template"]
        .as_object()["spec"]
        .as_object()["containers"]
        .as_array()[0]
        .as_object()["image"] = image;
    applyDefaults("apps", "replicasets", rs);
    EXPECT_EQ(rs.at("spec").at("replicas"), 1);
    return std::string(rs.at("spec")
                           .at("template")
                           .at("spec")
                           .at("containers")
                           .at(0)
                           .at("imagePullPolicy")
                           .as_string());
  };
  EXPECT_EQ(policy("nginx"), "Always");
  EXPECT_EQ(policy("nginx:latest"), "Always");
  EXPECT_EQ(policy("registry:5000/nginx"), "Always");
  EXPECT_EQ(policy("nginx:1.25"), "IfNotPresent");
  EXPECT_EQ(policy("registry:5000/nginx:1.25"), "IfNotPresent");
  EXPECT_EQ(policy("nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000"),
            "IfNotPresent");
}

TEST(Defaults, PodSpecVolumesPortsAndQuantities) {
  auto pod = parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod2"},"spec":{
    "hostNetwork":true,
    "volumes":[{"name":"cm","configMap":{"name":"cm1"}},{"name":"sec","secret":{"secretName":"s1"}},
      {"name":"dapi","downwardAPI":{"items":[{"path":"x","fieldRef":{"fieldPath":"metadata.name"}}]}},
      {"name":"proj","projected":{"sources":[{"configMap":{"name":"cm1"}}]}},
      {"name":"ed","emptyDir":{}},{"name":"hp","hostPath":{"path":"/tmp"}},{"name":"bare"}],
    "containers":[{"name":"web","image":"nginx:latest","ports":[{"containerPort":8080}],
      "resources":{"limits":{"cpu":"0.1","memory":"64Mi"},"requests":{"ephemeral-storage":"1000M"}},
      "env":[{"name":"CPU","valueFrom":{"resourceFieldRef":{"resource":"limits.cpu"}}}],
      "livenessProbe":{"httpGet":{"port":80}},"lifecycle":{"preStop":{"httpGet":{"port":80}}},
      "securityContext":{}}]}})");
  applyDefaults("", "pods", pod);
  const auto& spec = pod.at("spec").as_object();
  EXPECT_EQ(spec.at("volumes"), json::parse(R"([
    {"name":"cm","configMap":{"name":"cm1","defaultMode":420}},
    {"name":"sec","secret":{"secretName":"s1","defaultMode":420}},
    {"name":"dapi","downwardAPI":{"items":[{"path":"x","fieldRef":{"fieldPath":"metadata.name",
      "apiVersion":"v1"}}],"defaultMode":420}},
    {"name":"proj","projected":{"sources":[{"configMap":{"name":"cm1"}}],"defaultMode":420}},
    {"name":"ed","emptyDir":{}},{"name":"hp","hostPath":{"path":"/tmp","type":""}},
    {"name":"bare","emptyDir":{}}])"));
  const auto& c = spec.at("containers").at(0).as_object();
  EXPECT_EQ(c.at("imagePullPolicy"), "Always");
  EXPECT_EQ(c.at("ports"),
            json::parse(R"([{"containerPort":8080,"protocol":"TCP","hostPort":8080}])"));
  // Canonical quantities; requests default to limits on pods.
  EXPECT_EQ(c.at("resources"), json::parse(R"({"limits":{"cpu":"100m","memory":"64Mi"},
      "requests":{"ephemeral-storage":"1G","cpu":"100m","memory":"64Mi"}})"));
  EXPECT_EQ(c.at("env").at(0).at("valueFrom"),
            json::parse(R"({"resourceFieldRef":{"resource":"limits.cpu","divisor":"0"}})"));
  EXPECT_EQ(c.at("lifecycle"),
            json::parse(R"({"preStop":{"httpGet":{"port":80,"path":"/","scheme":"HTTP"}}})"));
  EXPECT_EQ(c.at("securityContext"), json::object{});
  EXPECT_EQ(spec.at("enableServiceLinks"), true);
  EXPECT_EQ(podQosClass(pod), "Guaranteed");
}

TEST(Defaults, NumbersHostPortZeroAndServiceAccountMirror) {
  auto d = parse(R"({"spec":{"template":{"spec":{"serviceAccountName":"robot","hostNetwork":true,
      "containers":[{"name":"web","image":"nginx:1.25","ports":[{"containerPort":80,"hostPort":0}],
      "resources":{"requests":{"cpu":0.5,"memory":1073741824}}}]}}}})");
  applyDefaults("apps", "deployments", d);
  const auto& spec = d.at("spec").at("template").at("spec");
  EXPECT_EQ(spec.at("serviceAccount"), "robot");
  const auto& c = spec.at("containers").at(0);
  EXPECT_EQ(c.at("ports").at(0).at("hostPort"), 80);
  EXPECT_EQ(c.at("resources").at("requests"),
            json::parse(R"({"cpu":"500m","memory":"1073741824"})"));
}

TEST(Defaults, PodAdmissionTolerationsPriorityServiceAccount) {
  auto pod = parse(R"({"spec":{"tolerations":[
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoSchedule"},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists"}],
      "containers":[{"name":"web","image":"nginx"}]}})");
  applyDefaults("", "pods", pod);
  admitPod(pod, nullptr);
  const auto& spec = pod.at("spec").as_object();
  // NoSchedule does not tolerate the NoExecute taint; an empty effect does.
  EXPECT_EQ(spec.at("tolerations"), json::parse(R"([
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoSchedule"},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists"},
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute",
       "tolerationSeconds":300}])"));
  EXPECT_EQ(spec.at("priority"), 0);
  EXPECT_EQ(spec.at("preemptionPolicy"), "PreemptLowerPriority");
  EXPECT_EQ(spec.at("serviceAccountName"), "default");
  EXPECT_EQ(spec.at("serviceAccount"), "default");
  EXPECT_EQ(podQosClass(pod), "BestEffort");

  auto bare = parse(R"({"spec":{"containers":[{"name":"web","image":"nginx"}]}})");
  admitPod(bare, nullptr);
  EXPECT_EQ(bare.at("spec").at("tolerations"), json::parse(R"([
      {"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute",
       "tolerationSeconds":300},
      {"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute",
       "tolerationSeconds":300}])"));
  auto admittedAgain = bare;
  admitPod(admittedAgain, &bare);
  EXPECT_EQ(admittedAgain, bare);

  // An update that leaves the admission fields out keeps the old values.
  auto old = parse(R"({"spec":{"priority":7,"preemptionPolicy":"Never",
      "serviceAccountName":"robot","serviceAccount":"robot"}})");
  auto update = parse(R"({"spec":{}})");
  admitPod(update, &old);
  EXPECT_EQ(update.at("spec").at("priority"), 7);
  EXPECT_EQ(update.at("spec").at("preemptionPolicy"), "Never");
  EXPECT_EQ(update.at("spec").at("serviceAccount"), "robot");
}

TEST(Defaults, QosClasses) {
  auto qos = [](std::string_view containers) {
    return podQosClass(
        parse(std::string(R"({"spec":{"containers":)") + std::string(containers) + "}}"));
  };
  EXPECT_EQ(qos(R"([{"name":"a"}])"), "BestEffort");
  EXPECT_EQ(qos(R"([{"name":"a","resources":{"requests":{"cpu":"100m"}}}])"), "Burstable");
  EXPECT_EQ(qos(R"([{"name":"a","resources":{"requests":{"cpu":"0.1","memory":"1Gi"},
      "limits":{"cpu":"100m","memory":"1024Mi"}}}])"),
            "Guaranteed");
  EXPECT_EQ(qos(R"([{"name":"a","resources":{"limits":{"cpu":"1","memory":"1Gi"}}},
      {"name":"b","resources":{"limits":{"cpu":"1"}}}])"),
            "Burstable");
  EXPECT_EQ(qos(R"([{"name":"a","resources":{"requests":{"example.com/gpu":"1"}}}])"),
            "BestEffort");
}

TEST(Defaults, SecretsAndServices) {
  auto secret = parse(R"({"stringData":{"x":"1"},"data":{"y":"Mg=="}})");
  applyDefaults("", "secrets", secret);
  EXPECT_EQ(secret, parse(R"({"data":{"y":"Mg==","x":"MQ=="},"type":"Opaque"})"));

  auto service = parse(R"({"spec":{"selector":{"app":"web"},
      "ports":[{"name":"http","port":80,"targetPort":8080},{"name":"https","port":443}]}})");
  applyDefaults("", "services", service);
  EXPECT_EQ(service.at("spec"), json::parse(R"({"selector":{"app":"web"},
      "ports":[{"name":"http","port":80,"targetPort":8080,"protocol":"TCP"},
               {"name":"https","port":443,"protocol":"TCP","targetPort":443}],
      "type":"ClusterIP","sessionAffinity":"None","internalTrafficPolicy":"Cluster"})"));
  auto lb = parse(R"({"spec":{"type":"LoadBalancer","ports":[{"port":53,"protocol":"UDP"}]}})");
  applyDefaults("", "services", lb);
  EXPECT_EQ(lb.at("spec").at("externalTrafficPolicy"), "Cluster");
  EXPECT_EQ(lb.at("spec").at("allocateLoadBalancerNodePorts"), true);
  EXPECT_EQ(lb.at("spec").at("ports").at(0).at("protocol"), "UDP");

  auto external = parse(R"({"spec":{"type":"ExternalName","externalName":"example.com"}})");
  applyDefaults("", "services", external);
  EXPECT_EQ(external.at("spec"), json::parse(R"({"type":"ExternalName",
      "externalName":"example.com","sessionAffinity":"None","internalTrafficPolicy":"Cluster"})"));

  auto configMap = parse(R"({"data":{"a":"b"}})");
  applyDefaults("", "configmaps", configMap);
  EXPECT_EQ(configMap, parse(R"({"data":{"a":"b"}})"));
}

TEST(Defaults, RbacBindingsNameTheRbacGroup) {
  auto binding = parse(R"({"roleRef":{"kind":"ClusterRole","name":"view"},"subjects":[
      {"kind":"User","name":"alice"},{"kind":"Group","name":"ops"},
      {"kind":"ServiceAccount","name":"bot","namespace":"x"}]})");
  applyDefaults("rbac.authorization.k8s.io", "rolebindings", binding);
  EXPECT_EQ(binding, parse(R"({"roleRef":{"kind":"ClusterRole","name":"view",
      "apiGroup":"rbac.authorization.k8s.io"},"subjects":[
      {"kind":"User","name":"alice","apiGroup":"rbac.authorization.k8s.io"},
      {"kind":"Group","name":"ops","apiGroup":"rbac.authorization.k8s.io"},
      {"kind":"ServiceAccount","name":"bot","namespace":"x"}]})"));
}

}  // namespace
TEST(Defaults, ServicesGetWhatKubeApiserverAllocatesAndKeepIt) {
  auto lb = parse(R"({"metadata":{"name":"web","namespace":"demo"},
    "spec":{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":443},{"port":80,"nodePort":31000}]}})");
  allocateService(lb, nullptr);
  const auto& spec = lb.at("spec").as_object();
  const std::string ip(spec.at("clusterIP").as_string());
  EXPECT_TRUE(ip.starts_with("10.")) << ip;
  EXPECT_EQ(spec.at("clusterIPs"), json::array{json::value(ip)});
  EXPECT_EQ(spec.at("ipFamilies"), json::parse(R"(["IPv4"])"));
  const auto allocated = spec.at("ports").at(0).at("nodePort").as_int64();
  EXPECT_GE(allocated, 30000);
  EXPECT_LE(allocated, 32767);
  EXPECT_EQ(spec.at("ports").at(1).at("nodePort").as_int64(), 31000);  // the user's
  EXPECT_TRUE(spec.contains("healthCheckNodePort"));
  // An update that leaves them out keeps them.
  auto update = parse(R"({"metadata":{"name":"web","namespace":"demo"},
    "spec":{"type":"LoadBalancer","externalTrafficPolicy":"Local","ports":[{"port":443}]}})");
  allocateService(update, &lb);
  EXPECT_EQ(update.at("spec").at("clusterIP"), spec.at("clusterIP"));
  EXPECT_EQ(update.at("spec").at("ports").at(0).at("nodePort").as_int64(), allocated);
  EXPECT_EQ(update.at("spec").at("healthCheckNodePort"), spec.at("healthCheckNodePort"));
  // Headless and ExternalName Services get no virtual IP; ClusterIP ones no nodePort.
  auto headless =
      parse(R"({"metadata":{"name":"h"},"spec":{"clusterIP":"None","ports":[{"port":80}]}})");
  allocateService(headless, nullptr);
  EXPECT_EQ(headless.at("spec").at("clusterIP"), "None");
  EXPECT_FALSE(headless.at("spec").at("ports").at(0).as_object().contains("nodePort"));
  auto external = parse(
      R"({"metadata":{"name":"e"},"spec":{"type":"ExternalName","externalName":"x.example"}})");
  allocateService(external, nullptr);
  EXPECT_FALSE(external.at("spec").as_object().contains("clusterIP"));
}

TEST(Defaults, ServiceAccountNameIsMirroredIntoServiceAccount) {
  // serviceAccount is inserted while serviceAccountName is read: the value is copied first (the
  // insertion may move the object's storage; ASan saw the read after the move).
  auto spec = parse(R"({"serviceAccountName":"app-sa","containers":[{"name":"c","image":"i"}]})");
  defaultPodSpec(spec);
  EXPECT_EQ(spec.at("serviceAccount"), "app-sa");
  auto legacy = parse(R"({"serviceAccount":"old-sa","containers":[]})");
  defaultPodSpec(legacy);
  EXPECT_EQ(legacy.at("serviceAccountName"), "old-sa");
}

}  // namespace flotilla::sim

namespace flotilla::sim {
namespace {

// The workload kinds, as kube-apiserver v1.32 defaults them (SetDefaults_StatefulSet, _DaemonSet,
// _Job, _CronJob, _HorizontalPodAutoscaler with the v1.32 feature gates).
TEST(WorkloadDefaults, StatefulSetWithClaimTemplates) {
  auto sts = json::parse(R"({"metadata":{"name":"db"},"spec":{"serviceName":"db",
    "selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":{"app":"db"}},
    "spec":{"containers":[{"name":"db","image":"postgres:16"}]}},
    "volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
      "resources":{"requests":{"storage":"1Gi"}}}}]}})")
                 .as_object();
  applyDefaults("apps", "statefulsets", sts);
  const auto& spec = sts.at("spec").as_object();
  EXPECT_EQ(spec.at("replicas"), 1);
  EXPECT_EQ(spec.at("podManagementPolicy"), "OrderedReady");
  EXPECT_EQ(spec.at("updateStrategy"),
            json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":0}})"));
  EXPECT_EQ(spec.at("revisionHistoryLimit"), 10);
  EXPECT_EQ(spec.at("persistentVolumeClaimRetentionPolicy"),
            json::parse(R"({"whenDeleted":"Retain","whenScaled":"Retain"})"));
  EXPECT_EQ(spec.at("volumeClaimTemplates"), json::parse(R"([{"apiVersion":"v1",
    "kind":"PersistentVolumeClaim","metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
    "resources":{"requests":{"storage":"1Gi"}},"volumeMode":"Filesystem"},
    "status":{"phase":"Pending"}}])"));
  EXPECT_EQ(spec.at("template").at("spec").at("restartPolicy"), "Always");
  EXPECT_FALSE(spec.contains("ordinals"));
  auto again = sts;
  applyDefaults("apps", "statefulsets", again);
  EXPECT_EQ(again, sts);
  // OnDelete gets no rollingUpdate.
  auto onDelete = json::parse(R"({"spec":{"updateStrategy":{"type":"OnDelete"}}})").as_object();
  applyDefaults("apps", "statefulsets", onDelete);
  EXPECT_EQ(onDelete.at("spec").at("updateStrategy"), json::parse(R"({"type":"OnDelete"})"));
}

TEST(WorkloadDefaults, OrdinalsAreDroppedBeforeV127) {
  EXPECT_EQ(minorVersionOf("v1.26.3"), 26);
  EXPECT_EQ(minorVersionOf("v1.32.0-flotilla-sim"), 32);
  EXPECT_EQ(minorVersionOf("nonsense"), 0);
  const auto sts = json::parse(R"({"spec":{"replicas":2,"ordinals":{"start":5}}})").as_object();
  auto old = sts;
  dropDisabledFields("apps", "statefulsets", old, 26);
  EXPECT_FALSE(old.at("spec").as_object().contains("ordinals"));
  auto current = sts;
  dropDisabledFields("apps", "statefulsets", current, 27);
  EXPECT_EQ(current, sts);
}

TEST(WorkloadDefaults, DaemonSet) {
  auto ds = json::parse(R"({"spec":{"template":{"spec":{"containers":[{"name":"a",
    "image":"agent:1"}]}}}})")
                .as_object();
  applyDefaults("apps", "daemonsets", ds);
  EXPECT_EQ(ds.at("spec").at("updateStrategy"), json::parse(R"({"type":"RollingUpdate",
    "rollingUpdate":{"maxUnavailable":1,"maxSurge":0}})"));
  EXPECT_EQ(ds.at("spec").at("revisionHistoryLimit"), 10);
  EXPECT_EQ(ds.at("spec").at("template").at("spec").at("dnsPolicy"), "ClusterFirst");
}

TEST(WorkloadDefaults, JobAndItsGeneratedSelector) {
  auto job = json::parse(R"({"metadata":{"name":"pi","uid":"u-1"},"spec":{"template":{
    "metadata":{"labels":{"app":"pi"}},
    "spec":{"restartPolicy":"Never","containers":[{"name":"pi","image":"perl:5"}]}}}})")
                 .as_object();
  applyDefaults("batch", "jobs", job);  // decode, then the strategy, then decoding again
  generateJobSelector(job);
  applyDefaults("batch", "jobs", job);
  const auto& spec = job.at("spec").as_object();
  EXPECT_EQ(spec.at("completions"), 1);
  EXPECT_EQ(spec.at("parallelism"), 1);
  EXPECT_EQ(spec.at("backoffLimit"), 6);
  EXPECT_EQ(spec.at("completionMode"), "NonIndexed");
  EXPECT_EQ(spec.at("suspend"), false);
  EXPECT_EQ(spec.at("podReplacementPolicy"), "TerminatingOrFailed");
  EXPECT_FALSE(spec.contains("manualSelector"));
  EXPECT_EQ(spec.at("selector"),
            json::parse(R"({"matchLabels":{"batch.kubernetes.io/controller-uid":"u-1"}})"));
  EXPECT_EQ(spec.at("template").at("metadata").at("labels"), json::parse(R"({"app":"pi",
    "batch.kubernetes.io/controller-uid":"u-1","batch.kubernetes.io/job-name":"pi",
    "controller-uid":"u-1","job-name":"pi"})"));
  // The Job's labels come from the template as the user sent it (defaulting runs at decode,
  // before the strategy generates the selector) ...
  EXPECT_EQ(job.at("metadata").at("labels"), json::parse(R"({"app":"pi"})"));
  // ... or, when it had none, as the stored Job decodes again: the generated ones.
  auto bare = json::parse(R"({"metadata":{"name":"b","uid":"u-2"},"spec":{"template":{
    "spec":{"containers":[]}}}})")
                  .as_object();
  applyDefaults("batch", "jobs", bare);
  generateJobSelector(bare);
  applyDefaults("batch", "jobs", bare);
  EXPECT_EQ(bare.at("metadata").at("labels"), json::parse(R"({
    "batch.kubernetes.io/controller-uid":"u-2","batch.kubernetes.io/job-name":"b",
    "controller-uid":"u-2","job-name":"b"})"));
  // A work queue (parallelism only) keeps completions unset.
  auto queue = json::parse(R"({"spec":{"parallelism":3}})").as_object();
  applyDefaults("batch", "jobs", queue);
  EXPECT_FALSE(queue.at("spec").as_object().contains("completions"));
  // An update without the generated parts keeps them.
  auto update = json::parse(R"({"metadata":{"name":"pi"},"spec":{"template":{
    "metadata":{"labels":{"app":"pi"}},"spec":{"containers":[]}}}})")
                    .as_object();
  keepJobSelector(update, job);
  EXPECT_EQ(update.at("spec").at("selector"), spec.at("selector"));
  EXPECT_EQ(update.at("spec").at("template").at("metadata").at("labels"),
            spec.at("template").at("metadata").at("labels"));
}

TEST(WorkloadDefaults, CronJobDefaultsOnlyThePodTemplateOfItsJobTemplate) {
  auto cj = json::parse(R"({"spec":{"schedule":"*/5 * * * *","jobTemplate":{"spec":{"template":{
    "spec":{"restartPolicy":"OnFailure","containers":[{"name":"t","image":"busybox"}]}}}}}})")
                .as_object();
  applyDefaults("batch", "cronjobs", cj);
  const auto& spec = cj.at("spec").as_object();
  EXPECT_EQ(spec.at("concurrencyPolicy"), "Allow");
  EXPECT_EQ(spec.at("suspend"), false);
  EXPECT_EQ(spec.at("successfulJobsHistoryLimit"), 3);
  EXPECT_EQ(spec.at("failedJobsHistoryLimit"), 1);
  const auto& jobSpec = spec.at("jobTemplate").at("spec").as_object();
  EXPECT_FALSE(jobSpec.contains("backoffLimit"));
  EXPECT_EQ(jobSpec.at("template").at("spec").at("schedulerName"), "default-scheduler");
}

TEST(WorkloadDefaults, HorizontalPodAutoscalerV2) {
  auto hpa = json::parse(R"({"spec":{"maxReplicas":5,"scaleTargetRef":{"apiVersion":"apps/v1",
    "kind":"Deployment","name":"web"}}})")
                 .as_object();
  applyDefaults("autoscaling", "horizontalpodautoscalers", hpa);
  EXPECT_EQ(hpa.at("spec").at("minReplicas"), 1);
  EXPECT_EQ(hpa.at("spec").at("metrics"), json::parse(R"([{"type":"Resource","resource":{
    "name":"cpu","target":{"type":"Utilization","averageUtilization":80}}}])"));
  EXPECT_FALSE(hpa.at("spec").as_object().contains("behavior"));
  auto withBehavior = json::parse(R"({"spec":{"maxReplicas":5,"behavior":{"scaleDown":{
    "stabilizationWindowSeconds":60}}}})")
                          .as_object();
  applyDefaults("autoscaling", "horizontalpodautoscalers", withBehavior);
  EXPECT_EQ(withBehavior.at("spec").at("behavior"), json::parse(R"({
    "scaleDown":{"stabilizationWindowSeconds":60,"selectPolicy":"Max",
      "policies":[{"type":"Percent","value":100,"periodSeconds":15}]},
    "scaleUp":{"stabilizationWindowSeconds":0,"selectPolicy":"Max",
      "policies":[{"type":"Pods","value":4,"periodSeconds":15},
                  {"type":"Percent","value":100,"periodSeconds":15}]}})"));
}

TEST(WorkloadDefaults, IngressHasAnEmptyLoadBalancerStatus) {
  auto ing = json::parse(R"({"spec":{"rules":[{"host":"a.example"}]}})").as_object();
  applyDefaults("networking.k8s.io", "ingresses", ing);
  EXPECT_EQ(ing.at("status"), json::parse(R"({"loadBalancer":{}})"));
}

}  // namespace
}  // namespace flotilla::sim
