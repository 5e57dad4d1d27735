#include "kube/net/endpoint.h"

#include <boost/asio/ip/address.hpp>
#include <boost/url/parse.hpp>
#include <charconv>

namespace flotilla::net {

bool Endpoint::hostIsIpAddress() const {
  boost::system::error_code ec;
  boost::asio::ip::make_address(host, ec);
  return !ec;
}

bool Endpoint::isLoopback() const {
  if (host == "localhost") return true;
  boost::system::error_code ec;
  auto address = boost::asio::ip::make_address(host, ec);
  return !ec && address.is_loopback();
}

std::string Endpoint::hostHeader() const {
  const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

std::string Endpoint::str() const {
  return std::string(tls ? "https://" : "http://") + hostHeader() + basePath;
}

api::Result<Endpoint> parseEndpoint(std::string_view url) {
  auto bad = [&](const std::string& why) {
    return api::badRequest("invalid server URL \"" + std::string(url) + "\": " + why);
  };
  // Explicit core::string_view: Boost 1.81 converts std::string_view through a C string.
  auto parsed = boost::urls::parse_absolute_uri(boost::core::string_view(url.data(), url.size()));
  if (!parsed) return bad(parsed.error().message());
  Endpoint e;
  if (parsed->scheme() == "https") {
    e.tls = true;
    e.port = 443;
  } else if (parsed->scheme() == "http") {
    e.tls = false;
    e.port = 80;
  } else {
    return bad("scheme must be http or https");
  }
  if (parsed->has_userinfo()) return bad("user info is not allowed");
  if (parsed->has_query() || parsed->has_fragment())
    return bad("query and fragment are not allowed");
  e.host = parsed->encoded_host_address();  // IPv6 without brackets
  if (e.host.empty()) return bad("no host");
  if (parsed->has_port()) {
    const auto port = parsed->port();
    unsigned value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || ptr != port.data() + port.size() || value == 0 || value > 65535)
      return bad("port must be 1-65535");
    e.port = static_cast<uint16_t>(value);
  }
  e.basePath = parsed->encoded_path();
  while (!e.basePath.empty() && e.basePath.back() == '/') e.basePath.pop_back();
  return e;
}

}  // namespace flotilla::net
