#include "operator/options.h"

#include <gtest/gtest.h>

#include <map>

namespace flotilla::op {
namespace {

using namespace std::chrono_literals;

struct Files {
  std::map<std::string, std::string> files;
  FileReader reader() {
    return [this](const std::string& path) -> api::Result<std::string> {
      auto it = files.find(path);
      if (it == files.end())
        return api::Error{api::reason::kNotFound, 0, "cannot read " + path, {}};
      return api::okString(it->second);
    };
  }
};

TEST(Options, Defaults) {
  Files f;
  auto o = parseOptions({}, f.reader());
  ASSERT_TRUE(o) << o.error();
  EXPECT_TRUE(o->leaderElect);
  EXPECT_EQ(o->leaderElectionNamespace, "flotilla-system");
  EXPECT_EQ(o->leaderElectionId, "flotilla-operator");
  EXPECT_EQ(o->clusterProbePeriod, 10s);
  EXPECT_EQ(o->clusterFailoverGrace, 60s);
  EXPECT_EQ(o->health.port, 8081);
  EXPECT_EQ(o->metrics.port, 8080);
  EXPECT_EQ(o->metrics.host, "127.0.0.1");  // unauthenticated: loopback unless asked
  EXPECT_TRUE(o->enableWebhooks);
  EXPECT_EQ(o->webhookPort, 9443);
  EXPECT_EQ(o->webhookHost, "0.0.0.0");
  EXPECT_EQ(o->certDir, "/tmp/k8s-webhook-server/serving-certs");
}

TEST(Options, WebhookFlags) {
  Files f;
  auto o = parseOptions({"--webhook-port", "0", "--cert-dir=/certs", "--webhook-host", "127.0.0.1",
                         "--enable-webhooks=false"},
                        f.reader());
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->webhookPort, 0);
  EXPECT_EQ(o->certDir, "/certs");
  EXPECT_EQ(o->webhookHost, "127.0.0.1");
  EXPECT_FALSE(o->enableWebhooks);
}

TEST(Options, FlagsInBothFormsAndBareBooleans) {
  Files f;
  auto o =
      parseOptions({"--kubeconfig", "/k", "--context=c", "--leader-elect=false",
                    "--cluster-probe-period", "1s", "--cluster-probe-threshold=2", "--workers", "4",
                    "--kube-api-qps", "1000", "--kube-api-burst=2000", "--log-format=json",
                    "--health-probe-bind-address", "127.0.0.1:0", "--metrics-bind-address=0"},
                   f.reader());
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->kubeconfig, "/k");
  EXPECT_EQ(o->context, "c");
  EXPECT_FALSE(o->leaderElect);
  EXPECT_EQ(o->clusterProbePeriod, 1s);
  EXPECT_EQ(o->clusterProbeThreshold, 2);
  EXPECT_EQ(o->workers, 4);
  EXPECT_EQ(o->kubeApiQps, 1000);
  EXPECT_EQ(o->kubeApiBurst, 2000);
  EXPECT_EQ(o->logFormat, "json");
  EXPECT_EQ(o->health.host, "127.0.0.1");
  EXPECT_EQ(o->health.port, 0);
  EXPECT_TRUE(o->metrics.disabled);
  auto bare = parseOptions({"--leader-elect", "--workers", "1"}, f.reader());
  ASSERT_TRUE(bare) << bare.error();
  EXPECT_TRUE(bare->leaderElect);
}

TEST(Options, ConfigFileAppliesFirstAndFlagsWin) {
  Files f;
  f.files["/c.yaml"] = "cluster-probe-period: 5s\nleader-elect: false\nworkers: 3\n";
  auto o = parseOptions({"--workers", "7", "--config", "/c.yaml"}, f.reader());
  ASSERT_TRUE(o) << o.error();
  EXPECT_EQ(o->clusterProbePeriod, 5s);
  EXPECT_FALSE(o->leaderElect);
  EXPECT_EQ(o->workers, 7);
  EXPECT_EQ(o->configFile, "/c.yaml");
}

TEST(Options, ErrorsNameTheFlag) {
  Files f;
  f.files["/bad.yaml"] = "cluster-probe-perod: 5s\n";
  f.files["/badvalue.yaml"] = "cluster-probe-period: soon\n";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--nope"}, "unknown flag --nope"},
      {{"--workers"}, "--workers needs a value"},
      {{"--workers", "0"}, "--workers: expected a positive integer"},
      {{"--cluster-probe-period", "ten"}, "--cluster-probe-period:"},
      {{"--cluster-probe-period", "-1s"}, "--cluster-probe-period:"},
      {{"--log-format", "xml"}, "--log-format: expected text or json"},
      {{"--leader-elect=maybe"}, "--leader-elect: expected true or false"},
      {{"--metrics-bind-address", "8080"}, "--metrics-bind-address: expected [HOST]:PORT"},
      {{"--health-probe-bind-address", ":99999"}, "--health-probe-bind-address: port"},
      {{"--config", "/missing.yaml"}, "--config /missing.yaml: cannot read"},
      {{"--config", "/bad.yaml"}, "unknown key \"cluster-probe-perod\""},
      {{"--config", "/badvalue.yaml"}, "cluster-probe-period:"},
      {{"stray"}, "unexpected argument \"stray\""},
      {{"--webhook-port", "70000"}, "--webhook-port: expected a port number"},
      {{"--webhook-port", "x"}, "--webhook-port: expected a port number"},
      {{"--leader-election-renew-deadline", "20s"}, "lease-duration must be greater"},
      {{"--leader-election-retry-period", "10s"}, "renew-deadline must be greater"},
  };
  for (const auto& [args, message] : cases) {
    auto o = parseOptions(args, f.reader());
    ASSERT_FALSE(o) << args.front();
    EXPECT_NE(o.error().message.find(message), std::string::npos)
        << o.error().message << " vs " << message;
  }
}

TEST(Options, Help) {
  Files f;
  auto o = parseOptions({"--workers", "2", "-h"}, f.reader());
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->help);
  for (const char* flag :
       {"--kubeconfig", "--context", "--config", "--leader-elect", "--leader-election-namespace",
        "--metrics-bind-address", "--health-probe-bind-address", "--cluster-probe-period",
        "--cluster-failover-grace", "--workers", "--log-format", "--log-level"}) {
    EXPECT_NE(std::string(kHelp).find(flag), std::string::npos) << flag;
  }
}

}  // namespace
}  // namespace flotilla::op
