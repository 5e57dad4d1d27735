// YAML <-> JSON, as kubectl sees manifests: multi-document YAML (or a JSON document) in, JSON
// values out. Scalars resolve like sigs.k8s.io/yaml (YAML 1.1: `yes`/`on` are booleans, `~` is
// null); quoted scalars are always strings.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace flotilla::api {

struct ManifestDocument {
  boost::json::value value;
  int index = 0;  // 1-based position of the document in the stream
  int line = 0;   // 1-based line where it starts
};

// Empty documents (`---` alone, comments only) are skipped. A syntax error names line and column.
Result<std::vector<ManifestDocument>> parseManifests(std::string_view text);

// YAML text of a JSON value, block style, with strings quoted whenever a plain scalar would
// read back as something else.
std::string toYaml(const boost::json::value& value);

}  // namespace flotilla::api
