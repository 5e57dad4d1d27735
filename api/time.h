// RFC 3339 timestamps as Kubernetes writes them (metav1.Time: "2026-11-01T10:00:00Z").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace flotilla::api {

using Clock = std::chrono::system_clock;

// Accepts "Z" or "+hh:mm"/"-hh:mm" offsets and fractional seconds; nullopt when malformed.
std::optional<Clock::time_point> parseRfc3339(std::string_view text);
// "2026-11-01T10:00:00Z" (seconds precision, UTC), as metav1.Time marshals.
std::string formatRfc3339(Clock::time_point t);

}  // namespace flotilla::api
