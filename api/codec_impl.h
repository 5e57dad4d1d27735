// The generic codec behind api/json_codec.h. Include only from api/codec_*.cc: it pulls in
// Boost.Describe and Boost.Mp11 and is instantiated once per kind there.
#pragma once

#include <algorithm>
#include <array>
#include <boost/describe.hpp>
#include <boost/json.hpp>
#include <boost/mp11/algorithm.hpp>
#include <charconv>
#include <concepts>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/json_codec.h"
#include "api/quantity.h"

namespace flotilla::api::codec_detail {

namespace json = boost::json;

// A JSON path being walked: "spec.placement.weights[2].weight". Kept as the steps taken and
// spelled out only for an error: every decoded field passes through here, and building the text
// for each was a measurable part of decoding. The names are views of the member names and of the
// keys of the object being decoded, which outlive the walk.
class Path {
 public:
  void pushField(std::string_view name) { steps_.push_back({Step::kField, name, 0}); }
  void pushIndex(size_t i) { steps_.push_back({Step::kIndex, {}, i}); }
  void pushKey(std::string_view key) { steps_.push_back({Step::kKey, key, 0}); }
  void pop() { steps_.pop_back(); }
  std::string str() const {
    std::string out;
    for (const auto& s : steps_) {
      switch (s.kind) {
        case Step::kField:
          if (!out.empty()) out += '.';
          out += s.name;
          break;
        case Step::kIndex:
          out += '[' + std::to_string(s.index) + ']';
          break;
        case Step::kKey:
          out += '[';
          out += s.name;
          out += ']';
          break;
      }
    }
    return out;
  }

 private:
  struct Step {
    enum Kind { kField, kIndex, kKey } kind;
    std::string_view name;
    size_t index;
  };
  std::vector<Step> steps_;
};

struct Decoder {
  Path path;
  FieldErrors errors;
  DecodeOptions options;
  void error(std::string message) { errors.push_back({path.str(), std::move(message)}); }
};

std::string_view kindOf(const json::value& v);
void mismatch(const json::value& v, std::string_view expected, Decoder& d);

// Member name -> JSON name: a trailing '_' escapes a C++ keyword.
constexpr std::string_view jsonName(const char* member) {
  std::string_view name(member);
  return name.ends_with('_') ? name.substr(0, name.size() - 1) : name;
}

template <class T>
concept Described = boost::describe::has_describe_members<T>::value;
template <class T>
concept KeepsUnknownFields = requires(T t) {
  { t.unknownFields } -> std::same_as<json::object&>;
};
template <class T>
concept Integer = std::integral<T> && !std::same_as<T, bool>;

// ---- declarations first, so the templates below find each other ----
void decodeValue(const json::value& v, std::string& out, Decoder& d);
void decodeValue(const json::value& v, bool& out, Decoder& d);
void decodeValue(const json::value& v, double& out, Decoder& d);
void decodeValue(const json::value& v, Quantity& out, Decoder& d);
void decodeValue(const json::value& v, json::value& out, Decoder& d);
void decodeValue(const json::value& v, json::object& out, Decoder& d);
template <Integer T>
void decodeValue(const json::value& v, T& out, Decoder& d);
template <class T>
void decodeValue(const json::value& v, std::optional<T>& out, Decoder& d);
template <class T>
void decodeValue(const json::value& v, std::vector<T>& out, Decoder& d);
template <class T>
void decodeValue(const json::value& v, std::map<std::string, T>& out, Decoder& d);
template <Described T>
void decodeValue(const json::value& v, T& out, Decoder& d);

json::value encodeValue(const std::string& v);
json::value encodeValue(bool v);
json::value encodeValue(double v);
json::value encodeValue(const Quantity& v);
json::value encodeValue(const json::value& v);
json::value encodeValue(const json::object& v);
template <Integer T>
json::value encodeValue(T v);
template <class T>
json::value encodeValue(const std::optional<T>& v);
template <class T>
json::value encodeValue(const std::vector<T>& v);
template <class T>
json::value encodeValue(const std::map<std::string, T>& v);
template <Described T>
json::value encodeValue(const T& v);

// Go `omitempty`: zero scalars and empty containers are left out; std::optional is present
// whenever it holds a value (that is its point).
inline bool omitted(const std::string& v) { return v.empty(); }
inline bool omitted(bool v) { return !v; }
inline bool omitted(double v) { return v == 0; }
inline bool omitted(const Quantity&) { return false; }
inline bool omitted(const json::value& v) { return v.is_null(); }
inline bool omitted(const json::object& v) { return v.empty(); }
template <Integer T>
bool omitted(T v) {
  return v == 0;
}
template <class T>
bool omitted(const std::optional<T>& v) {
  return !v.has_value();
}
template <class T>
bool omitted(const std::vector<T>& v) {
  return v.empty();
}
template <class T>
bool omitted(const std::map<std::string, T>& v) {
  return v.empty();
}
template <Described T>
bool omitted(const T&) {
  return false;  // decided after encoding: an empty object is left out
}

// ---- decoding ----
template <Integer T>
void decodeValue(const json::value& v, T& out, Decoder& d) {
  if (v.is_null()) {
    out = 0;
    return;
  }
  constexpr std::string_view kExpected =
      sizeof(T) <= 4 ? "expected integer (int32)" : "expected integer (int64)";
  if (v.is_int64()) {
    const int64_t x = v.get_int64();
    if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
        (x > 0 &&
         static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<T>::max()))) {
      d.error(std::string(kExpected) + ", got out-of-range value " + std::to_string(x));
      return;
    }
    out = static_cast<T>(x);
  } else if (v.is_uint64() &&
             v.get_uint64() <= static_cast<uint64_t>(std::numeric_limits<T>::max())) {
    out = static_cast<T>(v.get_uint64());
  } else if (v.is_uint64()) {
    d.error(std::string(kExpected) + ", got out-of-range value " + std::to_string(v.get_uint64()));
  } else {
    mismatch(v, "integer", d);
  }
}

