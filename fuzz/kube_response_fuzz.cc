// What any API server answers to the client runtime: a status code, headers and a body that may be
// a Status, an object, HTML from a proxy or garbage. The first two bytes choose the status code
// and a Retry-After header; the error built from it is always usable.
#include "fuzz/fuzz_check.h"
#include "kube/client/status_error.h"

namespace kube = flotilla::kube;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  static constexpr int kCodes[] = {200, 201, 400, 401, 403, 404, 409, 410, 413, 415,
                                   422, 429, 500, 502, 503, 504, 0,   302, 100, 599};
  flotilla::net::HttpResponse response;
  response.status = kCodes[data[0] % std::size(kCodes)];
  const auto [retry, body] = flotilla::fuzz::split(flotilla::fuzz::text(data + 1, size - 1), "\n");
  if (data[1] & 1) response.headers.push_back({"Retry-After", std::string(retry)});
  response.body = std::string(body);
  auto error = kube::errorFromResponse(response);
  (void)kube::isTransient(error);
  (void)kube::retryAfter(response);
  return 0;
}
