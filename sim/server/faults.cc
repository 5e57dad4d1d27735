#include "sim/server/faults.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cmath>

namespace flotilla::sim {
namespace json = boost::json;

namespace {

api::Error invalid(const std::string& message) {
  return api::Error{api::reason::kBadRequest, 400, "invalid fault configuration: " + message, {}};
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

api::Result<std::vector<std::string>> strings(const json::value& value, const std::string& field) {
  if (!value.is_array()) return invalid(field + " must be a list of strings");
  std::vector<std::string> out;
  for (const auto& item : value.as_array()) {
    if (!item.is_string()) return invalid(field + " must be a list of strings");
    out.emplace_back(item.as_string());
  }
  return out;
}

api::Result<double> probability(const json::value& value, const std::string& field) {
  if (!value.is_number()) return invalid(field + " must be a number between 0 and 1");
  const double p = value.to_number<double>();
  if (!(p >= 0 && p <= 1))
    return invalid(field + " must be between 0 and 1, not " + json::serialize(value));
  return p;
}

api::Result<int64_t> nonNegative(const json::value& value, const std::string& field, int64_t max) {
  if (!value.is_int64() && !value.is_uint64()) return invalid(field + " must be a whole number");
  if (value.is_uint64() && value.as_uint64() > static_cast<uint64_t>(max))
    return invalid(field + " must be at most " + std::to_string(max));
  const int64_t n = value.is_int64() ? value.as_int64() : static_cast<int64_t>(value.as_uint64());
  if (n < 0 || n > max) return invalid(field + " must be between 0 and " + std::to_string(max));
  return n;
}

api::Result<FaultRule> parseRule(const json::object& object, const std::string& at) {
  FaultRule rule;
  for (const auto& entry : object) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const auto key = entry.key();
    const json::value& value = entry.value();
    const std::string field = at + "." + std::string(key);
    auto setProbability = [&](double& target) -> api::Result<void> {
      auto p = probability(value, field);
      if (!p) return p.error();
      target = *p;
      return {};
    };
    api::Result<void> done;
    if (key == "verbs" || key == "resources" || key == "userAgents") {
      auto list = strings(value, field);
      if (!list) return list.error();
      (key == "verbs"       ? rule.verbs
       : key == "resources" ? rule.resources
                            : rule.userAgents) = std::move(*list);
    } else if (key == "error") {
      done = setProbability(rule.error);
    } else if (key == "throttle") {
      done = setProbability(rule.throttle);
    } else if (key == "conflict") {
      done = setProbability(rule.conflict);
    } else if (key == "delay") {
      done = setProbability(rule.delay);
    } else if (key == "dropAfterCommit") {
      done = setProbability(rule.dropAfterCommit);
    } else if (key == "watchGone") {
      done = setProbability(rule.watchGone);
    } else if (key == "watchCut") {
      done = setProbability(rule.watchCut);
    } else if (key == "retryAfterSeconds") {
      auto n = nonNegative(value, field, 3600);
      if (!n) return n.error();
      rule.retryAfterSeconds = static_cast<int>(*n);
    } else if (key == "delayMs") {
      auto n = nonNegative(value, field, 600'000);
      if (!n) return n.error();
      rule.delayFor = std::chrono::milliseconds(*n);
    } else {
      return invalid("unknown field " + field);
    }
    if (!done) return done.error();
  }
  static const std::vector<std::string> kVerbs = {"get",    "list",  "watch",  "create",
                                                  "update", "patch", "delete", "deletecollection"};
  for (const auto& verb : rule.verbs)
    if (std::find(kVerbs.begin(), kVerbs.end(), verb) == kVerbs.end())
      return invalid(at + ".verbs: unknown verb \"" + verb +
                     "\" (get, list, watch, create, update, patch, delete, deletecollection)");
  const double sum = rule.error + rule.throttle + rule.conflict + rule.delay +
                     rule.dropAfterCommit + rule.watchGone;
  if (sum > 1 + 1e-9)
    return invalid(at +
                   ": the probabilities of error, throttle, conflict, delay, "
                   "dropAfterCommit and watchGone add up to more than 1");
  if (rule.delay > 0 && rule.delayFor.count() == 0) return invalid(at + ": delay needs delayMs");
  return rule;
}

json::array toArray(const std::vector<std::string>& list) {
  json::array out;
  for (const auto& s : list) out.emplace_back(s);
  return out;
}

}  // namespace

bool FaultRule::matches(std::string_view verb, std::string_view resource,
                        std::string_view userAgent) const {
  auto listed = [](const std::vector<std::string>& list, std::string_view value) {
    return list.empty() || std::any_of(list.begin(), list.end(), [&](const std::string& s) {
             return s == "*" || s == value;
           });
  };
  const bool agent = userAgents.empty() ||
                     std::any_of(userAgents.begin(), userAgents.end(),
                                 [&](const std::string& p) { return startsWith(userAgent, p); });
  return listed(verbs, verb) && listed(resources, resource) && agent;
}

api::Result<FaultConfig> parseFaultConfig(std::string_view text) {
  boost::system::error_code ec;
  json::value doc = json::parse(text, ec);
  if (ec) return invalid("not JSON: " + ec.message());
  if (!doc.is_object()) return invalid("must be a JSON object");
  FaultConfig config;
  for (const auto& [key, value] : doc.as_object()) {
    if (key == "seed") {
      if (!value.is_int64() && !value.is_uint64()) return invalid("seed must be a whole number");
      config.seed = value.is_uint64() ? value.as_uint64() : static_cast<uint64_t>(value.as_int64());
    } else if (key == "rules") {
      if (!value.is_array()) return invalid("rules must be a list");
      const auto& rules = value.as_array();
      for (size_t i = 0; i < rules.size(); ++i) {
        const std::string at = "rules[" + std::to_string(i) + "]";
        if (!rules[i].is_object()) return invalid(at + " must be an object");
        auto rule = parseRule(rules[i].as_object(), at);
        if (!rule) return rule.error();
        config.rules.push_back(std::move(*rule));
      }
    } else {
      return invalid("unknown field " + std::string(key) + " (seed, rules)");
    }
  }
  return config;
}

json::object toJson(const FaultConfig& config) {
  json::array rules;
  for (const auto& r : config.rules) {
    json::object o;
    if (!r.verbs.empty()) o["verbs"] = toArray(r.verbs);
    if (!r.resources.empty()) o["resources"] = toArray(r.resources);
    if (!r.userAgents.empty()) o["userAgents"] = toArray(r.userAgents);
    auto put = [&](const char* name, double p) {
      if (p > 0) o[name] = p;
    };
    put("error", r.error);
    put("throttle", r.throttle);
    put("conflict", r.conflict);
    put("delay", r.delay);
    put("dropAfterCommit", r.dropAfterCommit);
    put("watchGone", r.watchGone);
    put("watchCut", r.watchCut);
    if (r.throttle > 0) o["retryAfterSeconds"] = r.retryAfterSeconds;
    if (r.delay > 0) o["delayMs"] = static_cast<int64_t>(r.delayFor.count());
    rules.emplace_back(std::move(o));
  }
  return json::object{{"seed", config.seed}, {"rules", std::move(rules)}};
}

const char* faultName(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kError:
      return "error";
    case Fault::kThrottle:
      return "throttle";
    case Fault::kConflict:
      return "conflict";
    case Fault::kDelay:
      return "delay";
    case Fault::kDropAfterCommit:
      return "dropAfterCommit";
    case Fault::kWatchGone:
      return "watchGone";
  }
  return "none";
}

void FaultInjector::configure(FaultConfig config) {
  std::lock_guard lock(mutex_);
  random_.seed(config.seed);
  config_ = std::move(config);
}

FaultConfig FaultInjector::config() const {
  std::lock_guard lock(mutex_);
  return config_;
}

bool FaultInjector::enabled() const {
  std::lock_guard lock(mutex_);
  return !config_.rules.empty();
}

double FaultInjector::draw() {
  // 53 random bits: the same sequence on every platform for a seed (unlike
  // std::uniform_real_distribution, whose algorithm the standard leaves open).
  return static_cast<double>(random_() >> 11) * 0x1.0p-53;
}

FaultPlan FaultInjector::plan(std::string_view verb, std::string_view resource,
                              std::string_view userAgent, bool write, bool resumingWatch) {
  std::lock_guard lock(mutex_);
  const FaultRule* rule = nullptr;
  for (const auto& r : config_.rules)
    if (r.matches(verb, resource, userAgent)) {
      rule = &r;
      break;
    }
  FaultPlan plan;
  if (!rule) return plan;
  const bool watch = verb == "watch";
  plan.watchCut = watch ? rule->watchCut : 0;
  // One draw walks the cumulative probabilities, so each fault keeps its own rate whatever the
  // others are; a fault that does not apply to this request falls through to "none".
  const double u = draw();
  double edge = 0;
  auto hit = [&](double p, bool applies) {
    const bool in = u >= edge && u < edge + p;
    edge += p;
    return in && applies;
  };
  if (hit(rule->error, true)) {
    plan.fault = Fault::kError;
  } else if (hit(rule->throttle, true)) {
    plan.fault = Fault::kThrottle;
    plan.retryAfterSeconds = rule->retryAfterSeconds;
  } else if (hit(rule->conflict, write)) {
    plan.fault = Fault::kConflict;
  } else if (hit(rule->delay, true)) {
    plan.fault = Fault::kDelay;
    plan.delayFor = rule->delayFor;
  } else if (hit(rule->dropAfterCommit, !watch)) {
    plan.fault = Fault::kDropAfterCommit;
  } else if (hit(rule->watchGone, watch && resumingWatch)) {
    plan.fault = Fault::kWatchGone;
  }
  if (plan.fault != Fault::kNone) ++injected_[faultName(plan.fault)];
  return plan;
}

bool FaultInjector::cutWatch(double probability) {
  if (probability <= 0) return false;
  std::lock_guard lock(mutex_);
  const bool cut = draw() < probability;
  if (cut) ++injected_["watchCut"];
  return cut;
}

std::map<std::string, uint64_t> FaultInjector::injected() const {
  std::lock_guard lock(mutex_);
  return injected_;
}

json::object FaultInjector::describe() const {
  std::lock_guard lock(mutex_);
  json::object counts;
  for (const auto& [name, n] : injected_) counts[name] = n;
  return json::object{{"config", toJson(config_)}, {"injected", std::move(counts)}};
}

}  // namespace flotilla::sim
