// Reading a command's input file (or stdin for "-") with a size limit.
#pragma once

#include <boost/json/fwd.hpp>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::cli {

// Manifests and planner inputs beyond this are not manifests: refuse rather than exhaust memory.
inline constexpr size_t kMaxInputBytes = size_t{16} * 1024 * 1024;

api::Result<std::string> readInput(const std::string& path, std::istream& in);

// Reads each of `files` ("-": `in`) as YAML or JSON manifests and gives every document to
// `collect`, which returns "" or what is wrong with it. The first problem is printed to `err`
// ("error: FILE (document N): ...") and the answer is false.
bool readManifests(const std::vector<std::string>& files, std::istream& in, std::ostream& err,
                   const std::function<std::string(const boost::json::value&)>& collect);

}  // namespace flotilla::cli