template <class T>
void decodeValue(const json::value& v, std::optional<T>& out, Decoder& d) {
  if (v.is_null()) {
    out.reset();
    return;
  }
  out.emplace();
  decodeValue(v, *out, d);
}

template <class T>
void decodeValue(const json::value& v, std::vector<T>& out, Decoder& d) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_array()) return mismatch(v, "array", d);
  const auto& arr = v.get_array();
  out.resize(arr.size());
  for (size_t i = 0; i < arr.size(); ++i) {
    d.path.pushIndex(i);
    decodeValue(arr[i], out[i], d);
    d.path.pop();
  }
}

template <class T>
void decodeValue(const json::value& v, std::map<std::string, T>& out, Decoder& d) {
  out.clear();
  if (v.is_null()) return;
  if (!v.is_object()) return mismatch(v, "object", d);
  for (const auto& kv : v.get_object()) {
    d.path.pushKey(kv.key());
    decodeValue(kv.value(), out[std::string(kv.key())], d);
    d.path.pop();
  }
}

// A kind's JSON field names, sorted, with each one's position among the described members: built
// once per type, so decoding an object is one pass over its keys (a binary search each) instead of
// a search of the object for every member and of the members for every key (those searches'
// string compares were the largest part of the operator's decoding; docs/performance.md).
template <Described T>
class FieldTable {
 public:
  using Members = boost::describe::describe_members<T, boost::describe::mod_public>;
  static constexpr size_t kSize = boost::mp11::mp_size<Members>::value;
  static constexpr size_t kUnknown = static_cast<size_t>(-1);

  static const FieldTable& get() {
    static const FieldTable table;
    return table;
  }
  size_t find(std::string_view key) const {
    auto it = std::lower_bound(sorted_.begin(), sorted_.end(), key,
                               [](const Entry& e, std::string_view k) { return e.name < k; });
    return it != sorted_.end() && it->name == key ? it->index : kUnknown;
  }

 private:
  struct Entry {
    std::string_view name;
    size_t index;
  };
  FieldTable() {
    size_t i = 0;
    boost::mp11::mp_for_each<Members>([&](auto member) {
      sorted_[i] = Entry{jsonName(member.name), i}, ++i;
    });
    std::sort(sorted_.begin(), sorted_.end(),
              [](const Entry& a, const Entry& b) { return a.name < b.name; });
  }
  std::array<Entry, kSize> sorted_{};
};

template <Described T>
void decodeMembers(const json::object& obj, T& out, Decoder& d);

template <Described T>
void decodeValue(const json::value& v, T& out, Decoder& d) {
  if (v.is_null()) return;
  if (!v.is_object()) return mismatch(v, "object", d);
  decodeMembers(v.get_object(), out, d);
}

