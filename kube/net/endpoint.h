// Where a server lives: "https://10.0.0.1:6443/prefix" parsed once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/result.h"

namespace flotilla::net {

struct Endpoint {
  bool tls = true;
  std::string host;  // without IPv6 brackets
  uint16_t port = 443;
  std::string basePath;  // "" or "/prefix" (no trailing slash)

  bool hostIsIpAddress() const;
  bool isLoopback() const;         // 127.0.0.0/8, ::1, "localhost"
  std::string hostHeader() const;  // "host:port", IPv6 in brackets
  std::string str() const;
};

// http:// and https:// only; no user info, query or fragment. Errors say what is wrong.
api::Result<Endpoint> parseEndpoint(std::string_view url);

}  // namespace flotilla::net
