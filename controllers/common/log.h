// Operator logging on spdlog: a line per message on stderr, as text or (--log-format=json) one JSON
// object per line with the controller and the object key as their own fields, so a log pipeline
// can filter by object. Messages of the client runtime (plain spdlog calls) carry only "msg".
#pragma once

#include <spdlog/common.h>

#include <string_view>

namespace flotilla::controllers::log {

enum class Format { kText, kJson };

// Replaces the default logger's formatter and level. Called once by main before threads start.
void setup(Format format, spdlog::level::level_enum level);

// A message about one object ("ns/name", or a cluster name).
void info(std::string_view controller, std::string_view key, std::string_view message);
void warn(std::string_view controller, std::string_view key, std::string_view message);
void error(std::string_view controller, std::string_view key, std::string_view message);
void debug(std::string_view controller, std::string_view key, std::string_view message);

// JSON string escaping (quotes, backslashes, control characters), for the formatter and tests.
void appendJsonString(std::string& out, std::string_view text);

}  // namespace flotilla::controllers::log
