#include "kube/integration/test_cluster.h"

#include <cstdlib>
#include <mutex>
#include <random>
#include <stdexcept>

namespace flotilla::kube::testing {

std::string TestCluster::uniqueName(const std::string& prefix) {
  static std::mt19937_64 rng(std::random_device{}());
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  const char* alphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string suffix;
  for (int i = 0; i < 6; ++i) suffix += alphabet[rng() % 27];
  return prefix + "-" + suffix;
}

TestCluster& TestCluster::get() {
  static TestCluster cluster;
  return cluster;
}

TestCluster::TestCluster() {
  if (const char* path = std::getenv("FLOTILLA_TEST_KUBECONFIG"); path && *path) {
    auto config = loadKubeconfig({{path}, ""});
    if (!config) throw std::runtime_error("FLOTILLA_TEST_KUBECONFIG: " + config.error().message);
    config_ = std::move(*config);
    external_ = true;
    return;
  }
  sim_ = std::make_unique<SimProcess>(FLOTILLA_SIM_BINARY);
  config_ = sim_->config();
}

TestCluster::~TestCluster() = default;

}  // namespace flotilla::kube::testing
