// `flotillactl join` / `unjoin`: flags, the two kubeconfigs, then join() / unjoin() (cli/join.h).
#include <chrono>
#include <iostream>
#include <thread>

#include "api/names.h"
#include "cli/commands.h"
#include "cli/join.h"
#include "cli/sync_client.h"

namespace flotilla::cli {

namespace {

constexpr const char* kJoinUsage =
    "Usage: flotillactl join NAME --cluster-kubeconfig FILE [flags]\n"
    "\n"
    "Registers a member cluster with the Flotilla host in one command (docs/cli.md):\n"
    "  on the member: namespace flotilla-system (when missing), ServiceAccount, ClusterRole and\n"
    "    ClusterRoleBinding flotilla-member (least privilege: docs/install.md), and the\n"
    "    long-lived token Secret flotilla-member-token;\n"
    "  on the host: Secret NAME-credentials (token, caBundle) in flotilla-system and the\n"
    "    FederatedCluster NAME. Run again, it changes nothing (idempotent).\n"
    "Nothing is written before both clusters answered, the name was found free (or this\n"
    "cluster's) and both kubeconfigs were found to hold the permissions join needs.\n"
    "\n"
    "  --cluster-kubeconfig FILE  the member's kubeconfig (needs to create RBAC objects)\n"
    "  --cluster-context NAME     its context (default: current-context)\n"
    "  --cluster-endpoint URL     the apiEndpoint the operator uses (default: the member\n"
    "                             kubeconfig's server; set it when the operator reaches the\n"
    "                             member by another address)\n"
    "  --cluster-provider P, --cluster-region R, --cluster-zone Z   the FederatedCluster's\n"
    "  --labels K=V[,K=V...]      the FederatedCluster's labels (policies select clusters by "
    "them)\n"
    "  --kubeconfig FILE          the host's kubeconfig (default: $KUBECONFIG, ~/.kube/config)\n"
    "  --context NAME             its context\n"
    "  --wait SECONDS             for the member's token (default 60)\n";

constexpr const char* kUnjoinUsage =
    "Usage: flotillactl unjoin NAME [--cluster-kubeconfig FILE] [flags]\n"
    "\n"
    "Deletes the FederatedCluster NAME and waits until it is gone (the operator's finalizer\n"
    "removes the workloads Flotilla put on the member), then the Secret join wrote on the host,\n"
    "and, with --cluster-kubeconfig, the member-side objects join created. Refuses when that\n"
    "kubeconfig reaches another cluster than the one registered.\n"
    "\n"
    "  --cluster-kubeconfig FILE, --cluster-context NAME   the member\n"
    "  --kubeconfig FILE, --context NAME                   the host\n"
    "  --wait SECONDS             for the FederatedCluster to go (default 60)\n";

struct Parsed {
  JoinOptions options;
  std::string memberKubeconfig, memberContext, hostKubeconfig, hostContext;
  int waitSeconds = 60;
};

// 0 parsed, 1 help printed, 2 usage error printed.
int parse(const Args& args, bool isJoin, Parsed& p, std::ostream& out, std::ostream& err) {
  const char* usage = isJoin ? kJoinUsage : kUnjoinUsage;
  const std::string command = isJoin ? "join" : "unjoin";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out << usage;
      return 1;
    }
    std::string flag = a, value;
    bool inline_ = false;
    if (const auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_ = true;
    }
    if (flag.rfind("--", 0) != 0) {
      if (!p.options.name.empty()) {
        err << "flotillactl " << command << ": one cluster name, got \"" << p.options.name
            << "\" and \"" << a << "\"\n\n"
            << usage;
        return 2;
      }
      p.options.name = a;
      continue;
    }
    if (!inline_) {
      if (i + 1 >= args.size()) {
        err << "flotillactl " << command << ": " << flag << " needs a value\n\n" << usage;
        return 2;
      }
      value = args[++i];
    }
    std::map<std::string, std::string*> strings{{"--cluster-kubeconfig", &p.memberKubeconfig},
                                                {"--cluster-context", &p.memberContext},
                                                {"--kubeconfig", &p.hostKubeconfig},
                                                {"--context", &p.hostContext}};
    if (isJoin) {
      strings.insert({{"--cluster-endpoint", &p.options.endpoint},
                      {"--cluster-provider", &p.options.provider},
                      {"--cluster-region", &p.options.region},
                      {"--cluster-zone", &p.options.zone}});
    }
    if (auto it = strings.find(flag); it != strings.end()) {
      *it->second = value;
    } else if (flag == "--wait") {
      try {
        p.waitSeconds = std::stoi(value);
      } catch (const std::exception&) {
        p.waitSeconds = -1;
      }
      if (p.waitSeconds < 1) {
        err << "flotillactl " << command << ": --wait: \"" << value
            << "\" is not a number of seconds\n";
        return 2;
      }
    } else if (flag == "--labels" && isJoin) {
      size_t start = 0;
      while (start <= value.size()) {
        const size_t comma = std::min(value.find(',', start), value.size());
        const std::string pair = value.substr(start, comma - start);
        const size_t eq = pair.find('=');
        if (eq == std::string::npos || eq == 0) {
          err << "flotillactl join: --labels: \"" << pair << "\" is not KEY=VALUE\n";
          return 2;
        }
        p.options.labels[pair.substr(0, eq)] = pair.substr(eq + 1);
        start = comma + 1;
      }
    } else {
      err << "flotillactl " << command << ": unknown flag " << flag << "\n\n" << usage;
      return 2;
    }
  }
  if (p.options.name.empty()) {
    err << "flotillactl " << command << ": the cluster's NAME is required\n\n" << usage;
    return 2;
  }
  if (!api::isDns1123Label(p.options.name)) {
    err << "flotillactl " << command << ": \"" << p.options.name
        << "\" is not a valid cluster name (a DNS label: lower case letters, digits and '-', at "
           "most 63)\n";
    return 2;
  }
  if (isJoin && p.memberKubeconfig.empty()) {
    err << "flotillactl join: --cluster-kubeconfig is required\n\n" << usage;
    return 2;
  }
  return 0;
}

