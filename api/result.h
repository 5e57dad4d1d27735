// Result<T>: expected failures (API, I/O, parsing, validation) are values, not exceptions.
#pragma once

#include <boost/system/result.hpp>
#include <iosfwd>
#include <string>
#include <vector>

namespace flotilla::api {

// One problem with one field, in Kubernetes' field-path notation
// (`spec.placement.spreadConstraints[0].maxGroups`). An empty field means "the whole object".
struct FieldError {
  std::string field;
  std::string message;

  std::string str() const { return field.empty() ? message : field + ": " + message; }
  bool operator==(const FieldError&) const = default;
};
using FieldErrors = std::vector<FieldError>;

// Kubernetes Status reasons (metav1.StatusReason) we produce or must recognise.
namespace reason {
inline constexpr const char* kBadRequest = "BadRequest";
inline constexpr const char* kInvalid = "Invalid";
inline constexpr const char* kNotFound = "NotFound";
inline constexpr const char* kAlreadyExists = "AlreadyExists";
inline constexpr const char* kConflict = "Conflict";
inline constexpr const char* kGone = "Gone";
inline constexpr const char* kForbidden = "Forbidden";
inline constexpr const char* kUnauthorized = "Unauthorized";
inline constexpr const char* kTooManyRequests = "TooManyRequests";
inline constexpr const char* kTimeout = "Timeout";
inline constexpr const char* kInternalError = "InternalError";
inline constexpr const char* kRequestEntityTooLarge = "RequestEntityTooLarge";
inline constexpr const char* kServiceUnavailable = "ServiceUnavailable";
inline constexpr const char* kMethodNotAllowed = "MethodNotAllowed";
inline constexpr const char* kUnsupportedMediaType = "UnsupportedMediaType";
inline constexpr const char* kNotAcceptable = "NotAcceptable";
// Not a Kubernetes reason: the request never got an HTTP answer (refused, reset, TLS failure,
// DNS). code is 0. Timeouts of our own deadline use kTimeout with code 0.
inline constexpr const char* kTransport = "TransportError";
}  // namespace reason

// A typed error carrying the Kubernetes Status reason and HTTP code, plus field causes.
struct Error {
  std::string reason;  // one of api::reason::k*
  int code = 0;        // HTTP status code, 0 when not from/for HTTP
  std::string message;
  FieldErrors causes;

  std::string str() const;
};

// For test output (gmock and boost::system::result print the values they compare).
std::ostream& operator<<(std::ostream& os, const Error& e);

Error badRequest(std::string message);
Error invalid(std::string message, FieldErrors causes);

// boost::system::result needs to know how to throw an Error if .value() is called on a failure;
// that is a programming error, so it becomes std::runtime_error.
[[noreturn]] void throw_exception_from_error(const Error& e, const boost::source_location& loc);

template <class T>
using Result = boost::system::result<T, Error>;

// A string is also convertible to Error (its first member), so Result<std::string> needs the value
// spelled out.
inline Result<std::string> okString(std::string value) {
  return Result<std::string>(boost::system::in_place_value, std::move(value));
}

}  // namespace flotilla::api
