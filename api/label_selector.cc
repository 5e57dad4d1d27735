#include "api/label_selector.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "api/names.h"

namespace flotilla::api {
namespace {

bool parseInt(std::string_view s, int64_t* out) {
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

bool isNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// Label values and the name part of keys: <=63 chars, alphanumeric at both ends, [-_.] inside.
bool isLabelName(std::string_view s, bool allowEmpty) {
  if (s.empty()) return allowEmpty;
  if (s.size() > 63) return false;
  if (!std::isalnum(static_cast<unsigned char>(s.front())) ||
      !std::isalnum(static_cast<unsigned char>(s.back()))) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), isNameChar);
}

}  // namespace

bool isQualifiedName(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return isLabelName(key, false);
  std::string_view prefix = key.substr(0, slash);
  return isDns1123Subdomain(prefix) && isLabelName(key.substr(slash + 1), false);
}

bool isLabelValue(std::string_view value) { return isLabelName(value, true); }

bool Requirement::matches(const Labels& labels) const {
  auto it = labels.find(key);
  const bool has = it != labels.end();
  switch (op) {
    case Op::kIn:
      return has && std::find(values.begin(), values.end(), it->second) != values.end();
    case Op::kNotIn:
      // Kubernetes: NotIn (and !=) also match objects that do not have the key at all.
      return !has || std::find(values.begin(), values.end(), it->second) == values.end();
    case Op::kExists:
      return has;
    case Op::kDoesNotExist:
      return !has;
    case Op::kGreaterThan:
    case Op::kLessThan: {
      int64_t have = 0;
      int64_t want = 0;
      if (!has || values.size() != 1 || !parseInt(it->second, &have) ||
          !parseInt(values[0], &want)) {
        return false;
      }
      return op == Op::kGreaterThan ? have > want : have < want;
    }
  }
  return false;
}

bool Selector::matches(const Labels& labels) const {
  return std::all_of(requirements_.begin(), requirements_.end(),
                     [&](const Requirement& r) { return r.matches(labels); });
}

FieldErrors validateLabelSelector(const LabelSelector& selector, const std::string& path) {
  FieldErrors errors;
  for (const auto& [key, value] : selector.matchLabels) {
    const std::string field = path + ".matchLabels[" + key + "]";
    if (!isQualifiedName(key)) errors.push_back({field, "invalid label key \"" + key + "\""});
    if (!isLabelValue(value)) errors.push_back({field, "invalid label value \"" + value + "\""});
  }
  for (size_t i = 0; i < selector.matchExpressions.size(); ++i) {
    const auto& expr = selector.matchExpressions[i];
    const std::string field = path + ".matchExpressions[" + std::to_string(i) + "]";
    if (!isQualifiedName(expr.key)) {
      errors.push_back({field + ".key", "invalid label key \"" + expr.key + "\""});
    }
    if (expr.operator_ == "In" || expr.operator_ == "NotIn") {
      if (expr.values.empty()) {
        errors.push_back(
            {field + ".values", "must be specified when `operator` is 'In' or 'NotIn'"});
      }
    } else if (expr.operator_ == "Exists" || expr.operator_ == "DoesNotExist") {
      if (!expr.values.empty()) {
        errors.push_back({field + ".values",
                          "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"});
      }
    } else {
      errors.push_back({field + ".operator", "Unsupported value: \"" + expr.operator_ +
                                                 "\": supported values: \"In\", \"NotIn\", "
                                                 "\"Exists\", \"DoesNotExist\""});
    }
    for (size_t v = 0; v < expr.values.size(); ++v) {
      if (!isLabelValue(expr.values[v])) {
        errors.push_back({field + ".values[" + std::to_string(v) + "]",
                          "invalid label value \"" + expr.values[v] + "\""});
      }
    }
  }
  return errors;
}

