#include "kube/net/http_types.h"

#include <boost/algorithm/string/predicate.hpp>

namespace flotilla::net {

std::string_view findHeader(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (boost::algorithm::iequals(key, name)) return value;
  }
  return {};
}

std::string_view HttpRequest::path() const {
  std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::string_view HttpRequest::query() const {
  std::string_view t = target;
  const size_t q = t.find('?');
  return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

}  // namespace flotilla::net
