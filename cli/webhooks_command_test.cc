#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/temp_dir.h"
#include "api/yaml.h"
#include "cli/commands.h"

namespace flotilla::cli {
namespace {

struct Output {
  int code;
  std::string out, err;
};

Output run(const Args& args) {
  std::ostringstream out, err;
  int code = runWebhooks(args, out, err);
  return {code, out.str(), err.str()};
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// config/webhook/manifests.yaml is generated: a new kind or path without `make crds` fails here.
TEST(WebhooksCommand, ConfigWebhookManifestsAreCurrent) {
  Output r = run({});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(readFile(std::filesystem::path(FLOTILLA_SOURCE_DIR) / "config/webhook/manifests.yaml"),
            r.out)
      << "config/webhook/manifests.yaml is stale: run `make crds`";
}

TEST(WebhooksCommand, ServiceConfigurationsCoverEveryKindBothWays) {
  Output r = run({});
  auto docs = api::parseManifests(r.out);
  ASSERT_TRUE(docs) << docs.error().message;
  ASSERT_EQ(docs->size(), 2u);
  for (const auto& doc : *docs) {
    const auto& hooks = doc.value.at("webhooks").as_array();
    EXPECT_EQ(hooks.size(), 12u);
    for (const auto& h : hooks) {
      EXPECT_EQ(h.at("sideEffects"), "None");
      EXPECT_EQ(h.at("failurePolicy"), "Fail");
      EXPECT_EQ(h.at("timeoutSeconds"), 5);
      EXPECT_EQ(h.at("admissionReviewVersions").as_array().at(0), "v1");
      const auto& service = h.at("clientConfig").at("service");
      EXPECT_EQ(service.at("name"), "flotilla-webhook-service");
      EXPECT_EQ(service.at("namespace"), "flotilla-system");
      EXPECT_EQ(h.at("clientConfig").as_object().if_contains("caBundle"), nullptr);
    }
  }
  EXPECT_NE(r.out.find("path: /validate-flotilla-io-v1alpha1-propagationpolicy"),
            std::string::npos);
  EXPECT_NE(r.out.find("path: /mutate-flotilla-io-v1alpha1-federatedcluster"), std::string::npos);
}

TEST(WebhooksCommand, UrlModeGeneratesCertificatesOnceAndInjectsTheCa) {
  api::testing::TempDir dir("flotilla-webhooks-cmd");
  const auto certs = dir.path() / "certs";
  Output first = run({"--url", "https://127.0.0.1:9443/", "--cert-dir", certs.string()});
  ASSERT_EQ(first.code, 0) << first.err;
  for (const char* f : {"ca.crt", "tls.crt", "tls.key"})
    EXPECT_TRUE(std::filesystem::exists(certs / f)) << f;
  EXPECT_EQ(std::filesystem::status(certs / "tls.key").permissions() &
                std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  EXPECT_NE(first.out.find("url: https://127.0.0.1:9443/validate-flotilla-io-v1alpha1-"),
            std::string::npos);
  EXPECT_NE(first.out.find("caBundle: "), std::string::npos);
  const std::string key = readFile(certs / "tls.key");
  Output second = run({"--url", "https://127.0.0.1:9443", "--cert-dir", certs.string()});
  EXPECT_EQ(second.out, first.out);  // the same CA: existing certificates are kept
  EXPECT_EQ(readFile(certs / "tls.key"), key);
}

// docs/security.md L5: a symlink planted where the key goes is replaced, never written through.
TEST(WebhooksCommand, APlantedSymlinkIsNotFollowed) {
  api::testing::TempDir dir("flotilla-webhooks-cmd");
  const auto certs = dir.path() / "certs";
  std::filesystem::create_directories(certs);
  const auto victim = dir.path() / "victim";
  std::ofstream(victim) << "someone else's file";
  std::filesystem::create_symlink(victim, certs / "tls.key");  // ca.crt missing: generated
  Output out = run({"--url", "https://127.0.0.1:9443", "--cert-dir", certs.string()});
  ASSERT_EQ(out.code, 0) << out.err;
  EXPECT_EQ(readFile(victim), "someone else's file");
  EXPECT_FALSE(std::filesystem::is_symlink(certs / "tls.key"));
  EXPECT_NE(readFile(certs / "tls.key").find("PRIVATE KEY"), std::string::npos);
  EXPECT_EQ(std::filesystem::status(certs / "tls.key").permissions(),
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

TEST(WebhooksCommand, UsageErrors) {
  EXPECT_EQ(run({"--url", "http://127.0.0.1:1", "--cert-dir", "/tmp/x"}).code, 2);
  EXPECT_EQ(run({"--url", "https://127.0.0.1:1"}).code, 2);
  EXPECT_EQ(run({"--cert-dir", "/tmp/x"}).code, 2);
  EXPECT_EQ(run({"--service", "no-slash"}).code, 2);
  EXPECT_EQ(run({"--bogus"}).code, 2);
  Output help = run({"--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Usage: flotillactl webhooks"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::cli
