// JSON encoding and decoding of every API struct (Boost.JSON).
//
// Decoding collects every problem with its JSON path
// (`spec.placement.replicaScheduling.weights[2].weight: expected integer, got string`) instead of
// stopping at the first. The template machinery lives in api/codec_impl.h and is instantiated for
// each kind in api/codec_*.cc, so including this header stays cheap.
#pragma once

#include <boost/json/value.hpp>
#include <concepts>

#include "api/result.h"

namespace flotilla::api {

struct DecodeOptions {
  // Report fields the type does not know (a typo such as `minGroup`). Types that keep
  // `unknownFields` (objects Flotilla does not own) accept anything regardless.
  bool rejectUnknownFields = false;
};

template <class T>
FieldErrors decodeInto(const boost::json::value& json, T& out, const DecodeOptions& options = {});
// The same from an object, without copying it into a value first (cached objects are decoded on
// every reconcile: the copy was most of the cost).
template <class T>
FieldErrors decodeInto(const boost::json::object& json, T& out, const DecodeOptions& options = {});

template <class T>
boost::json::value encode(const T& value);

template <class T, class Json>
requires std::same_as<Json, boost::json::value> || std::same_as<Json, boost::json::object> Result<T>
decode(const Json& json, const DecodeOptions& options = {}) {
  T out;
  FieldErrors errors = decodeInto(json, out, options);
  if (!errors.empty()) {
    std::string message = errors.front().str();
    if (errors.size() > 1) message += " (and " + std::to_string(errors.size() - 1) + " more)";
    return invalid(std::move(message), std::move(errors));
  }
  return out;
}

// How deep JSON may nest wherever Flotilla reads it (its own parser and every client read). Boost's
// default of 32 would refuse objects a real API server stores (FederatedDeployment templates keep
// unknown fields), and a LIST or watch that cannot be read stalls a whole informer.
inline constexpr std::size_t kMaxJsonDepth = 1000;

// Parses JSON text; the error names the line and column.
Result<boost::json::value> parseJson(std::string_view text);

}  // namespace flotilla::api