Result<Selector> Selector::fromLabelSelector(const LabelSelector& selector,
                                             const std::string& path) {
  FieldErrors errors = validateLabelSelector(selector, path);
  if (!errors.empty()) return invalid("invalid label selector", std::move(errors));
  Selector out;
  for (const auto& [key, value] : selector.matchLabels) {
    out.requirements_.push_back({key, Requirement::Op::kIn, {value}});
  }
  for (const auto& expr : selector.matchExpressions) {
    Requirement r{expr.key, Requirement::Op::kIn, expr.values};
    if (expr.operator_ == "NotIn") r.op = Requirement::Op::kNotIn;
    if (expr.operator_ == "Exists") r.op = Requirement::Op::kExists;
    if (expr.operator_ == "DoesNotExist") r.op = Requirement::Op::kDoesNotExist;
    std::sort(r.values.begin(), r.values.end());
    out.requirements_.push_back(std::move(r));
  }
  std::stable_sort(out.requirements_.begin(), out.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return out;
}

// ---- string form -----------------------------------------------------------------------------

namespace {

// A small lexer/parser for the grammar of k8s.io/apimachinery/pkg/labels.Parse:
//   selector    := requirement ( ',' requirement )*
//   requirement := '!' KEY | KEY [ op value | setop '(' values ')' ]
//   op          := '=' | '==' | '!=' | '>' | '<'     setop := 'in' | 'notin'
class SelectorParser {
 public:
  explicit SelectorParser(std::string_view text) : text_(text) {}

  Result<std::vector<Requirement>> parse() {
    std::vector<Requirement> out;
    skipSpace();
    if (pos_ == text_.size()) return out;  // "" selects everything
    while (true) {
      auto req = parseRequirement();
      if (!req) return req.error();
      out.push_back(std::move(*req));
      skipSpace();
      if (pos_ == text_.size()) return out;
      if (text_[pos_] != ',') return fail("expected ',' or end of selector");
      ++pos_;
      skipSpace();
    }
  }

 private:
  Error fail(const std::string& why) const {
    return badRequest("unable to parse label selector \"" + std::string(text_) + "\" at position " +
                      std::to_string(pos_) + ": " + why);
  }
  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool isWordChar(char c) const { return isNameChar(c) || c == '/'; }
  std::string_view word() {
    size_t start = pos_;
    while (pos_ < text_.size() && isWordChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  Result<Requirement> parseRequirement() {
    Requirement r;
    // "a," ends where a requirement must follow (found by libFuzzer: a read past the end).
    if (pos_ == text_.size()) return fail("expected a label key after ','");
    if (text_[pos_] == '!') {
      ++pos_;
      skipSpace();
      r.key = std::string(word());
      r.op = Requirement::Op::kDoesNotExist;
      if (!isQualifiedName(r.key)) return fail("invalid label key \"" + r.key + "\"");
      return r;
    }
    r.key = std::string(word());
    if (!isQualifiedName(r.key)) return fail("invalid label key \"" + r.key + "\"");
    skipSpace();
    if (pos_ == text_.size() || text_[pos_] == ',') {
      r.op = Requirement::Op::kExists;
      return r;
    }
    std::string_view rest = text_.substr(pos_);
    if (rest.starts_with("==") || rest.starts_with("!=")) {
      r.op = rest[0] == '=' ? Requirement::Op::kIn : Requirement::Op::kNotIn;
      pos_ += 2;
    } else if (rest[0] == '=' || rest[0] == '>' || rest[0] == '<') {
      r.op = rest[0] == '='
                 ? Requirement::Op::kIn
                 : (rest[0] == '>' ? Requirement::Op::kGreaterThan : Requirement::Op::kLessThan);
      pos_ += 1;
    } else {
      std::string_view keyword = word();
      if (keyword == "in") {
        r.op = Requirement::Op::kIn;
      } else if (keyword == "notin") {
        r.op = Requirement::Op::kNotIn;
      } else {
        return fail("expected one of =, ==, !=, >, <, in, notin after key \"" + r.key + "\"");
      }
      return parseSet(std::move(r));
    }
    skipSpace();
    std::string value(word());
    if (!isLabelValue(value)) return fail("invalid label value \"" + value + "\"");
    if (r.op == Requirement::Op::kGreaterThan || r.op == Requirement::Op::kLessThan) {
      int64_t ignored = 0;
      if (!parseInt(value, &ignored)) return fail("value for > and < must be an integer");
    }
    r.values = {value};
    return r;
  }

  Result<Requirement> parseSet(Requirement r) {
    skipSpace();
    if (pos_ == text_.size() || text_[pos_] != '(') return fail("expected '('");
    ++pos_;
    while (true) {
      skipSpace();
      std::string value(word());
      if (!isLabelValue(value)) return fail("invalid label value \"" + value + "\"");
      r.values.push_back(value);
      skipSpace();
      if (pos_ == text_.size()) return fail("expected ')'");
      if (text_[pos_] == ')') {
        ++pos_;
        break;
      }
      if (text_[pos_] != ',') return fail("expected ',' or ')' in value set");
      ++pos_;
    }
    std::sort(r.values.begin(), r.values.end());
    r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
    return r;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

Result<Selector> Selector::parse(std::string_view text) {
  auto requirements = SelectorParser(text).parse();
  if (!requirements) return requirements.error();
  Selector out;
  out.requirements_ = std::move(*requirements);
  std::stable_sort(out.requirements_.begin(), out.requirements_.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  return out;
}

std::string Selector::str() const {
  std::string out;
  for (const auto& r : requirements_) {
    if (!out.empty()) out += ",";
    auto joined = [&] {  // an empty value is a value: "in (,a)" (found by libFuzzer)
      std::string s;
      for (size_t i = 0; i < r.values.size(); ++i) s += (i == 0 ? "" : ",") + r.values[i];
      return s;
    };
    switch (r.op) {
      case Requirement::Op::kIn:
        out += r.values.size() == 1 ? r.key + "=" + r.values[0] : r.key + " in (" + joined() + ")";
        break;
      case Requirement::Op::kNotIn:
        out +=
            r.values.size() == 1 ? r.key + "!=" + r.values[0] : r.key + " notin (" + joined() + ")";
        break;
      case Requirement::Op::kExists:
        out += r.key;
        break;
      case Requirement::Op::kDoesNotExist:
        out += "!" + r.key;
        break;
      case Requirement::Op::kGreaterThan:
        out += r.key + ">" + r.values[0];
        break;
      case Requirement::Op::kLessThan:
        out += r.key + "<" + r.values[0];
        break;
    }
  }
  return out;
}

}  // namespace flotilla::api
