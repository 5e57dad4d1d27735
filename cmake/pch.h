// The headers nearly every translation unit parses, precompiled once per build (CMakeLists.txt,
// FLOTILLA_PCH; docs/development.md, "Build time"). Parsing them took about half of a typical
// file's compile time. Only widely used, stable headers belong here: a change to this file
// rebuilds everything.
#pragma once

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

// Not Asio: its headers give every file that includes them static references to error
// categories compiled in flotilla_net (kube/net/asio_impl.cc), which programs that do not link
// flotilla_net (the API library's tests, the harness peers) could not resolve.
