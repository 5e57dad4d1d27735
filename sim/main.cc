// flotilla-sim: Flotilla's embedded Kubernetes-compatible control plane (docs/sim.md).
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/fleet.h"
#include "sim/serve.h"

namespace {

constexpr const char* kHelp =
    "flotilla-sim - a Kubernetes-compatible API server for Flotilla's development, demos and e2e\n"
    "\n"
    "Usage:\n"
    "  flotilla-sim up -f TOPOLOGY.yaml --dir DIR [--authorization-mode M] [--token-auth-file F]\n"
    "                                  [--faults FILE]\n"
    "                                                start a host and member clusters\n"
    "  flotilla-sim down --dir DIR                   stop them\n"
    "  flotilla-sim status --dir DIR                 one line per cluster `up` started in DIR;\n"
    "                                                exit 0 all ready, 3 one is not, 1 no fleet\n"
    "  flotilla-sim serve --dir DIR [--name NAME] [--port N] [--address IP] [--threads N]\n"
    "                     [--bookmark-interval-ms N] [--member [--ready-delay-ms N]]\n"
    "                     [--authorization-mode RBAC|AlwaysAllow] [--token-auth-file FILE]\n"
    "                     [--faults FILE] [--version v1.N.P] [--job-run-time-ms N]\n"
    "                     [--cronjob-minute-ms N]\n"
    "\n"
    "--member adds what a member cluster does: Deployments get ReplicaSets and Pods, a binder\n"
    "places pods on Nodes by their requests (the rest stay Pending, Unschedulable), bound pods\n"
    "become Running and Ready after --ready-delay-ms (default 1000), statuses follow.\n"
    "StatefulSets, DaemonSets, Jobs, CronJobs and HorizontalPodAutoscalers run too: a Job's pod\n"
    "succeeds after --job-run-time-ms (default 3000; annotation sim.flotilla.io/run-seconds), one\n"
    "CronJob schedule minute lasts --cronjob-minute-ms (default 60000). --version v1.26.3 makes\n"
    "the cluster claim that Kubernetes version (/version; feature gates of that version, such as\n"
    "StatefulSet spec.ordinals from v1.27). up passes --job-run-time-ms and --cronjob-minute-ms\n"
    "to every cluster; a member's version comes from the topology (version: v1.26.3).\n"
    "\n"
    "up starts each cluster of the topology (config/samples/sim/topology.yaml) as its own serve\n"
    "process, installs the flotilla.io CRDs on the host and registers every member there (a "
    "Secret\n"
    "with its token and CA in flotilla-system, and a FederatedCluster); members get Node objects.\n"
    "\n"
    "serve runs one cluster's API server over HTTPS (bearer token auth) with durable storage in\n"
    "DIR/data/NAME. It writes DIR/NAME.kubeconfig (mode 0600) for kubectl and the operator. The "
    "CA\n"
    "and token are generated once and kept in DIR, so a restart keeps kubeconfigs valid; the port\n"
    "of the previous run is reused when free. Stop it with SIGTERM or Ctrl-C.\n"
    "\n"
    "Authentication and authorization, as kube-apiserver's:\n"
    "  The token in DIR/NAME.kubeconfig is the admin (group system:masters: always allowed).\n"
    "  --token-auth-file FILE  more users: CSV lines token,user,uid,\"group1,group2\"\n"
    "  ServiceAccount tokens come from the TokenRequest API (kubectl create token SA -n NS\n"
    "  [--duration 1h]); they are signed with DIR/pki/NAME/sa.key (kept across restarts) and\n"
    "  stop working when the ServiceAccount is deleted.\n"
    "  --authorization-mode RBAC (default): Roles, ClusterRoles and their bindings decide, with\n"
    "  kube-apiserver's bootstrap policy (cluster-admin, admin, edit, view, system:discovery,\n"
    "  ...); AlwaysAllow: every authenticated request is allowed. up passes both to each\n"
    "  cluster.\n"
    "\n"
    "Fault injection (off by default; docs/sim.md): --faults FILE reads rules from a JSON file,\n"
    "and an admin changes them at run time with GET/PUT/DELETE /flotilla-sim/faults:\n"
    "  {\"seed\": 7, \"rules\": [{\"verbs\": [\"create\", \"update\"], \"resources\": [\"*\"],\n"
    "    \"userAgents\": [\"flotilla-operator/\"], \"error\": 0.02, \"throttle\": 0.02,\n"
    "    \"retryAfterSeconds\": 1, \"conflict\": 0.02, \"delay\": 0.01, \"delayMs\": 40000,\n"
    "    \"dropAfterCommit\": 0.02, \"watchGone\": 0.1, \"watchCut\": 0.01}]}\n"
    "  error 500, throttle 429 + Retry-After, conflict 409: the request is not served; delay:\n"
    "  held, then served; dropAfterCommit: served, then the connection closes unanswered;\n"
    "  watchGone: a watch resuming from a resourceVersion gets 410; watchCut: per event, the\n"
    "  stream is cut. One seeded generator decides: same seed and request order, same faults.\n"
    "  up passes --faults to every cluster.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help") ||
      !std::strcmp(argv[1], "help")) {
    (argc < 2 ? std::cerr : std::cout) << kHelp;
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  if (command == "up" || command == "down" || command == "status") {
    std::string dir;
    std::string file;
    std::vector<std::string> serveArgs;
    for (int i = 2; i < argc; ++i) {
      std::string flag = argv[i];
      if (flag == "--help" || flag == "-h") {
        std::cout << kHelp;
        return 0;
      }
      std::string inlineValue;
      if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
        inlineValue = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
      }
      if ((flag == "--dir" || flag == "-f") && i + 1 < argc) {
        (flag == "--dir" ? dir : file) = argv[++i];
      } else if ((flag == "--authorization-mode" || flag == "--token-auth-file" ||
                  flag == "--faults" || flag == "--job-run-time-ms" ||
                  flag == "--cronjob-minute-ms") &&
                 (!inlineValue.empty() || i + 1 < argc)) {
        std::string value = inlineValue.empty() ? argv[++i] : inlineValue;
        if (flag == "--token-auth-file" || flag == "--faults")
          value = std::filesystem::absolute(value).string();
        serveArgs.push_back(flag);
        serveArgs.push_back(value);
      } else {
        std::cerr << "flotilla-sim " << command << ": unknown flag " << flag << "\n";
        return 2;
      }
    }
    if (dir.empty() || (command == "up" && file.empty())) {
      std::cerr << "flotilla-sim " << command << ": --dir"
                << (command == "up" ? " and -f are" : " is") << " required\n";
      return 2;
    }
    if (command == "down") return flotilla::sim::down(dir, std::cout);
    if (command == "status") return flotilla::sim::status(dir, std::cout);
    std::ifstream in(file);
    if (!in) {
      std::cerr << "flotilla-sim up: cannot read " << file << "\n";
      return 1;
    }
    std::stringstream text;
    text << in.rdbuf();
    auto topology = flotilla::sim::parseTopology(text.str());
    if (!topology) {
      std::cerr << "flotilla-sim up: " << topology.error().message << "\n";
      return 1;
    }
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    return flotilla::sim::up(*topology, std::filesystem::absolute(dir),
                             ec ? argv[0] : self.string(), std::cout, std::cerr, serveArgs);
  }
  if (command != "serve") {
    std::cerr << "flotilla-sim: unknown command \"" << command << "\"\n\n" << kHelp;
    return 2;
  }
  flotilla::sim::ServeOptions options;
  for (int i = 2; i < argc; ++i) {
    std::string flag = argv[i];
    std::string inlineValue;  // --flag=value
    if (const auto eq = flag.find('='); flag.rfind("--", 0) == 0 && eq != std::string::npos) {
      inlineValue = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    auto value = [&]() -> std::string {
      if (!inlineValue.empty()) return inlineValue;
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
    } else if (flag == "--member") {
      options.member = true;
    } else if (flag == "--ready-delay-ms") {
      options.readyDelay = std::chrono::milliseconds(number(value()));
    } else if (flag == "--job-run-time-ms") {
      options.jobRunTime = std::chrono::milliseconds(number(value()));
    } else if (flag == "--cronjob-minute-ms") {
      options.cronJobMinute = std::chrono::milliseconds(std::max(1, number(value())));
    } else if (flag == "--version") {
      options.gitVersion = value();
      if (options.gitVersion.rfind("v1.", 0) != 0) {
        std::cerr << "flotilla-sim: --version: not a Kubernetes version like v1.26.3: "
                  << options.gitVersion << "\n";
        return 2;
      }
    } else if (flag == "--authorization-mode") {
      options.authorizationMode = value();
    } else if (flag == "--token-auth-file") {
      options.tokenAuthFile = value();
    } else if (flag == "--faults") {
      options.faultsFile = value();
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
