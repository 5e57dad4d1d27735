// The API server integration tests run against: the cluster named by FLOTILLA_TEST_KUBECONFIG
// (its current context) when set, so the same suite proves compatibility with a real
// kube-apiserver; otherwise a flotilla-sim process started for the test run. Tests create and
// remove their own namespaces, CRDs and Leases; nothing else in the cluster is touched.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kube/client/rest_client.h"
#include "kube/config/rest_config.h"
#include "kube/net/test_server.h"
#include "kube/testing/sim_process.h"

namespace flotilla::kube::testing {

class TestCluster {
 public:
  // Started on first use, stopped at process exit.
  static TestCluster& get();
  ~TestCluster();

  const RestConfig& config() const { return config_; }
  bool external() const { return external_; }
  // A fresh name ("flotilla-it-<random>") for a namespace, group or lease.
  static std::string uniqueName(const std::string& prefix = "flotilla-it");

 private:
  TestCluster();
  RestConfig config_;
  bool external_ = false;
  std::unique_ptr<SimProcess> sim_;
};

// A test with a REST client on its own I/O thread and a fresh namespace, removed afterwards.
class NamespacedTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  net::testing::IoThread io;
  std::unique_ptr<RestClient> client;
  std::string ns = TestCluster::uniqueName();
};

}  // namespace flotilla::kube::testing
