// Scheduler extenders (seed 004, docs/design.md §3.6): out-of-process filter and prioritize verbs
// called over HTTP(S). This header holds the seam the scheduling cycle calls (ExtenderClient) and
// the pure parts: configuration from a SchedulerExtender, the request body, and response parsing.
// The wire format is documented in docs/extenders.md. The HTTP implementation lives in
// http_extender_client.h so that the scheduler core has no networking dependency.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "api/flotilla_types.h"
#include "api/result.h"
#include "scheduler/framework/types.h"

namespace flotilla::scheduler {

// Extender scores are 0..10 (kube-scheduler's MaxExtenderPriority); they are scaled to the
// framework's 0..100 and multiplied by the extender's weight.
inline constexpr int64_t kMaxExtenderScore = 10;

struct ExtenderConfig {
  std::string name;  // the SchedulerExtender's metadata.name
  std::string urlPrefix;
  std::string filterVerb;
  std::string prioritizeVerb;
  int64_t weight = 1;
  std::chrono::milliseconds timeout{5000};
  bool ignorable = false;
  bool nodeCacheCapable = false;
  std::string caPem;  // decoded spec.tls.caBundle; empty: system trust store
  bool insecureSkipVerify = false;
  std::string serverName;

  // "extender/<name>": how the extender appears in filter verdicts and explained scores.
  std::string pluginName() const { return "extender/" + name; }
};

// Validated and defaulted configuration; errors name the field.
api::Result<ExtenderConfig> extenderConfig(const api::SchedulerExtender& extender);

// Every SchedulerExtender in the order filters run: by name, ignorable ones last (as
// kube-scheduler puts ignorable extenders at the tail). The first invalid one is the error.
api::Result<std::vector<ExtenderConfig>> extenderConfigs(
    const std::vector<api::SchedulerExtender>& extenders);

// The JSON body of a filter or prioritize call (docs/extenders.md).
std::string extenderArgs(const SchedulingUnit& unit,
                         const std::vector<const api::FederatedCluster*>& clusters,
                         bool nodeCacheCapable);

struct ExtenderFilterResult {
  std::vector<std::string> passed;            // subset of what was sent, in the order sent
  std::map<std::string, std::string> failed;  // cluster -> reason (every sent cluster not passed)
};
// A response naming no failures for a cluster it also did not return rejects that cluster with
// "rejected by extender <name>". Clusters that were not sent are ignored. A non-empty "error"
// field, malformed JSON or a wrong shape is an error.
api::Result<ExtenderFilterResult> parseFilterResponse(std::string_view body,
                                                      const std::vector<std::string>& sent,
                                                      const std::string& extenderName);

// cluster -> weighted score (score * 10 * weight). Clusters not sent are ignored; scores outside
// 0..10 or non-integers make the whole response invalid.
api::Result<std::map<std::string, int64_t>> parsePrioritizeResponse(
    std::string_view body, const std::vector<std::string>& sent, int64_t weight);

// What the scheduling cycle needs from extenders. Implementations call the extenders; tests use
// a mock.
class ExtenderClient {
 public:
  virtual ~ExtenderClient() = default;

  struct FilterOutcome {
    std::vector<FilterVerdict> rejected;  // plugin = "extender/<name>"
    std::vector<std::string> warnings;    // ignorable extenders that failed and were skipped
    std::string error;                    // a non-ignorable extender failed: the cycle fails
  };
  // Filter extenders in order, each on the previous one's survivors.
  virtual FilterOutcome filter(const SchedulingUnit& unit,
                               const std::vector<const api::FederatedCluster*>& feasible) = 0;

  struct Scores {
    std::string plugin;                       // "extender/<name>"
    std::map<std::string, int64_t> weighted;  // cluster -> 0..100*weight
  };
  struct PrioritizeOutcome {
    std::vector<Scores> scores;
    std::vector<std::string> warnings;  // failed prioritize calls (always ignored)
  };
  // Prioritize extenders, concurrently.
  virtual PrioritizeOutcome prioritize(
      const SchedulingUnit& unit, const std::vector<const api::FederatedCluster*>& feasible) = 0;
};

}  // namespace flotilla::scheduler
