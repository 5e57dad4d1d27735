#include "kube/testing/sim_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace flotilla::kube::testing {
namespace fs = std::filesystem;

SimProcess::SimProcess(const std::string& binary, SimProcessOptions options) {
  std::random_device rd;
  dir_ =
      fs::temp_directory_path() / ("flotilla-sim-" + std::to_string(rd()) + std::to_string(rd()));
  fs::create_directories(dir_);
  const std::string dir = dir_.string();
  const std::string log = (dir_ / "sim.log").string();
  std::vector<std::string> args = {binary,   "serve",      "--dir",  dir,
                                   "--name", options.name, "--port", "0"};
  if (options.member) args.push_back("--member");
  if (!options.faultsJson.empty()) {
    const auto faults = dir_ / "faults.json";
    std::ofstream(faults) << options.faultsJson;
    args.push_back("--faults");
    args.push_back(faults.string());
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    // A test that crashes takes its API server with it (no orphan left serving).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  // The kubeconfig is written once the server listens.
  const auto kubeconfig = dir_ / (options.name + ".kubeconfig");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    std::error_code ec;
    if (fs::exists(kubeconfig, ec)) {
      if (auto config = loadKubeconfig({{kubeconfig}, ""}); config) {
        config_ = std::move(*config);
        return;
      }
    }
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("flotilla-sim exited at start; see " + log);
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("flotilla-sim did not start within 30 s; see " + log);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

SimProcess::~SimProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  std::error_code ec;
  fs::remove_all(dir_, ec);
}

}  // namespace flotilla::kube::testing
