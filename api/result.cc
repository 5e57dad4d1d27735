#include "api/result.h"

#include <ostream>
#include <stdexcept>

namespace flotilla::api {

std::ostream& operator<<(std::ostream& os, const Error& e) { return os << e.str(); }

std::string Error::str() const {
  std::string out = message;
  for (const auto& cause : causes) {
    out += "\n  " + cause.str();
  }
  return out;
}

Error badRequest(std::string message) {
  return Error{reason::kBadRequest, 400, std::move(message), {}};
}

Error invalid(std::string message, FieldErrors causes) {
  return Error{reason::kInvalid, 422, std::move(message), std::move(causes)};
}

void throw_exception_from_error(const Error& e, const boost::source_location&) {
  throw std::runtime_error(e.reason + ": " + e.str());
}

}  // namespace flotilla::api
