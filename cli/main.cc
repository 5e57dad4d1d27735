// flotillactl: Flotilla's command-line tool (offline tools, and join/unjoin of member clusters).
#include <iostream>

#include "cli/commands.h"

namespace {

constexpr const char* kHelp =
    "flotillactl - the command-line tool of Flotilla, the multi-cluster scheduling operator\n"
    "\n"
    "Usage: flotillactl <command> [flags]\n"
    "\n"
    "Commands:\n"
    "  validate -f FILE   Validate manifests with the admission webhook's rules (offline)\n"
    "  crds [--out-dir D] Print or write the flotilla.io CustomResourceDefinitions\n"
    "  plan -f FILE       Run the replica planner alone (JSON in, JSON out)\n"
    "  schedule -f FILE   Run the whole scheduler offline (placement, verdicts, scores)\n"
    "  explain overrides -f FILE\n"
    "                     Show what override policies do to an object on each cluster (offline)\n"
    "  webhooks           Print the operator's webhook configurations (--url for local runs)\n"
    "  join NAME          Register a member cluster (--cluster-kubeconfig FILE) with the host\n"
    "  unjoin NAME        Remove a member cluster's registration, on the host and the member\n"
    "  member-manifest    Print what join installs on a member (config/member/member.yaml)\n"
    "  version            Print the version\n"
    "\n"
    "Run `flotillactl <command> --help` for a command's flags.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kHelp;
    return 2;
  }
  const std::string command = argv[1];
  flotilla::cli::Args args(argv + 2, argv + argc);
  if (command == "-h" || command == "--help" || command == "help") {
    std::cout << kHelp;
    return 0;
  }
  if (command == "validate")
    return flotilla::cli::runValidate(args, std::cin, std::cout, std::cerr);
  if (command == "webhooks") return flotilla::cli::runWebhooks(args, std::cout, std::cerr);
  if (command == "crds") return flotilla::cli::runCrds(args, std::cout, std::cerr);
  if (command == "version") {
    std::cout << "flotillactl 0.1.0 (flotilla.io/v1alpha1)\n";
    return 0;
  }
  if (command == "join") return flotilla::cli::runJoin(args, std::cout, std::cerr);
  if (command == "unjoin") return flotilla::cli::runUnjoin(args, std::cout, std::cerr);
  if (command == "member-manifest")
    return flotilla::cli::runMemberManifest(args, std::cout, std::cerr);
  if (command == "plan") return flotilla::cli::runPlan(args, std::cin, std::cout, std::cerr);
  if (command == "explain") return flotilla::cli::runExplain(args, std::cin, std::cout, std::cerr);
  if (command == "schedule")
    return flotilla::cli::runSchedule(args, std::cin, std::cout, std::cerr);
  std::cerr << "flotillactl: unknown command \"" << command << "\"\n\n" << kHelp;
  return 2;
}
