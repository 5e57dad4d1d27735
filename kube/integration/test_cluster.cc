#include "kube/integration/test_cluster.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <thread>

namespace flotilla::kube::testing {
namespace fs = std::filesystem;

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
  dir_ = fs::temp_directory_path() / uniqueName("flotilla-it-sim");
  fs::create_directories(dir_);
  const std::string dir = dir_.string();
  const std::string log = (dir_ / "sim.log").string();
  simPid_ = ::fork();
  if (simPid_ < 0) throw std::runtime_error("fork failed");
  if (simPid_ == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execl(FLOTILLA_SIM_BINARY, FLOTILLA_SIM_BINARY, "serve", "--dir", dir.c_str(), "--name",
            "host", "--port", "0", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // The kubeconfig is written once the server listens.
  const auto kubeconfig = dir_ / "host.kubeconfig";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    std::error_code ec;
    if (fs::exists(kubeconfig, ec)) {
      if (auto config = loadKubeconfig({{kubeconfig}, ""}); config) {
        config_ = std::move(*config);
        break;
      }
    }
    int status = 0;
    if (::waitpid(simPid_, &status, WNOHANG) == simPid_)
      throw std::runtime_error("flotilla-sim exited at start; see " + log);
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("flotilla-sim did not start within 30 s; see " + log);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

TestCluster::~TestCluster() {
  if (simPid_ > 0) {
    ::kill(simPid_, SIGTERM);
    int status = 0;
    ::waitpid(simPid_, &status, 0);
  }
  if (!dir_.empty()) {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
}

}  // namespace flotilla::kube::testing
