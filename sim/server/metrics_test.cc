#include "sim/server/metrics.h"

#include <gtest/gtest.h>

namespace flotilla::sim {
namespace {

TEST(RequestMetrics, VerbsAndScopesAsKubeApiserverReportsThem) {
  EXPECT_EQ(reportedVerb("GET", true, false, ""), "GET");
  EXPECT_EQ(reportedVerb("GET", false, false, ""), "LIST");
  EXPECT_EQ(reportedVerb("GET", false, true, ""), "WATCH");
  EXPECT_EQ(reportedVerb("POST", false, false, "application/json"), "POST");
  EXPECT_EQ(reportedVerb("PUT", true, false, "application/json"), "PUT");
  EXPECT_EQ(reportedVerb("PATCH", true, false, "application/merge-patch+json"), "PATCH");
  EXPECT_EQ(reportedVerb("PATCH", true, false, "application/apply-patch+yaml"), "APPLY");
  EXPECT_EQ(reportedVerb("PATCH", true, false, "application/apply-patch+yaml; charset=utf-8"),
            "APPLY");
  EXPECT_EQ(reportedVerb("DELETE", false, false, ""), "DELETE");  // deletecollection too
  EXPECT_EQ(reportedScope("POST", false, true), "resource");
  EXPECT_EQ(reportedScope("GET", true, true), "resource");
  EXPECT_EQ(reportedScope("LIST", false, true), "namespace");
  EXPECT_EQ(reportedScope("LIST", false, false), "cluster");
}

TEST(RequestMetrics, CountsAndExposition) {
  RequestMetrics metrics;
  RequestLabels create{"POST", "", "apps", "v1", "deployments", "", "resource", "apiserver", 201};
  RequestLabels list{"LIST", "", "", "v1", "pods", "", "namespace", "apiserver", 200};
  metrics.record(create);
  metrics.record(create);
  metrics.record(list);
  EXPECT_EQ(metrics.count(create), 2u);
  EXPECT_EQ(metrics.count(list), 1u);
  RequestLabels other = create;
  other.code = 409;
  EXPECT_EQ(metrics.count(other), 0u);
  EXPECT_EQ(metrics.exposition(),
            "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for "
            "each verb, dry run value, group, version, resource, scope, component, and HTTP "
            "response code.\n"
            "# TYPE apiserver_request_total counter\n"
            "apiserver_request_total{code=\"200\",component=\"apiserver\",dry_run=\"\",group=\"\","
            "resource=\"pods\",scope=\"namespace\",subresource=\"\",verb=\"LIST\",version=\"v1\"} "
            "1\n"
            "apiserver_request_total{code=\"201\",component=\"apiserver\",dry_run=\"\",group="
            "\"apps\",resource=\"deployments\",scope=\"resource\",subresource=\"\",verb=\"POST\","
            "version=\"v1\"} 2\n");
}

TEST(RequestMetrics, DurationHistogramAsKubeApiserverExposesIt) {
  RequestMetrics metrics;
  RequestLabels put{"PUT", "", "apps", "v1", "deployments", "status", "resource", "apiserver", 200};
  metrics.observe(put, 0.003);
  put.code = 409;  // not a label of the histogram: the same series
  metrics.observe(put, 0.07);
  metrics.observe(put, 100);  // past the last bucket: only +Inf
  const std::string text = metrics.exposition();
  const std::string series =
      "component=\"apiserver\",dry_run=\"\",group=\"apps\",resource=\"deployments\",scope="
      "\"resource\",subresource=\"status\",verb=\"PUT\",version=\"v1\"";
  EXPECT_NE(text.find("# TYPE apiserver_request_duration_seconds histogram\n"), std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_bucket{" + series + ",le=\"0.005\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_bucket{" + series + ",le=\"0.05\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_bucket{" + series + ",le=\"0.1\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_bucket{" + series + ",le=\"60\"} 2\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_bucket{" + series + ",le=\"+Inf\"} 3\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_sum{" + series + "} 100.073\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_request_duration_seconds_count{" + series + "} 3\n"),
            std::string::npos);
}

}  // namespace
}  // namespace flotilla::sim
