// Template part of request.h.
#pragma once

#include <vector>

namespace flotilla::sim {

namespace detail {
std::vector<std::string> splitPath(std::string_view path);
}

template <class IsNamespaced>
std::optional<ResourcePath> parseResourcePath(std::string_view path, IsNamespaced isNamespaced) {
  const auto parts = detail::splitPath(path);
  ResourcePath out;
  size_t i = 0;
  if (parts.size() >= 3 && parts[0] == "api") {
    out.version = parts[1];
    i = 2;
  } else if (parts.size() >= 4 && parts[0] == "apis") {
    out.group = parts[1];
    out.version = parts[2];
    i = 3;
  } else {
    return std::nullopt;
  }
  const size_t rest = parts.size() - i;
  // namespaces/<ns>/<resource>[/<name>[/<sub>]] when <resource> is namespaced.
  if (rest >= 3 && parts[i] == "namespaces" && isNamespaced(out.group, out.version, parts[i + 2])) {
    out.namespace_ = parts[i + 1];
    i += 2;
  }
  const size_t left = parts.size() - i;
  if (left < 1 || left > 3) return std::nullopt;
  out.resource = parts[i];
  if (left >= 2) out.name = parts[i + 1];
  if (left == 3) out.subresource = parts[i + 2];
  return out;
}

}  // namespace flotilla::sim
