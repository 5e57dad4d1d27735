// flotillactl subcommands. Each takes its arguments (after the subcommand name) and the output
// streams, and returns the process exit code, so tests run them in-process.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace flotilla::cli {

using Args = std::vector<std::string>;

// `flotillactl validate -f FILE [-f FILE...]` (FILE may be "-" for stdin): 0 when every object
// is valid, 1 when any is not or a file cannot be read/parsed, 2 on usage errors.
int runValidate(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);

// `flotillactl plan -f FILE`: the replica planner alone; JSON in, JSON out (docs/cli.md).
int runPlan(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);

// `flotillactl schedule -f FILE... [-o table|json]`: the whole scheduler offline (docs/cli.md).
int runSchedule(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);

// `flotillactl explain overrides -f FILE... [--cluster NAME] [-o table|json]`: what override
// policies do to one object on each cluster, offline (docs/cli.md).
int runExplain(const Args& args, std::istream& in, std::ostream& out, std::ostream& err);

// `flotillactl crds [--out-dir DIR]`: writes (or prints) the generated CRDs.
int runCrds(const Args& args, std::ostream& out, std::ostream& err);

// `flotillactl webhooks [--url BASE --cert-dir DIR] [--service NS/NAME]`: the operator's webhook
// configurations (for config/webhook, or for an operator outside the cluster).
int runWebhooks(const Args& args, std::ostream& out, std::ostream& err);

// `flotillactl join NAME --cluster-kubeconfig FILE [...]`: registers a member (cli/join.h).
int runJoin(const Args& args, std::ostream& out, std::ostream& err);
// `flotillactl member-manifest`: what join installs on a member, as YAML (config/member).
int runMemberManifest(const Args& args, std::ostream& out, std::ostream& err);
// `flotillactl unjoin NAME [--cluster-kubeconfig FILE] [...]`: the reverse.
int runUnjoin(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace flotilla::cli
