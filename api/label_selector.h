// Kubernetes label selectors: the structured form (metav1.LabelSelector) and the string form
// (`a=b,c!=d,e in (x,y),!f`), with the exact matching rules of k8s.io/apimachinery/pkg/labels.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace flotilla::api {

using Labels = std::map<std::string, std::string>;

// metav1.LabelSelectorRequirement
struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In | NotIn | Exists | DoesNotExist  (JSON: "operator")
  std::vector<std::string> values;
  bool operator==(const LabelSelectorRequirement&) const = default;
};

// metav1.LabelSelector. An empty selector matches everything; where a selector is optional the
// field is std::optional and "absent" is decided by the caller.
struct LabelSelector {
  std::map<std::string, std::string> matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;
  bool operator==(const LabelSelector&) const = default;
};

// One requirement in the internal form both selector syntaxes compile to.
struct Requirement {
  enum class Op { kIn, kNotIn, kExists, kDoesNotExist, kGreaterThan, kLessThan };
  std::string key;
  Op op = Op::kIn;
  std::vector<std::string> values;

  bool matches(const Labels& labels) const;
};

class Selector {
 public:
  // Builds from the structured form; errors carry field paths under `path`.
  static Result<Selector> fromLabelSelector(const LabelSelector& selector,
                                            const std::string& path = "selector");
  // Parses the string form used by `kubectl -l` and `labelSelector=` query parameters.
  static Result<Selector> parse(std::string_view text);

  bool matches(const Labels& labels) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // Canonical string form, requirements sorted by key (as labels.Selector.String()).
  std::string str() const;

 private:
  std::vector<Requirement> requirements_;
};

// Field-path errors for a structured selector (operators, values, key and value syntax).
FieldErrors validateLabelSelector(const LabelSelector& selector, const std::string& path);
// Kubernetes qualified names (label keys) and label values.
bool isQualifiedName(std::string_view key);
bool isLabelValue(std::string_view value);

}  // namespace flotilla::api
