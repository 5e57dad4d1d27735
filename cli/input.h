// Reading a command's input file (or stdin for "-") with a size limit.
#pragma once

#include <iosfwd>
#include <string>

#include "api/result.h"

namespace flotilla::cli {

// Manifests and planner inputs beyond this are not manifests: refuse rather than exhaust memory.
inline constexpr size_t kMaxInputBytes = size_t{16} * 1024 * 1024;

api::Result<std::string> readInput(const std::string& path, std::istream& in);

}  // namespace flotilla::cli
