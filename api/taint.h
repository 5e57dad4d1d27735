// core/v1 Taint and Toleration with Kubernetes' matching rules (ToleratesTaint).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::api {

namespace taint_effect {
inline constexpr const char* kNoSchedule = "NoSchedule";
inline constexpr const char* kPreferNoSchedule = "PreferNoSchedule";
inline constexpr const char* kNoExecute = "NoExecute";
}  // namespace taint_effect

struct Taint {
  std::string key;
  std::string value;
  std::string effect;     // NoSchedule | PreferNoSchedule | NoExecute
  std::string timeAdded;  // RFC 3339, set for NoExecute taints
  bool operator==(const Taint&) const = default;
  // `key=value:Effect`, the form kube-scheduler prints in its messages.
  std::string str() const;
};

struct Toleration {
  std::string key;        // empty with operator Exists tolerates every taint
  std::string operator_;  // Equal (default when empty) | Exists   (JSON: "operator")
  std::string value;
  std::string effect;  // empty matches every effect
  std::optional<int64_t> tolerationSeconds;
  bool operator==(const Toleration&) const = default;

  bool toleratesTaint(const Taint& taint) const;
};

bool toleratesTaint(const std::vector<Toleration>& tolerations, const Taint& taint);
// The first taint with one of `effects` that no toleration tolerates, or nullptr.
const Taint* firstUntoleratedTaint(const std::vector<Taint>& taints,
                                   const std::vector<Toleration>& tolerations,
                                   const std::vector<std::string>& effects);

FieldErrors validateTaint(const Taint& taint, const std::string& path);
FieldErrors validateToleration(const Toleration& toleration, const std::string& path);

}  // namespace flotilla::api
