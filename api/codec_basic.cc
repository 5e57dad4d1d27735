// Non-template leaves of the codec: scalars, quantities, opaque JSON.
#include <boost/json/parse.hpp>

#include "api/codec_impl.h"

namespace flotilla::api::codec_detail {

std::string_view kindOf(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "boolean";
    case json::kind::int64:
    case json::kind::uint64:
      return "integer";
    case json::kind::double_:
      return "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "unknown";
}

void mismatch(const json::value& v, std::string_view expected, Decoder& d) {
  d.error("expected " + std::string(expected) + ", got " + std::string(kindOf(v)));
}

void decodeValue(const json::value& v, std::string& out, Decoder& d) {
  if (v.is_null()) {
    out.clear();
  } else if (v.is_string()) {
    out = v.get_string();
  } else {
    mismatch(v, "string", d);
  }
}

void decodeValue(const json::value& v, bool& out, Decoder& d) {
  if (v.is_null()) {
    out = false;
  } else if (v.is_bool()) {
    out = v.get_bool();
  } else {
    mismatch(v, "boolean", d);
  }
}

void decodeValue(const json::value& v, double& out, Decoder& d) {
  if (v.is_number()) {
    out = v.to_number<double>();
  } else if (v.is_null()) {
    out = 0;
  } else {
    mismatch(v, "number", d);
  }
}

// Quantities are strings on the wire, but Kubernetes also accepts plain JSON numbers (`cpu: 2`).
void decodeValue(const json::value& v, Quantity& out, Decoder& d) {
  std::string text;
  if (v.is_string()) {
    text = v.get_string();
  } else if (v.is_int64()) {
    text = std::to_string(v.get_int64());
  } else if (v.is_uint64()) {
    text = std::to_string(v.get_uint64());
  } else if (v.is_double()) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v.get_double());
    text.assign(buf, res.ptr);
  } else {
    return mismatch(v, "quantity (string or number)", d);
  }
  auto parsed = Quantity::parse(text);
  if (!parsed) return d.error(parsed.error().message);
  out = *parsed;
}

void decodeValue(const json::value& v, json::value& out, Decoder&) { out = v; }

void decodeValue(const json::value& v, json::object& out, Decoder& d) {
  if (v.is_null()) {
    out.clear();
  } else if (v.is_object()) {
    out = v.get_object();
  } else {
    mismatch(v, "object", d);
  }
}

json::value encodeValue(const std::string& v) { return json::value(v); }
json::value encodeValue(bool v) { return json::value(v); }
json::value encodeValue(double v) { return json::value(v); }
json::value encodeValue(const Quantity& v) { return json::value(v.str()); }
json::value encodeValue(const json::value& v) { return v; }
json::value encodeValue(const json::object& v) { return v; }

}  // namespace flotilla::api::codec_detail

namespace flotilla::api {

Result<boost::json::value> parseJson(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse_options options;
  options.max_depth = kMaxJsonDepth;  // deeper documents are rejected before the stack is at risk
  boost::json::value v = boost::json::parse(text, ec, {}, options);
  if (ec) {
    // Report where: count lines up to the point the parser stopped is not exposed by Boost.JSON,
    // so use a streaming parser to find the byte offset.
    boost::json::stream_parser p({}, options);
    size_t consumed = p.write_some(text.data(), text.size(), ec);
    if (!ec) p.finish(ec), consumed = text.size();
    size_t line = 1;
    size_t column = 1;
    for (size_t i = 0; i < consumed && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return badRequest("invalid JSON at line " + std::to_string(line) + ", column " +
                      std::to_string(column) + ": " + ec.message());
  }
  return v;
}

}  // namespace flotilla::api
