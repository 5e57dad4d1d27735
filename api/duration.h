// Go duration strings ("90s", "1m30s", "1.5h", "300ms"), as metav1.Duration accepts them.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "api/result.h"

namespace flotilla::api {

using Duration = std::chrono::nanoseconds;

Result<Duration> parseDuration(std::string_view text);
// Go's time.Duration.String(): "1m30s", "500ms", "0s".
std::string formatDuration(Duration d);

}  // namespace flotilla::api
