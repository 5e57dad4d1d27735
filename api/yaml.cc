#include "api/yaml.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <sstream>

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

// `budget` counts the JSON values still allowed: aliases make a short document expand into a huge
// one (the "billion laughs"), which go-yaml refuses as "excessive aliasing"; so does this.
// `depth` bounds the nesting: an alias inside the node its anchor names makes a cycle, which the
// budget alone would let recurse past the stack (found by fuzz_yaml).
constexpr size_t kMaxYamlDepth = 1000;
Result<json::value> convert(const YAML::Node& node, const std::string& path, size_t* budget,
                            size_t depth = 0) {
  if (depth > kMaxYamlDepth) {
    return badRequest("yaml: line " + std::to_string(node.Mark().line + 1) +
                      ": exceeded max depth of " + std::to_string(kMaxYamlDepth));
  }
  if (*budget == 0) {
    return badRequest("yaml: line " + std::to_string(node.Mark().line + 1) +
                      ": document contains excessive aliasing");
  }
  --*budget;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return json::value(nullptr);
    case YAML::NodeType::Scalar:
      // Tag "!" marks a quoted (non-plain) scalar; anything else was written plain.
      if (node.Tag() == "!") return json::value(node.Scalar());
      if (node.Tag() == "tag:yaml.org,2002:str") return json::value(node.Scalar());
      {
        json::value v = resolvePlain(node.Scalar());
        // 1e309 is a YAML float that JSON cannot carry (Go's yaml-to-JSON fails the same way).
        if (v.is_double() && !std::isfinite(v.get_double())) {
          return badRequest("yaml: line " + std::to_string(node.Mark().line + 1) +
                            ": number out of range: " + node.Scalar());
        }
        return v;
      }
    case YAML::NodeType::Sequence: {
      json::array arr;
      size_t i = 0;
      for (const auto& item : node) {
        auto v = convert(item, path + "[" + std::to_string(i++) + "]", budget, depth + 1);
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
        auto v = convert(kv.second, path.empty() ? key : path + "." + key, budget, depth + 1);
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

namespace {

// yaml-cpp 0.7 never consumes a flow entry (`,`) where a block node should start (`,`, `- a\n,`,
// `"a",`): LoadAll then returns empty documents for ever, growing memory until the process dies.
// A first pass over the documents' events finds where the parser stops moving forward.
class ProgressGuard : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> stuck;
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (started_ && mark.pos <= last_.pos) stuck = mark;
    started_ = true;
    last_ = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

 private:
  bool started_ = false;
  YAML::Mark last_;
};

// The byte offset of the first byte that is not part of well-formed UTF-8, npos when none.
// go-yaml refuses such input ("invalid leading UTF-8 octet"); yaml-cpp would pass the bytes through
// and print them back as different characters.
// YAML streams hold printable characters only (YAML 1.2 §5.1): no C0 control other than tab,
// line feed and carriage return, no DEL, no C1 control other than NEL (U+0085, UTF-8 C2 85).
// go-yaml refuses the rest ("control characters are not allowed"); yaml-cpp let them through and
// a NUL changed the document on a round trip (found by libFuzzer). `s` is valid UTF-8.
size_t controlCharacterAt(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
    if (c == 0xc2 && i + 1 < s.size()) {
      const auto next = static_cast<unsigned char>(s[i + 1]);
      if (next >= 0x80 && next <= 0x9f && next != 0x85) return i;
    }
  }
  return std::string_view::npos;
}

size_t invalidUtf8At(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      n = 1, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3, cp = c & 0x07;
    } else {
      return i;
    }
    for (size_t k = 1; k <= n; ++k) {
      if (i + k >= s.size()) return i;
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return std::string_view::npos;
}

std::optional<YAML::Mark> stuckAt(std::string_view text) {
  std::istringstream in{std::string(text)};
  YAML::Parser parser(in);
  ProgressGuard guard;
  while (!guard.stuck && parser.HandleNextDocument(guard)) {
  }
  return guard.stuck;
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
  if (const size_t bad = invalidUtf8At(text); bad != std::string_view::npos) {
    const auto line = std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(bad), '\n');
    return badRequest("yaml: line " + std::to_string(line + 1) + ": invalid UTF-8");
  }
  if (const size_t bad = controlCharacterAt(text); bad != std::string_view::npos) {
    const auto line = std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(bad), '\n');
    return badRequest("yaml: line " + std::to_string(line + 1) +
                      ": control characters are not allowed");
  }
  // YAML 1.2 §5.4: a line break is LF, CR LF or a lone CR, and is read as LF. yaml-cpp takes
  // a lone CR as content ("\r\r" was a two-character string that printed back as something
  // else; found by libFuzzer), so breaks are normalized first.
  std::string normalized;
  normalized.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\r') {
      normalized += text[i];
    } else if (i + 1 >= text.size() || text[i + 1] != '\n') {
      normalized += '\n';
    }
  }
  try {
    if (auto stuck = stuckAt(normalized)) {
      return badRequest("yaml: line " + std::to_string(stuck->line + 1) + ", column " +
                        std::to_string(stuck->column + 1) + ": did not find expected node content");
    }
    std::vector<YAML::Node> nodes = YAML::LoadAll(normalized);
    // Far more values than any real manifest of this size has, yet linear in it.
    size_t budget = 64 * text.size() + 10'000;
    int index = 0;
    for (const auto& node : nodes) {
      ++index;
      if (node.IsNull()) continue;
      auto v = convert(node, "", &budget);
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
