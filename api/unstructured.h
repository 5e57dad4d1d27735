// Reading and editing objects of any kind as plain JSON (what client-go calls unstructured):
// the few accessors every kind-agnostic piece of Flotilla needs, in one place.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace flotilla::api::unstructured {

using Path = std::initializer_list<std::string_view>;

// The value at `path` ({"spec", "replicas"}), or null when a step is missing or not an object.
const boost::json::value* find(const boost::json::object& o, Path path);
const boost::json::object* findObject(const boost::json::object& o, Path path);
boost::json::object* findObject(boost::json::object& o, Path path);
const boost::json::array* findArray(const boost::json::object& o, Path path);
// The string at `path`, or `fallback` when it is missing or not a string.
std::string stringAt(const boost::json::object& o, Path path, std::string_view fallback = "");
// The integer at `path` (a JSON number with an integral value), or nullopt.
std::optional<int64_t> intAt(const boost::json::object& o, Path path);

// The object at `path`, created (and any non-object on the way replaced) when missing.
boost::json::object& ensureObject(boost::json::object& o, Path path);
// Removes the last key of `path`; true when there was one. An object emptied by it stays.
bool erase(boost::json::object& o, Path path);

// "apps/v1" -> "apps"; "v1" -> "" (the core group).
std::string_view groupOf(std::string_view apiVersion);

// The condition of `type` in status.conditions, or null.
const boost::json::object* condition(const boost::json::object& o, std::string_view type);

}  // namespace flotilla::api::unstructured
