#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace {
namespace json = boost::json;

json::object parse(std::string_view text) { return json::parse(text).as_object(); }
Interpreter service() { return Registry::builtIn().of("v1", "Service"); }

// Read back from a real kube-apiserver (1.3x) after `kubectl apply` (client-side) of a NodePort
// Service whose second port names nodePort 30081: the allocated 31840, the cluster IPs and the IP
// families belong to no manager; 30081 belongs to kubectl-client-side-apply.
constexpr const char* kClientSideApplied = R"({"apiVersion":"v1","kind":"Service",
  "metadata":{"name":"np","namespace":"shop","annotations":{
    "kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"annotations\":{},\"name\":\"np\",\"namespace\":\"shop\"},\"spec\":{\"ports\":[{\"name\":\"a\",\"port\":80,\"targetPort\":8080},{\"name\":\"b\",\"nodePort\":30081,\"port\":81}],\"selector\":{\"app\":\"x\"},\"type\":\"NodePort\"}}\n"},
   "managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","fieldsType":"FieldsV1",
     "fieldsV1":{"f:spec":{"f:externalTrafficPolicy":{},"f:internalTrafficPolicy":{},"f:ports":{".":{},
       "k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}},
       "k:{\"port\":81,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:nodePort":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},
       "f:selector":{},"f:sessionAffinity":{},"f:type":{}}}}]},
  "spec":{"clusterIP":"10.0.0.190","clusterIPs":["10.0.0.190"],"externalTrafficPolicy":"Cluster",
    "internalTrafficPolicy":"Cluster","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
    "ports":[{"name":"a","nodePort":31840,"port":80,"protocol":"TCP","targetPort":8080},
             {"name":"b","nodePort":30081,"port":81,"protocol":"TCP","targetPort":81}],
    "selector":{"app":"x"},"sessionAffinity":"None","type":"NodePort"},
  "status":{"loadBalancer":{}}})";

TEST(ServiceEntry, AllocatedAddressesAndPortsNeverReachAMemberWrittenOnesDo) {
  const json::object want = parse(R"({"apiVersion":"v1","kind":"Service",
    "metadata":{"name":"np","namespace":"shop"},
    "spec":{"externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster",
      "ports":[{"name":"a","port":80,"protocol":"TCP","targetPort":8080},
               {"name":"b","nodePort":30081,"port":81,"protocol":"TCP","targetPort":81}],
      "selector":{"app":"x"},"sessionAffinity":"None","type":"NodePort"}})");
  const json::object got = service().memberTemplate(parse(kClientSideApplied));
  EXPECT_EQ(got, want) << json::serialize(got);
}

TEST(ServiceEntry, EitherManagedFieldsOrLastAppliedTellsWhoWroteANodePort) {
  // managedFields only (server-side apply, or a cache that kept them and no annotation).
  json::object managedOnly = parse(kClientSideApplied);
  managedOnly["metadata"].as_object()["annotations"].as_object().clear();
  auto ports = service().memberTemplate(managedOnly).at("spec").at("ports").as_array();
  EXPECT_FALSE(ports[0].as_object().contains("nodePort"));
  EXPECT_EQ(ports[1].at("nodePort"), 30081);
  // last-applied only (a cache that dropped managedFields).
  json::object appliedOnly = parse(kClientSideApplied);
  appliedOnly["metadata"].as_object().erase("managedFields");
  ports = service().memberTemplate(appliedOnly).at("spec").at("ports").as_array();
  EXPECT_FALSE(ports[0].as_object().contains("nodePort"));
  EXPECT_EQ(ports[1].at("nodePort"), 30081);
  // Neither: every node port is taken as allocated.
  json::object neither = appliedOnly;
  neither["metadata"].as_object().erase("annotations");
  ports = service().memberTemplate(neither).at("spec").at("ports").as_array();
  EXPECT_FALSE(ports[1].as_object().contains("nodePort"));
}

TEST(ServiceEntry, ServerSideAppliedLoadBalancerKeepsOnlyWhatTheApplierOwns) {
  // As read back from kube-apiserver after `kubectl apply --server-side`.
  const json::object lb = parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"lb",
      "managedFields":[{"manager":"kubectl","operation":"Apply","fieldsType":"FieldsV1","fieldsV1":
        {"f:spec":{"f:externalTrafficPolicy":{},"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":
          {".":{},"f:port":{},"f:targetPort":{}}},"f:selector":{},"f:type":{}}}}]},
      "spec":{"allocateLoadBalancerNodePorts":true,"clusterIP":"10.0.0.23","clusterIPs":["10.0.0.23"],
        "externalTrafficPolicy":"Local","healthCheckNodePort":31765,"internalTrafficPolicy":"Cluster",
        "ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack",
        "ports":[{"nodePort":31697,"port":80,"protocol":"TCP","targetPort":8080}],
        "selector":{"app":"x"},"sessionAffinity":"None","type":"LoadBalancer"}})");
  const json::object spec = service().memberTemplate(lb).at("spec").as_object();
  for (const char* gone :
       {"clusterIP", "clusterIPs", "healthCheckNodePort", "ipFamilies", "ipFamilyPolicy"})
    EXPECT_FALSE(spec.contains(gone)) << gone;
  EXPECT_FALSE(spec.at("ports").as_array()[0].as_object().contains("nodePort"));
  EXPECT_EQ(spec.at("externalTrafficPolicy"), "Local");
}

TEST(ServiceEntry, AHeadlessServiceStaysHeadless) {
  const json::object headless = parse(R"({"metadata":{"name":"db"},
      "spec":{"clusterIP":"None","clusterIPs":["None"],"ports":[{"port":5432}]}})");
  const json::object spec = service().memberTemplate(headless).at("spec").as_object();
  EXPECT_EQ(spec.at("clusterIP"), "None");
  EXPECT_EQ(spec.at("clusterIPs"), json::array{"None"});
}

TEST(ServiceEntry, ALoadBalancerIsHealthyWithAnIngressAndTheHostListsEveryMembers) {
  const json::object source = parse(R"({"spec":{"type":"LoadBalancer"}})");
  const json::object a = parse(R"({"spec":{"type":"LoadBalancer"},
      "status":{"loadBalancer":{"ingress":[{"ip":"192.0.2.1"}]}}})");
  const json::object b = parse(R"({"spec":{"type":"LoadBalancer"},
      "status":{"loadBalancer":{"ingress":[{"hostname":"lb.example"},{"ip":"192.0.2.1"}]}}})");
  const json::object waiting =
      parse(R"({"spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{}}})");
  EXPECT_EQ(service().health(&a).health, Health::kHealthy);
  EXPECT_EQ(service().health(&waiting),
            (HealthReport{Health::kProgressing, "waiting for the cluster's load balancer"}));
  EXPECT_EQ(
      *service().aggregateStatus(source,
                                 {{"m1", &a}, {"m2", &b}, {"m3", &waiting}, {"m4", nullptr}}),
      parse(R"({"loadBalancer":{"ingress":[{"ip":"192.0.2.1"},{"hostname":"lb.example"}]}})"));
  EXPECT_EQ(*service().aggregateStatus(source, {{"m3", &waiting}}),
            parse(R"({"loadBalancer":{}})"));
  // Other types have no status of the members' to show.
  const json::object clusterIp = parse(R"({"spec":{"type":"ClusterIP"}})");
  EXPECT_EQ(service().aggregateStatus(clusterIp, {{"m1", &a}}), std::nullopt);
  EXPECT_EQ(service().health(&clusterIp).health, Health::kHealthy);
}

}  // namespace
}  // namespace flotilla::interpreter
