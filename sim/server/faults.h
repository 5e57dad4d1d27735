// Fault injection for flotilla-sim (issue #16): for chosen verbs, resources and clients, a
// probability that a request is answered 500, 429 with Retry-After or 409 instead of being served,
// is held past the client's timeout, is served and committed but its connection dropped before the
// answer, or (watches) is answered 410 Gone on resume or cut mid-stream. Off unless configured (by
// `serve --faults FILE` or at run time through the admin endpoint /flotilla-sim/faults).
//
// The decisions come from one seeded generator, so the same configuration and the same order of
// requests give the same faults. Thread-safe: the server's threads share one injector.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace flotilla::sim {

struct FaultRule {
  // RBAC verbs: get list watch create update patch delete deletecollection. Empty: every verb.
  std::vector<std::string> verbs;
  // "deployments", "deployments/status", or "*". Empty: every resource.
  std::vector<std::string> resources;
  // User-Agent prefixes ("flotilla-operator/"). Empty: every client.
  std::vector<std::string> userAgents;
  // Probabilities per request (their sum at most 1); a request gets at most one of them.
  double error = 0;            // 500 InternalError, nothing done
  double throttle = 0;         // 429 TooManyRequests with Retry-After, nothing done
  double conflict = 0;         // 409 Conflict, nothing done (writes only)
  double delay = 0;            // held for delayMs, then served
  double dropAfterCommit = 0;  // served and committed, then the connection is closed unanswered
  double watchGone = 0;        // a watch resuming from a resourceVersion gets 410 Expired
  // Per event written on a watch stream: the stream is cut (no final chunk) after that event.
  double watchCut = 0;
  int retryAfterSeconds = 1;
  std::chrono::milliseconds delayFor{0};

  bool matches(std::string_view verb, std::string_view resource, std::string_view userAgent) const;
};

struct FaultConfig {
  uint64_t seed = 1;
  std::vector<FaultRule> rules;  // the first rule that matches a request decides
};

// Reads a configuration: {"seed": 7, "rules": [{"verbs": [...], "resources": [...],
// "userAgents": [...], "error": 0.02, "throttle": 0.02, "retryAfterSeconds": 1, "conflict": 0.02,
// "delay": 0.01, "delayMs": 40000, "dropAfterCommit": 0.02, "watchGone": 0.1, "watchCut": 0.01}]}.
// Unknown fields, probabilities outside [0, 1] and sums above 1 are errors (400 on the endpoint).
api::Result<FaultConfig> parseFaultConfig(std::string_view json);
boost::json::object toJson(const FaultConfig& config);

enum class Fault { kNone, kError, kThrottle, kConflict, kDelay, kDropAfterCommit, kWatchGone };
const char* faultName(Fault fault);

struct FaultPlan {
  Fault fault = Fault::kNone;
  int retryAfterSeconds = 0;
  std::chrono::milliseconds delayFor{0};
  double watchCut = 0;  // for watches: the per-event probability of a cut
};

class FaultInjector {
 public:
  FaultInjector() = default;
  explicit FaultInjector(FaultConfig config) { configure(std::move(config)); }

  // Replaces the rules and restarts the generator from the configuration's seed.
  void configure(FaultConfig config);
  FaultConfig config() const;
  bool enabled() const;

  // The fault for one request. `verb` is an RBAC verb, `resource` "plural" or "plural/sub";
  // `resumingWatch`: a watch from a resourceVersion (the only kind a 410 Gone can answer);
  // `write`: the request changes state (409 and dropAfterCommit apply to writes only).
  FaultPlan plan(std::string_view verb, std::string_view resource, std::string_view userAgent,
                 bool write, bool resumingWatch);
  // Draws whether a watch stream is cut after the event just written.
  bool cutWatch(double probability);

  // How many faults of each kind were injected (watchCut included), for the admin endpoint and
  // /metrics.
  std::map<std::string, uint64_t> injected() const;
  // The admin endpoint's view: {"config": ..., "injected": {...}}.
  boost::json::object describe() const;

 private:
  double draw();  // uniform in [0, 1); mutex_ held

  mutable std::mutex mutex_;
  FaultConfig config_;
  std::mt19937_64 random_{1};
  std::map<std::string, uint64_t> injected_;
};

}  // namespace flotilla::sim
