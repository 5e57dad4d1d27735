#include "api/yaml.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <boost/json.hpp>
#include <cerrno>
#include <cstdlib>

#include "api/json_codec.h"

namespace flotilla::api {
namespace {

namespace json = boost::json;

bool isNull(const std::string& s) { return s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::optional<bool> asBool(const std::string& s) {
  static const char* kTrue[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
                                "True", "TRUE", "on",  "On",  "ON"};
  static const char* kFalse[] = {"n",     "N",     "no",  "No",  "NO", "false",
                                 "False", "FALSE", "off", "Off", "OFF"};
  for (const char* t : kTrue) {
    if (s == t) return true;
  }
  for (const char* f : kFalse) {
    if (s == f) return false;
  }
  return std::nullopt;
}

// The YAML float pattern [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool isYamlFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  } else {
    if (digits() == 0) return false;
    if (i < s.size() && s[i] == '.') {
      ++i;
      digits();
    }
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

// Resolves a plain (unquoted) scalar the way YAML 1.1 / sigs.k8s.io/yaml does.
json::value resolvePlain(const std::string& text) {
  if (text.empty() || isNull(text)) return nullptr;
  if (auto b = asBool(text)) return *b;
  // Numbers as go-yaml v2 reads them: underscores dropped, then strconv.ParseInt(s, 0, 64)
  // (decimal, 0x hex, 0 octal), then the YAML float pattern.
  std::string s = text;
  std::erase(s, '_');
  if (s.empty()) return json::value(text);
  if (s.find_first_not_of("+-0123456789abcdefABCDEFxX") == std::string::npos) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 0);
    if (end == s.c_str() + s.size()) {
      if (errno == 0) return json::value(static_cast<int64_t>(v));
      errno = 0;
      unsigned long long u = std::strtoull(s.c_str(), &end, 0);
      if (errno == 0 && s[0] != '-') return json::value(static_cast<uint64_t>(u));
      return json::value(text);  // too large for any integer type: keep the text
    }
  }
  if (isYamlFloat(s)) return json::value(std::strtod(s.c_str(), nullptr));
  return json::value(text);
}

Result<json::value> convert(const YAML::Node& node, const std::string& path) {
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return json::value(nullptr);
    case YAML::NodeType::Scalar:
      // Tag "!" marks a quoted (non-plain) scalar; anything else was written plain.
      if (node.Tag() == "!") return json::value(node.Scalar());
      if (node.Tag() == "tag:yaml.org,2002:str") return json::value(node.Scalar());
      return resolvePlain(node.Scalar());
    case YAML::NodeType::Sequence: {
      json::array arr;
      size_t i = 0;
      for (const auto& item : node) {
        auto v = convert(item, path + "[" + std::to_string(i++) + "]");
        if (!v) return v.error();
        arr.push_back(std::move(*v));
      }
      return json::value(std::move(arr));
    }
    case YAML::NodeType::Map: {
      json::object obj;
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return badRequest("yaml: line " + std::to_string(kv.first.Mark().line + 1) +
                            ": mapping keys must be scalars");
        }
        const std::string& key = kv.first.Scalar();
        if (obj.contains(key)) {
          return badRequest("yaml: line " + std::to_string(kv.first.Mark().line + 1) +
                            ": duplicate key \"" + key + "\"" +
                            (path.empty() ? "" : " in " + path));
        }
        auto v = convert(kv.second, path.empty() ? key : path + "." + key);
        if (!v) return v.error();
        obj[key] = std::move(*v);
      }
      return json::value(std::move(obj));
    }
  }
  return json::value(nullptr);
}

bool startsAsJson(std::string_view text) {
  for (char c : text) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    return c == '{' || c == '[';
  }
  return false;
}

bool needsQuotes(const std::string& s) {
  if (s.empty()) return true;
  if (!resolvePlain(s).is_string()) return true;  // would read back as null/bool/number
  // Indicators and whitespace that a plain scalar cannot start with or contain.
  static const std::string kStart = "-?:,[]{}#&*!|>'\"%@` \t";
  if (kStart.find(s.front()) != std::string::npos || s.back() == ' ') return true;
  return s.find(": ") != std::string::npos || s.find(" #") != std::string::npos ||
         s.find('\n') != std::string::npos || s.back() == ':';
}

void emit(YAML::Emitter& out, const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      out << YAML::Null;
      break;
    case json::kind::bool_:
      out << (v.get_bool() ? "true" : "false");
      break;
    case json::kind::int64:
      out << v.get_int64();
      break;
    case json::kind::uint64:
      out << v.get_uint64();
      break;
    case json::kind::double_:
      out << json::serialize(v);
      break;
    case json::kind::string: {
      std::string s(v.get_string());
      if (needsQuotes(s)) out << YAML::DoubleQuoted;
      out << s;
      break;
    }
    case json::kind::array:
      if (v.get_array().empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        break;
      }
      out << YAML::BeginSeq;
      for (const auto& item : v.get_array()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case json::kind::object:
      if (v.get_object().empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        break;
      }
      out << YAML::BeginMap;
      for (const auto& kv : v.get_object()) {
        std::string key(kv.key());
        out << YAML::Key;
        if (needsQuotes(key)) out << YAML::DoubleQuoted;
        out << key << YAML::Value;
        emit(out, kv.value());
      }
      out << YAML::EndMap;
      break;
  }
}

}  // namespace

Result<std::vector<ManifestDocument>> parseManifests(std::string_view text) {
  std::vector<ManifestDocument> docs;
  if (startsAsJson(text)) {
    auto v = parseJson(text);
    if (!v) return v.error();
    docs.push_back({std::move(*v), 1, 1});
    return docs;
  }
  try {
    std::vector<YAML::Node> nodes = YAML::LoadAll(std::string(text));
    int index = 0;
    for (const auto& node : nodes) {
      ++index;
      if (node.IsNull()) continue;
      auto v = convert(node, "");
      if (!v) return v.error();
      docs.push_back({std::move(*v), index, node.Mark().line + 1});
    }
  } catch (const YAML::DeepRecursion& e) {
    return badRequest("yaml: line " + std::to_string(e.mark.line + 1) +
                      ": document is nested too deeply");
  } catch (const YAML::Exception& e) {
    return badRequest("yaml: line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": " + e.msg);
  }
  return docs;
}

std::string toYaml(const json::value& value) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::Block;
  emit(out, value);
  return std::string(out.c_str()) + "\n";
}

}  // namespace flotilla::api
