#include "api/names.h"

#include <algorithm>

namespace flotilla::api {
namespace {
bool isLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
}  // namespace

bool isDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!isLowerAlnum(s.front()) || !isLowerAlnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return isLowerAlnum(c) || c == '-'; });
}

bool isDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? dot : dot - start);
    // Each dot-separated part follows the label rule, except that the length limit is the whole.
    if (label.empty() || !isLowerAlnum(label.front()) || !isLowerAlnum(label.back())) return false;
    if (!std::all_of(label.begin(), label.end(),
                     [](char c) { return isLowerAlnum(c) || c == '-'; }))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

std::string dns1123SubdomainMessage(std::string_view s) {
  return "Invalid value: \"" + std::string(s) +
         "\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
         "'-' or '.', and must start and end with an alphanumeric character (at most 253 "
         "characters)";
}

std::string dns1123LabelMessage(std::string_view s) {
  return "Invalid value: \"" + std::string(s) +
         "\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
         "'-', and must start and end with an alphanumeric character (at most 63 characters)";
}

bool builtInGroup(std::string_view group) {
  static constexpr std::string_view kBuiltIn[] = {
      "",
      "apps",
      "batch",
      "policy",
      "autoscaling",
      "admissionregistration.k8s.io",
      "apiextensions.k8s.io",
      "apiregistration.k8s.io",
      "authentication.k8s.io",
      "authorization.k8s.io",
      "certificates.k8s.io",
      "coordination.k8s.io",
      "discovery.k8s.io",
      "events.k8s.io",
      "flowcontrol.apiserver.k8s.io",
      "internal.apiserver.k8s.io",
      "networking.k8s.io",
      "node.k8s.io",
      "rbac.authorization.k8s.io",
      "resource.k8s.io",
      "scheduling.k8s.io",
      "storage.k8s.io",
      "storagemigration.k8s.io",
  };
  for (const auto g : kBuiltIn)
    if (g == group) return true;
  return false;
}

bool kubernetesGroup(std::string_view group) {
  return group.empty() || group == "apps" || group == "batch" || group == "policy" ||
         group == "autoscaling" || group.ends_with(".k8s.io");
}

}  // namespace flotilla::api
