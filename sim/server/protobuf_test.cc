#include "sim/server/protobuf.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::sim {
namespace {

// Minimal protobuf encoding for building test bodies.
std::string varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
  return out;
}
std::string bytesField(int number, const std::string& value) {
  return varint(static_cast<uint64_t>(number) << 3 | 2) + varint(value.size()) + value;
}
std::string intField(int number, uint64_t value) {
  return varint(static_cast<uint64_t>(number) << 3) + varint(value);
}
std::string entry(const std::string& k, const std::string& v) {
  return bytesField(1, k) + bytesField(2, v);
}
std::string envelope(const std::string& apiVersion, const std::string& kind,
                     const std::string& raw) {
  return std::string("k8s\0", 4) + bytesField(1, bytesField(1, apiVersion) + bytesField(2, kind)) +
         bytesField(2, raw) + bytesField(3, "") + bytesField(4, "");
}

TEST(Protobuf, ConfigMapWithMetadataAsKubectlSendsIt) {
  // ObjectMeta as gogo-protobuf writes it: empty strings and a zero Time are present.
  const std::string meta = bytesField(1, "settings") + bytesField(2, "") + bytesField(3, "team") +
                           bytesField(4, "") + bytesField(5, "") + bytesField(6, "") +
                           intField(7, 0) + bytesField(8, "") + bytesField(11, entry("app", "web"));
  const std::string raw = bytesField(1, meta) + bytesField(2, entry("mode", "fast")) +
                          bytesField(2, entry("size", "3")) +
                          bytesField(3, entry("blob", "\x01\x02"));
  auto object = decodeKubernetesProtobuf(envelope("v1", "ConfigMap", raw));
  ASSERT_TRUE(object) << object.error().message;
  EXPECT_EQ(
      boost::json::serialize(*object),
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"team",)"
      R"("labels":{"app":"web"}},"data":{"mode":"fast","size":"3"},"binaryData":{"blob":"AQI="}})");
}

TEST(Protobuf, DeploymentKeepsPointerZerosAndQuantities) {
  const std::string container = bytesField(1, "web") + bytesField(2, "nginx") +
                                bytesField(8, bytesField(2, entry("cpu", bytesField(1, "500m"))));
  const std::string spec =
      intField(1, 0) /* replicas: 0 explicitly */ +
      bytesField(2, bytesField(1, entry("app", "web"))) +
      bytesField(3, bytesField(1, "") + bytesField(2, bytesField(2, container)));
  auto object = decodeKubernetesProtobuf(
      envelope("apps/v1", "Deployment", bytesField(1, bytesField(1, "web")) + bytesField(2, spec)));
  ASSERT_TRUE(object) << object.error().message;
  EXPECT_EQ(object->at("spec").at("replicas"), 0);
  EXPECT_EQ(object->at("spec")
                .at("template")
                .at("spec")
                .at("containers")
                .at(0)
                .at("resources")
                .at("requests")
                .at("cpu"),
            "500m");
}

// kubectl v1.32's bodies for `kubectl create token sa1 -n x --duration=20m --audience=aa` and
// `kubectl create role r1 -n x --verb=get,list --resource=pods,deployments.apps/status
// --resource-name=a` (from kubectl -v=8).
namespace json = boost::json;

std::string fromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out += static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16));
  return out;
}

TEST(Protobuf, TokenRequestAndRoleAsKubectlSendsThem) {
  auto token = decodeKubernetesProtobuf(
      fromHex("6b3873000a280a1861757468656e7469636174696f6e2e6b38732e696f2f7631120c546f6b656e52"
              "65717565737412210a100a0012001a0022002a0032003800420012070a0261612"
              "0b0091a040a"
              "0012001a002200"));
  ASSERT_TRUE(token) << token.error().message;
  EXPECT_EQ(json::value(*token), json::parse(R"({"apiVersion":"authentication.k8s.io/v1",
      "kind":"TokenRequest","metadata":{},"spec":{"audiences":["aa"],"expirationSeconds":1200}})"));
  auto role = decodeKubernetesProtobuf(fromHex(
      "6b3873000a240a1c726261632e617574686f72697a6174696f6e2e6b38732e696f2f76311204526f6c6512"
      "570a130a02723112001a017822002a0032003800420012160a036765740a046c69737412001a04706f"
      "647322016112280a036765740a046c6973741204617070731a126465706c6f796d656e74732f737461"
      "7475732201611a002200"));
  ASSERT_TRUE(role) << role.error().message;
  EXPECT_EQ(json::value(*role), json::parse(R"({"apiVersion":"rbac.authorization.k8s.io/v1",
      "kind":"Role","metadata":{"name":"r1","namespace":"x"},"rules":[
        {"verbs":["get","list"],"apiGroups":[""],"resources":["pods"],"resourceNames":["a"]},
        {"verbs":["get","list"],"apiGroups":["apps"],"resources":["deployments/status"],
         "resourceNames":["a"]}]})"));
}

TEST(Protobuf, ErrorsAreSpecific) {
  auto notEnvelope = decodeKubernetesProtobuf("{\"kind\":\"ConfigMap\"}");
  ASSERT_FALSE(notEnvelope);
  EXPECT_EQ(notEnvelope.error().code, 400);
  auto service = decodeKubernetesProtobuf(envelope("v1", "Service", ""));
  ASSERT_FALSE(service);
  EXPECT_EQ(service.error().code, 415);
  EXPECT_NE(service.error().message.find("send JSON or YAML"), std::string::npos);
  std::string truncated = envelope("v1", "ConfigMap", bytesField(1, bytesField(1, "x")));
  truncated.resize(truncated.size() - 5);
  EXPECT_FALSE(decodeKubernetesProtobuf(truncated));
  auto wrongWire = decodeKubernetesProtobuf(envelope("v1", "ConfigMap", intField(1, 7)));
  ASSERT_FALSE(wrongWire);
  EXPECT_NE(wrongWire.error().message.find("ConfigMap.metadata has wire type 0"),
            std::string::npos);
}

}  // namespace
}  // namespace flotilla::sim
