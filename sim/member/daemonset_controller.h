// A member's DaemonSet controller (in-process on the Store): one pod per Ready, schedulable node
// whose labels match spec.template.spec.nodeSelector, bound straight to it (nodeName and the
// matchFields node affinity the real controller sets), named `<name>-<5 chars>` derived from the
// set, node and revision; pods follow nodes that come, go or stop matching; a template change
// replaces pods one node at a time (RollingUpdate, maxUnavailable 1). docs/sim.md, "DaemonSets".
#pragma once

#include <map>
#include <string>

#include "sim/member/member_options.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

class DaemonSetController {
 public:
  DaemonSetController(Store& store, const MemberOptions& options)
      : store_(store), options_(options) {}
  int reconcile(PassClock& clock);

 private:
  Store& store_;
  const MemberOptions& options_;
  std::map<std::string, std::string> memo_;
};

}  // namespace flotilla::sim
