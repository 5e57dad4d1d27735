#include "kube/integration/test_cluster.h"

#include <boost/json.hpp>
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

void NamespacedTest::SetUp() {
  client = RestClient::create(io.io().get_executor(), TestCluster::get().config()).value();
  const ResourceId namespaces{"", "v1", "namespaces", false, "Namespace"};
  boost::json::object namespaceObject{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", boost::json::object{{"name", ns}}}};
  auto created = io.run(client->create(namespaces, "", namespaceObject, {}));
  ASSERT_TRUE(created) << created.error();
}

void NamespacedTest::TearDown() {
  const ResourceId namespaces{"", "v1", "namespaces", false, "Namespace"};
  DeleteOptions background;
  background.propagationPolicy = "Background";
  (void)io.run(client->remove(namespaces, "", ns, background));
}

}  // namespace flotilla::kube::testing
