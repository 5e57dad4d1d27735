#include "kube/client/status_error.h"

#include <boost/json.hpp>
#include <charconv>

#include "api/json_codec.h"

namespace flotilla::kube {
namespace json = boost::json;

const char* reasonForCode(int code) {
  switch (code) {
    case 400:
      return api::reason::kBadRequest;
    case 401:
      return api::reason::kUnauthorized;
    case 403:
      return api::reason::kForbidden;
    case 404:
      return api::reason::kNotFound;
    case 405:
      return api::reason::kMethodNotAllowed;
    case 406:
      return api::reason::kNotAcceptable;
    case 409:
      return api::reason::kConflict;
    case 410:
      return api::reason::kGone;
    case 413:
      return api::reason::kRequestEntityTooLarge;
    case 415:
      return api::reason::kUnsupportedMediaType;
    case 422:
      return api::reason::kInvalid;
    case 429:
      return api::reason::kTooManyRequests;
    case 503:
      return api::reason::kServiceUnavailable;
    case 504:
      return api::reason::kTimeout;
    default:
      return code >= 500 ? api::reason::kInternalError : api::reason::kBadRequest;
  }
}

namespace {

const json::object* statusBody(const net::HttpResponse& response, json::value& storage) {
  boost::system::error_code ec;
  json::parse_options deep;
  deep.max_depth = api::kMaxJsonDepth;
  storage = json::parse(response.body, ec, {}, deep);
  if (ec || !storage.is_object()) return nullptr;
  const auto& o = storage.as_object();
  const auto* kind = o.if_contains("kind");
  if (!kind || !kind->is_string() || kind->as_string() != "Status") return nullptr;
  return &o;
}

std::string stringAt(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace

api::Error errorFromResponse(const net::HttpResponse& response) {
  api::Error error;
  error.code = response.status;
  json::value storage;
  if (const auto* status = statusBody(response, storage)) {
    error.reason = stringAt(*status, "reason");
    error.message = stringAt(*status, "message");
    if (const auto* code = status->if_contains("code"); code && code->is_int64())
      error.code = static_cast<int>(code->as_int64());
    if (const auto* details = status->if_contains("details"); details && details->is_object()) {
      if (const auto* causes = details->as_object().if_contains("causes");
          causes && causes->is_array()) {
        for (const auto& cause : causes->as_array()) {
          if (!cause.is_object()) continue;
          error.causes.push_back(
              {stringAt(cause.as_object(), "field"), stringAt(cause.as_object(), "message")});
        }
      }
    }
  }
  // A server's words end up in conditions and Events: at most 1 KiB of them (docs/security.md,
  // L2: a member could otherwise fill the host's objects with its messages).
  constexpr size_t kMaxMessage = 1024;
  if (error.message.size() > kMaxMessage) {
    size_t cut = kMaxMessage;
    while (cut > 0 && (static_cast<unsigned char>(error.message[cut]) & 0xC0) == 0x80) --cut;
    error.message = error.message.substr(0, cut) + "... (" +
                    std::to_string(error.message.size() - cut) + " more bytes)";
  }
  for (auto& cause : error.causes) {
    if (cause.message.size() > kMaxMessage) cause.message = cause.message.substr(0, kMaxMessage);
  }
  if (error.causes.size() > 100) error.causes.resize(100);
  // Status bodies may leave the reason empty ("Unknown"); the code still says what happened.
  if (error.reason.empty() || error.reason == "Unknown") error.reason = reasonForCode(error.code);
  if (error.message.empty()) {
    std::string excerpt = response.body.substr(0, 200);
    error.message = "the server responded with HTTP " + std::to_string(response.status) +
                    (excerpt.empty() ? "" : ": " + excerpt);
  }
  return error;
}

std::optional<std::chrono::seconds> retryAfter(const net::HttpResponse& response) {
  if (auto header = response.header("Retry-After"); !header.empty()) {
    long seconds = 0;
    auto [end, ec] = std::from_chars(header.data(), header.data() + header.size(), seconds);
    if (ec == std::errc() && end == header.data() + header.size() && seconds >= 0)
      return std::chrono::seconds(seconds);
  }
  json::value storage;
  if (const auto* status = statusBody(response, storage)) {
    if (const auto* details = status->if_contains("details"); details && details->is_object()) {
      if (const auto* s = details->as_object().if_contains("retryAfterSeconds");
          s && s->is_int64() && s->as_int64() >= 0)
        return std::chrono::seconds(s->as_int64());
    }
  }
  return std::nullopt;
}

bool isTransient(const api::Error& e) {
  return e.reason == api::reason::kTransport || e.reason == api::reason::kTimeout ||
         e.reason == api::reason::kTooManyRequests ||
         e.reason == api::reason::kServiceUnavailable || e.code == 502 || e.code == 503 ||
         e.code == 504 || e.code == 429;
}

}  // namespace flotilla::kube
