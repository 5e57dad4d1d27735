// Small helpers shared by the per-kind validators (api/validate_*.cc). Internal to api/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/enums.h"
#include "api/flotilla_types.h"
#include "api/meta_types.h"

namespace flotilla::api::validation {

// `path[i]`: the field path of a list element.
inline std::string idx(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

// Accumulates field errors; messages follow the wording of Kubernetes' field errors.
class Errors {
 public:
  void add(std::string field, std::string message) {
    list_.push_back({std::move(field), std::move(message)});
  }
  void required(const std::string& field) { add(field, "Required value"); }
  void append(FieldErrors more) {
    for (auto& e : more) list_.push_back(std::move(e));
  }
  template <size_t N>
  void oneOf(const std::string& field, std::string_view value,
             const std::array<std::string_view, N>& allowed) {
    if (enums::contains(allowed, value)) return;
    std::string message = "Unsupported value: \"" + std::string(value) + "\": supported values: ";
    for (size_t i = 0; i < N; ++i) {
      message += (i ? ", \"" : "\"") + std::string(allowed[i]) + "\"";
    }
    add(field, std::move(message));
  }
  // Like oneOf, but an empty value (to be defaulted) is accepted.
  template <size_t N>
  void oneOfOrEmpty(const std::string& field, std::string_view value,
                    const std::array<std::string_view, N>& allowed) {
    if (!value.empty()) oneOf(field, value, allowed);
  }
  void minimum(const std::string& field, int64_t value, int64_t min) {
    if (value < min) {
      add(field, "Invalid value: " + std::to_string(value) + ": must be greater than or equal to " +
                     std::to_string(min));
    }
  }
  // A Go duration string; `positive` rejects zero too.
  void duration(const std::string& field, const std::string& value, bool positive);
  void dns1123Label(const std::string& field, const std::string& value);
  void dns1123Subdomain(const std::string& field, const std::string& value);

  FieldErrors take() { return std::move(list_); }

 private:
  FieldErrors list_;
};

enum class Scope { kNamespaced, kCluster };
// metadata: name (or generateName), namespace, label and annotation syntax.
void validateObjectMeta(const ObjectMeta& meta, Scope scope, bool nameIsLabel, Errors& errors);

// A policy's spec.resourceSelectors (propagation and override policies): apiVersion and kind
// required, names and label selectors valid, a namespaced policy's selectors only in its own
// namespace (`policyNamespace`; "" for a cluster-scoped policy).
void validateResourceSelectors(const std::vector<ResourceSelector>& selectors,
                               const std::string& policyNamespace, Scope scope, Errors& errors);
// A clusterAffinity (a placement's, an override rule's targetCluster) at `path`.
void validateAffinity(const ClusterAffinity& affinity, const std::string& path, Errors& errors);

}  // namespace flotilla::api::validation