api::Result<std::unique_ptr<SyncClient>> connect(const std::string& kubeconfig,
                                                 const std::string& context,
                                                 std::string* caPem = nullptr) {
  kube::KubeconfigOptions options;
  if (!kubeconfig.empty()) options.paths.push_back(kubeconfig);
  options.context = context;
  auto config = kube::loadKubeconfig(options);
  if (!config) return config.error();
  config->timeout = std::chrono::seconds(15);
  if (caPem) *caPem = config->caPem;
  return SyncClient::create(std::move(*config));
}

int run(const Args& args, bool isJoin, std::ostream& out, std::ostream& err) {
  Parsed p;
  if (int code = parse(args, isJoin, p, out, err); code != 0) return code == 1 ? 0 : 2;
  p.options.tokenPolls = p.options.deletePolls = p.waitSeconds * 2;
  const std::string command = isJoin ? "join" : "unjoin";
  auto host = connect(p.hostKubeconfig, p.hostContext);
  if (!host) {
    err << "flotillactl " << command << ": the host kubeconfig: " << host.error().message << "\n";
    return 1;
  }
  std::unique_ptr<SyncClient> member;
  if (!p.memberKubeconfig.empty()) {
    auto connected = connect(p.memberKubeconfig, p.memberContext, &p.options.caPem);
    if (!connected) {
      err << "flotillactl " << command << ": --cluster-kubeconfig " << p.memberKubeconfig << ": "
          << connected.error().message << "\n";
      return 1;
    }
    member = std::move(*connected);
  }
  const Pause pause = [] { std::this_thread::sleep_for(std::chrono::milliseconds(500)); };
  return isJoin ? join(p.options, **host, *member, pause, out, err)
                : unjoin(p.options, **host, member.get(), pause, out, err);
}

}  // namespace

int runMemberManifest(const Args& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    out << "Usage: flotillactl member-manifest\n\n"
           "Prints what `flotillactl join` installs on a member (namespace flotilla-system, the\n"
           "flotilla-member ServiceAccount, ClusterRole, ClusterRoleBinding and token Secret), "
           "for\n"
           "registering a member by hand (docs/install.md). `make crds` writes it to\n"
           "config/member/member.yaml.\n";
    return 0;
  }
  if (!args.empty()) {
    err << "flotillactl member-manifest: takes no arguments\n";
    return 2;
  }
  out << memberManifest();
  return 0;
}

int runJoin(const Args& args, std::ostream& out, std::ostream& err) {
  return run(args, true, out, err);
}

int runUnjoin(const Args& args, std::ostream& out, std::ostream& err) {
  return run(args, false, out, err);
}

}  // namespace flotilla::cli
