// Helpers for api/ tests: build typed objects from YAML literals.
#pragma once

#include <gtest/gtest.h>

#include <string_view>

#include "api/json_codec.h"
#include "api/yaml.h"

namespace flotilla::api::testing {

template <class T>
T fromYaml(std::string_view yaml) {
  auto docs = parseManifests(yaml);
  EXPECT_TRUE(docs.has_value()) << (docs ? "" : docs.error().message);
  if (!docs || docs->empty()) return T{};
  auto decoded = decode<T>(docs->front().value, {.rejectUnknownFields = true});
  EXPECT_TRUE(decoded.has_value()) << (decoded ? "" : decoded.error().str());
  return decoded ? *decoded : T{};
}

// The field paths of a list of errors, in order: what most assertions compare.
inline std::vector<std::string> fields(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.field);
  return out;
}

}  // namespace flotilla::api::testing
