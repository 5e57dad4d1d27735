#include "api/conditions.h"

namespace flotilla::api {

bool setCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  int64_t observedGeneration, const std::string& now) {
  for (auto& c : conditions) {
    if (c.type != type) continue;
    const Condition before = c;
    if (c.status != status) c.lastTransitionTime = now;
    c.status = status;
    c.reason = reason;
    c.message = message;
    c.observedGeneration = observedGeneration;
    return !(before == c);
  }
  conditions.push_back({type, status, observedGeneration, now, reason, message});
  return true;
}

const Condition* findCondition(const std::vector<Condition>& conditions, const std::string& type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace flotilla::api
