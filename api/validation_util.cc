#include "api/validation_util.h"

#include "api/duration.h"
#include "api/label_selector.h"
#include "api/names.h"

namespace flotilla::api::validation {

void Errors::duration(const std::string& field, const std::string& value, bool positive) {
  if (value.empty()) return;
  auto d = parseDuration(value);
  if (!d) {
    add(field, "Invalid value: \"" + value +
                   "\": must be a duration such as \"90s\", \"5m\" or \"1h30m\"");
  } else if (d->count() < 0 || (positive && d->count() == 0)) {
    add(field,
        "Invalid value: \"" + value + "\": must be " + (positive ? "positive" : "non-negative"));
  }
}

void Errors::dns1123Label(const std::string& field, const std::string& value) {
  if (!isDns1123Label(value)) add(field, dns1123LabelMessage(value));
}

void Errors::dns1123Subdomain(const std::string& field, const std::string& value) {
  if (!isDns1123Subdomain(value)) add(field, dns1123SubdomainMessage(value));
}

void validateObjectMeta(const ObjectMeta& meta, Scope scope, bool nameIsLabel, Errors& errors) {
  if (meta.name.empty() && meta.generateName.empty()) {
    errors.add("metadata.name", "Required value: name or generateName is required");
  } else if (!meta.name.empty()) {
    if (nameIsLabel) {
      errors.dns1123Label("metadata.name", meta.name);
    } else {
      errors.dns1123Subdomain("metadata.name", meta.name);
    }
  }
  // Namespaced objects without a namespace are fine: kubectl and the API server fill it in.
  if (scope == Scope::kNamespaced && !meta.namespace_.empty()) {
    errors.dns1123Label("metadata.namespace", meta.namespace_);
  }
  for (const auto& [key, value] : meta.labels) {
    const std::string field = "metadata.labels[" + key + "]";
    if (!isQualifiedName(key))
      errors.add(field, "Invalid value: \"" + key + "\": invalid label key");
    if (!isLabelValue(value)) {
      errors.add(field, "Invalid value: \"" + value + "\": invalid label value");
    }
  }
  for (const auto& [key, value] : meta.annotations) {
    if (!isQualifiedName(key)) {
      errors.add("metadata.annotations", "Invalid value: \"" + key + "\": invalid annotation key");
    }
  }
}

}  // namespace flotilla::api::validation
