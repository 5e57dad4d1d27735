// Decoding API server errors into typed values: a `Status` body gives the reason, message and
// field causes; a body that is not a Status (a proxy's HTML page, an empty 503) still maps to the
// reason kube-apiserver would have used for that code.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "api/result.h"
#include "kube/net/http_types.h"

namespace flotilla::kube {

// The error for a non-2xx response.
api::Error errorFromResponse(const net::HttpResponse& response);

// The Kubernetes reason kube-apiserver uses for an HTTP status code (422 → Invalid, ...).
const char* reasonForCode(int code);

// How long the server asked us to wait: the Retry-After header (seconds), else the Status body's
// details.retryAfterSeconds. nullopt when neither is present.
std::optional<std::chrono::seconds> retryAfter(const net::HttpResponse& response);

inline bool isReason(const api::Error& e, std::string_view reason) { return e.reason == reason; }
inline bool isNotFound(const api::Error& e) { return isReason(e, api::reason::kNotFound); }
inline bool isAlreadyExists(const api::Error& e) {
  return isReason(e, api::reason::kAlreadyExists);
}
inline bool isConflict(const api::Error& e) { return isReason(e, api::reason::kConflict); }
// 410: the requested resourceVersion is too old (watch/list) and the client must relist.
inline bool isGone(const api::Error& e) {
  return e.code == 410 || isReason(e, api::reason::kGone) || e.reason == "Expired";
}
// Worth retrying: our deadline, a broken connection, overload, or a server-side timeout.
bool isTransient(const api::Error& e);

}  // namespace flotilla::kube
