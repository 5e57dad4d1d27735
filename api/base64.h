// Standard base64 (RFC 4648, with padding) as Kubernetes uses it for Secret data, caBundle and
// kubeconfig "-data" fields.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace flotilla::api {

std::string base64Encode(std::string_view data);
// nullopt unless `text` is canonical padded base64 (what Go's StdEncoding accepts).
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace flotilla::api
