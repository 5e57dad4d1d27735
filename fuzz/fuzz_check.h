// Helpers shared by the fuzz targets. A target reports a defect by aborting: with libFuzzer that
// is a crash with the input saved, with fuzz/driver_main.cc the input is written to a file.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

// A property every input must keep (a round trip, a bound on a status code).
#define FUZZ_CHECK(cond, what)                                                                  \
  do {                                                                                          \
    if (!(cond)) {                                                                              \
      const std::string what_(what);                                                            \
      std::fprintf(stderr, "fuzz check failed at %s:%d: %s: %.*s\n", __FILE__, __LINE__, #cond, \
                   static_cast<int>(what_.size()), what_.data());                               \
      std::abort();                                                                             \
    }                                                                                           \
  } while (0)

namespace flotilla::fuzz {

inline std::string_view text(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Splits at the first `sep`: the rest is empty when there is none.
inline std::pair<std::string_view, std::string_view> split(std::string_view s,
                                                           std::string_view sep) {
  const auto at = s.find(sep);
  if (at == std::string_view::npos) return {s, {}};
  return {s.substr(0, at), s.substr(at + sep.size())};
}

}  // namespace flotilla::fuzz