template <Described T>
void decodeMembers(const json::object& obj, T& out, Decoder& d) {
  using Table = FieldTable<T>;
  const Table& table = Table::get();
  // Which key holds each member (nullptr: absent), and whether any key is not a member.
  std::array<const json::value*, std::max<size_t>(Table::kSize, 1)> found{};
  bool unknown = false;
  for (const auto& kv : obj) {
    const size_t i = table.find(kv.key());
    if (i == Table::kUnknown) {
      unknown = true;
    } else {
      found[i] = &kv.value();
    }
  }
  // Members in declaration order, then the unknown keys in the object's order: the order in
  // which errors are reported.
  size_t i = 0;
  boost::mp11::mp_for_each<typename Table::Members>([&](auto member) {
    if (const json::value* v = found[i++]) {
      const std::string_view name = jsonName(member.name);
      d.path.pushField(name);
      decodeValue(*v, out.*member.pointer, d);
      d.path.pop();
    }
  });
  if (!unknown) return;
  for (const auto& kv : obj) {
    if (table.find(kv.key()) != Table::kUnknown) continue;
    if constexpr (KeepsUnknownFields<T>) {
      out.unknownFields[kv.key()] = kv.value();
    } else if (d.options.rejectUnknownFields) {
      d.path.pushField(kv.key());
      d.error("unknown field \"" + std::string(kv.key()) + "\"");
      d.path.pop();
    }
  }
}

// ---- encoding ----
template <Integer T>
json::value encodeValue(T v) {
  return json::value(static_cast<int64_t>(v));
}

template <class T>
json::value encodeValue(const std::optional<T>& v) {
  return v ? encodeValue(*v) : json::value(nullptr);
}

template <class T>
json::value encodeValue(const std::vector<T>& v) {
  json::array arr;
  arr.reserve(v.size());
  for (const auto& item : v) arr.push_back(encodeValue(item));
  return arr;
}

template <class T>
json::value encodeValue(const std::map<std::string, T>& v) {
  json::object obj;
  obj.reserve(v.size());
  for (const auto& [key, item] : v) obj[key] = encodeValue(item);
  return obj;
}

template <Described T>
json::value encodeValue(const T& v) {
  json::object obj;
  // Room for every member at once: growing the object field by field moved its entries each time.
  size_t room = boost::mp11::mp_size<
      boost::describe::describe_members<T, boost::describe::mod_public>>::value;
  if constexpr (KeepsUnknownFields<T>) room += v.unknownFields.size();
  obj.reserve(room);
  boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_public>>(
      [&](auto member) {
        const auto& field = v.*member.pointer;
        if (omitted(field)) {
          // Left out only when leaving it out decodes back to it: a field whose default is not
          // empty (apiVersion, kind) is written even when empty, or "" would come back as "v1"
          // (found by libFuzzer's round-trip check).
          static const T kDefaults{};
          if (omitted(kDefaults.*member.pointer)) return;
        }
        json::value encoded = encodeValue(field);
        using Field = std::remove_cvref_t<decltype(field)>;
        if constexpr (Described<Field>) {
          if (encoded.get_object().empty()) return;
        }
        obj[jsonName(member.name)] = std::move(encoded);
      });
  if constexpr (KeepsUnknownFields<T>) {
    for (const auto& kv : v.unknownFields) {
      if (!obj.contains(kv.key())) obj[kv.key()] = kv.value();
    }
  }
  return obj;
}

}  // namespace flotilla::api::codec_detail

namespace flotilla::api {

template <class T>
FieldErrors decodeInto(const boost::json::value& json, T& out, const DecodeOptions& options) {
  codec_detail::Decoder d;
  d.options = options;
  codec_detail::decodeValue(json, out, d);
  return std::move(d.errors);
}

template <class T>
FieldErrors decodeInto(const boost::json::object& json, T& out, const DecodeOptions& options) {
  codec_detail::Decoder d;
  d.options = options;
  if constexpr (codec_detail::Described<T>) {
    codec_detail::decodeMembers(json, out, d);
  } else {
    codec_detail::decodeValue(boost::json::value(json), out, d);
  }
  return std::move(d.errors);
}

template <class T>
boost::json::value encode(const T& value) {
  return codec_detail::encodeValue(value);
}

}  // namespace flotilla::api

// Explicit instantiation of the public entry points for one type.
#define FLOTILLA_CODEC_INSTANTIATE(T)                                         \
  template ::flotilla::api::FieldErrors flotilla::api::decodeInto<T>(         \
      const boost::json::value&, T&, const ::flotilla::api::DecodeOptions&);  \
  template ::flotilla::api::FieldErrors flotilla::api::decodeInto<T>(         \
      const boost::json::object&, T&, const ::flotilla::api::DecodeOptions&); \
  template boost::json::value flotilla::api::encode<T>(const T&)
