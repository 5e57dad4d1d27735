// flotilla-sim: Flotilla's embedded Kubernetes-compatible control plane (docs/sim.md).
#include <cstring>
#include <iostream>

#include "sim/serve.h"

namespace {

constexpr const char* kHelp =
    "flotilla-sim - a Kubernetes-compatible API server for Flotilla's development, demos and e2e\n"
    "\n"
    "Usage:\n"
    "  flotilla-sim serve --dir DIR [--name NAME] [--port N] [--address IP] [--threads N]\n"
    "                     [--bookmark-interval-ms N]\n"
    "\n"
    "serve runs one cluster's API server over HTTPS (bearer token auth) with durable storage in\n"
    "DIR/data/NAME. It writes DIR/NAME.kubeconfig (mode 0600) for kubectl and the operator. The CA\n"
    "and token are generated once and kept in DIR, so a restart keeps kubeconfigs valid; the port\n"
    "of the previous run is reused when free. Stop it with SIGTERM or Ctrl-C.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help") ||
      !std::strcmp(argv[1], "help")) {
    (argc < 2 ? std::cerr : std::cout) << kHelp;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command != "serve") {
    std::cerr << "flotilla-sim: unknown command \"" << command << "\"\n\n" << kHelp;
    return 2;
  }
  flotilla::sim::ServeOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::cerr << "flotilla-sim: " << flag << " needs a value\n";
        std::exit(2);
      }
      return argv[++i];
    };
    auto number = [&](const std::string& text) {
      try {
        size_t used = 0;
        const int n = std::stoi(text, &used);
        if (used != text.size() || n < 0) throw std::invalid_argument(text);
        return n;
      } catch (const std::exception&) {
        std::cerr << "flotilla-sim: " << flag << ": not a number: " << text << "\n";
        std::exit(2);
      }
    };
    if (flag == "--dir") {
      options.dir = value();
    } else if (flag == "--name") {
      options.name = value();
    } else if (flag == "--port") {
      options.port = number(value());
    } else if (flag == "--address") {
      options.address = value();
    } else if (flag == "--threads") {
      options.threads = std::max(1, number(value()));
    } else if (flag == "--bookmark-interval-ms") {
      options.bookmarkInterval = std::chrono::milliseconds(number(value()));
    } else if (flag == "-h" || flag == "--help") {
      std::cout << kHelp;
      return 0;
    } else {
      std::cerr << "flotilla-sim: unknown flag " << flag << "\n";
      return 2;
    }
  }
  if (options.dir.empty()) {
    std::cerr << "flotilla-sim: --dir is required\n";
    return 2;
  }
  return flotilla::sim::serve(options, std::cerr);
}
