#include "kube/net/endpoint.h"

#include <gtest/gtest.h>

namespace flotilla::net {
namespace {

TEST(Endpoint, ParsesSchemesPortsAndPrefixes) {
  auto e = parseEndpoint("https://10.0.0.1:6443/k8s/clusters/c1/");
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_TRUE(e->tls);
  EXPECT_EQ(e->host, "10.0.0.1");
  EXPECT_EQ(e->port, 6443);
  EXPECT_EQ(e->basePath, "/k8s/clusters/c1");
  EXPECT_TRUE(e->hostIsIpAddress());
  EXPECT_FALSE(e->isLoopback());

  auto d = parseEndpoint("http://localhost");
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->tls);
  EXPECT_EQ(d->port, 80);
  EXPECT_EQ(d->basePath, "");
  EXPECT_TRUE(d->isLoopback());
  EXPECT_EQ(d->str(), "http://localhost:80");

  auto v6 = parseEndpoint("https://[::1]:8443");
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->host, "::1");
  EXPECT_TRUE(v6->isLoopback());
  EXPECT_EQ(v6->hostHeader(), "[::1]:8443");
  EXPECT_EQ(parseEndpoint("https://example.com")->port, 443);
}

TEST(Endpoint, RejectsWhatAClientCannotUse) {
  for (const char* bad :
       {"ftp://host", "https://user:pw@host", "https://host?x=1", "https://host#frag",
        "https://host:0", "https://host:70000", "not a url", "https://"}) {
    auto e = parseEndpoint(bad);
    ASSERT_FALSE(e) << bad;
    EXPECT_NE(e.error().message.find("invalid server URL"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace flotilla::net
