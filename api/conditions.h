// metav1.Condition bookkeeping (meta.SetStatusCondition semantics).
#pragma once

#include <string>
#include <vector>

#include "api/meta_types.h"

namespace flotilla::api {

// Sets or adds the condition of `type`. lastTransitionTime changes only when the status changes
// (so `kubectl describe` shows how long a state has lasted); reason, message and
// observedGeneration always follow the latest call. Returns whether anything changed.
bool setCondition(std::vector<Condition>& conditions, const std::string& type,
                  const std::string& status, const std::string& reason, const std::string& message,
                  int64_t observedGeneration, const std::string& now);

const Condition* findCondition(const std::vector<Condition>& conditions, const std::string& type);

}  // namespace flotilla::api
