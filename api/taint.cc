#include "api/taint.h"

#include <algorithm>

#include "api/label_selector.h"

namespace flotilla::api {

std::string Taint::str() const {
  return value.empty() ? key + ":" + effect : key + "=" + value + ":" + effect;
}

bool Toleration::toleratesTaint(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  if (operator_.empty() || operator_ == "Equal") return value == taint.value;
  return operator_ == "Exists";
}

bool toleratesTaint(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return t.toleratesTaint(taint); });
}

const Taint* firstUntoleratedTaint(const std::vector<Taint>& taints,
                                   const std::vector<Toleration>& tolerations,
                                   const std::vector<std::string>& effects) {
  for (const auto& taint : taints) {
    if (std::find(effects.begin(), effects.end(), taint.effect) == effects.end()) continue;
    if (!toleratesTaint(tolerations, taint)) return &taint;
  }
  return nullptr;
}

namespace {
bool isEffect(const std::string& e) {
  return e == taint_effect::kNoSchedule || e == taint_effect::kPreferNoSchedule ||
         e == taint_effect::kNoExecute;
}
const char* kEffectValues = "supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"";
}  // namespace

FieldErrors validateTaint(const Taint& taint, const std::string& path) {
  FieldErrors errors;
  if (taint.key.empty()) {
    errors.push_back({path + ".key", "Required value"});
  } else if (!isQualifiedName(taint.key)) {
    errors.push_back({path + ".key", "invalid taint key \"" + taint.key + "\""});
  }
  if (!isLabelValue(taint.value)) {
    errors.push_back({path + ".value", "invalid taint value \"" + taint.value + "\""});
  }
  if (taint.effect.empty()) {
    errors.push_back({path + ".effect", "Required value"});
  } else if (!isEffect(taint.effect)) {
    errors.push_back(
        {path + ".effect", "Unsupported value: \"" + taint.effect + "\": " + kEffectValues});
  }
  return errors;
}

FieldErrors validateToleration(const Toleration& t, const std::string& path) {
  FieldErrors errors;
  if (!t.key.empty() && !isQualifiedName(t.key)) {
    errors.push_back({path + ".key", "invalid toleration key \"" + t.key + "\""});
  }
  if (t.operator_.empty() || t.operator_ == "Equal") {
    if (t.key.empty()) {
      errors.push_back({path + ".operator", "must be Exists when `key` is empty"});
    }
    if (!isLabelValue(t.value)) {
      errors.push_back({path + ".value", "invalid toleration value \"" + t.value + "\""});
    }
  } else if (t.operator_ == "Exists") {
    if (!t.value.empty()) {
      errors.push_back({path + ".value", "must be empty when `operator` is 'Exists'"});
    }
  } else {
    errors.push_back({path + ".operator", "Unsupported value: \"" + t.operator_ +
                                              "\": supported values: \"Equal\", \"Exists\""});
  }
  if (!t.effect.empty() && !isEffect(t.effect)) {
    errors.push_back(
        {path + ".effect", "Unsupported value: \"" + t.effect + "\": " + kEffectValues});
  }
  if (t.tolerationSeconds && t.effect != taint_effect::kNoExecute) {
    errors.push_back(
        {path + ".tolerationSeconds", "may only be specified when `effect` is 'NoExecute'"});
  }
  return errors;
}

}  // namespace flotilla::api
