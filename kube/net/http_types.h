// Plain HTTP request/response values shared by the client, the server and their users. No Beast
// here: widely included headers stay light.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace flotilla::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive header lookup (HTTP field names are case-insensitive). Empty when absent.
std::string_view findHeader(const Headers& headers, std::string_view name);

struct HttpRequest {
  std::string method = "GET";
  std::string target = "/";  // path and query, already percent-encoded
  Headers headers;
  std::string body;

  std::string_view header(std::string_view name) const { return findHeader(headers, name); }
  // The path without the query string.
  std::string_view path() const;
  // The raw (still percent-encoded) query string without '?', empty when none.
  std::string_view query() const;
};

struct HttpResponse {
  int status = 200;
  Headers headers;
  std::string body;

  std::string_view header(std::string_view name) const { return findHeader(headers, name); }
};

}  // namespace flotilla::net
