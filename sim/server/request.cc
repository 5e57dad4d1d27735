#include "sim/server/request.h"

#include <boost/url/parse_query.hpp>
#include <boost/url/pct_string_view.hpp>

namespace flotilla::sim {

namespace detail {
std::vector<std::string> splitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) {
      // Path segments are percent-decoded (names cannot contain '/').
      const std::string_view raw = path.substr(start, end - start);
      // Explicit core::string_view: the implicit conversion from std::string_view goes through
      // a C string (strlen) in Boost 1.81.
      auto segment =
          boost::urls::make_pct_string_view(boost::core::string_view(raw.data(), raw.size()));
      parts.push_back(segment ? segment->decode() : std::string(path.substr(start, end - start)));
    }
    start = end + 1;
  }
  return parts;
}
}  // namespace detail

std::map<std::string, std::string> parseQuery(std::string_view query) {
  std::map<std::string, std::string> out;
  if (query.empty()) return out;
  auto params = boost::urls::parse_query(boost::core::string_view(query.data(), query.size()));
  if (!params) return out;
  for (const auto& p : *params) {
    out[p.key.decode()] = p.has_value ? p.value.decode() : std::string();
  }
  return out;
}

bool queryFlag(const std::map<std::string, std::string>& query, const std::string& key) {
  auto it = query.find(key);
  return it != query.end() && (it->second == "true" || it->second == "1");
}

}  // namespace flotilla::sim
