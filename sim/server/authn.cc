#include "sim/server/authn.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <boost/json.hpp>

#include "api/base64.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

api::Error tokenError(const std::string& message) {
  return api::Error{api::reason::kUnauthorized, 401, message, {}};
}

std::string base64Url(std::string_view data) {
  std::string out = api::base64Encode(data);
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (auto& c : out) c = c == '+' ? '-' : c == '/' ? '_' : c;
  return out;
}

std::optional<std::string> fromBase64Url(std::string_view text) {
  std::string s(text);
  for (auto& c : s) {
    if (c == '-') {
      c = '+';
    } else if (c == '_') {
      c = '/';
    } else if (c == '+' || c == '/' || c == '=') {
      return std::nullopt;
    }
  }
  while (s.size() % 4) s += '=';
  return api::base64Decode(s);
}

std::string hmacSha256(const std::string& key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &size);
  return std::string(reinterpret_cast<const char*>(out), size);
}

bool constantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

int64_t unixSeconds(api::Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

// One CSV record (Go's encoding/csv with TrimLeadingSpace): nullopt on an unterminated quote.
std::optional<std::vector<std::string>> csvFields(std::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += line[i++];
      }
      if (!closed) return std::nullopt;
      while (i < line.size() && line[i] != ',') field += line[i++];  // lenient, as LazyQuotes
    } else {
      while (i < line.size() && line[i] != ',') field += line[i++];
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // the comma
  }
  return fields;
}

}  // namespace

api::Result<std::vector<TokenFileEntry>> parseTokenFile(std::string_view text,
                                                        const std::string& path) {
  std::vector<TokenFileEntry> out;
  size_t lineNumber = 0;
  while (!text.empty()) {
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::string where = "token file '" + path + "' line " + std::to_string(lineNumber);
    auto fields = csvFields(line);
    if (!fields) return api::Error{api::reason::kBadRequest, 0, where + ": unterminated quote", {}};
    if (fields->size() < 3)
      return api::Error{api::reason::kBadRequest,
                        0,
                        where +
                            ": must have at least 3 columns (token, user name, user uid), found " +
                            std::to_string(fields->size()),
                        {}};
    if ((*fields)[0].empty()) continue;  // kube-apiserver skips empty tokens (with a warning)
    TokenFileEntry entry{(*fields)[0], UserInfo{(*fields)[1], (*fields)[2], {}}};
    if (fields->size() >= 4 && !(*fields)[3].empty()) {
      std::string_view groups = (*fields)[3];
      while (true) {
        const size_t comma = groups.find(',');
        entry.user.groups.emplace_back(groups.substr(0, comma));
        if (comma == std::string_view::npos) break;
        groups.remove_prefix(comma + 1);
      }
    }
    // A later line with the same token wins, as in kube-apiserver.
    std::erase_if(out, [&](const TokenFileEntry& e) { return e.token == entry.token; });
    out.push_back(std::move(entry));
  }
  return out;
}

std::string signServiceAccountToken(const std::string& key, const ServiceAccountToken& c) {
  json::object header{{"alg", "HS256"}, {"typ", "JWT"}};
  if (!c.secretName.empty()) {  // kube-apiserver's legacy claims
    const json::object payload{{"iss", kLegacyIssuer},
                               {"kubernetes.io/serviceaccount/namespace", c.ns},
                               {"kubernetes.io/serviceaccount/secret.name", c.secretName},
                               {"kubernetes.io/serviceaccount/service-account.name", c.name},
                               {"kubernetes.io/serviceaccount/service-account.uid", c.uid},
                               {"sub", "system:serviceaccount:" + c.ns + ":" + c.name}};
    const std::string input =
        base64Url(json::serialize(header)) + "." + base64Url(json::serialize(payload));
    return input + "." + base64Url(hmacSha256(key, input));
  }
  json::array audiences;
  for (const auto& a : c.audiences) audiences.emplace_back(a);
  json::object payload{
      {"aud", std::move(audiences)},
      {"exp", unixSeconds(c.expiresAt)},
      {"iat", unixSeconds(c.issuedAt)},
      {"iss", kApiAudience},
      {"kubernetes.io",
       json::object{{"namespace", c.ns},
                    {"serviceaccount", json::object{{"name", c.name}, {"uid", c.uid}}}}},
      {"nbf", unixSeconds(c.issuedAt)},
      {"sub", "system:serviceaccount:" + c.ns + ":" + c.name}};
  const std::string signingInput =
      base64Url(json::serialize(header)) + "." + base64Url(json::serialize(payload));
  return signingInput + "." + base64Url(hmacSha256(key, signingInput));
}

bool looksLikeJwt(std::string_view token) {
  const size_t first = token.find('.');
  if (first == std::string_view::npos) return false;
  const size_t second = token.find('.', first + 1);
  return second != std::string_view::npos && token.find('.', second + 1) == std::string_view::npos;
}

api::Result<ServiceAccountToken> verifyServiceAccountToken(const std::string& key,
                                                           std::string_view token,
                                                           api::Clock::time_point now) {
  if (!looksLikeJwt(token)) return tokenError("not a JWT");
  const size_t dot = token.rfind('.');
  const std::string_view signingInput = token.substr(0, dot);
  auto signature = fromBase64Url(token.substr(dot + 1));
  if (!signature || !constantTimeEqual(*signature, hmacSha256(key, signingInput)))
    return tokenError("invalid signature");
  auto payloadText = fromBase64Url(signingInput.substr(signingInput.find('.') + 1));
  if (!payloadText) return tokenError("malformed payload");
  boost::system::error_code ec;
  const json::value payload = json::parse(*payloadText, ec);
  if (ec || !payload.is_object()) return tokenError("malformed payload");
  const auto& p = payload.as_object();
  ServiceAccountToken out;
  if (const auto* iss = p.if_contains("iss");
      iss && iss->is_string() && iss->as_string() == kLegacyIssuer) {
    auto claim = [&](const char* name) {
      const auto* v = p.if_contains(std::string("kubernetes.io/serviceaccount/") + name);
      return v && v->is_string() ? std::string(v->as_string()) : std::string();
    };
    out.ns = claim("namespace");
    out.name = claim("service-account.name");
    out.uid = claim("service-account.uid");
    out.secretName = claim("secret.name");
    if (out.ns.empty() || out.name.empty() || out.secretName.empty())
      return tokenError("missing claims");
    out.audiences.emplace_back(kApiAudience);  // legacy tokens are for the API server itself
    return out;
  }
  const auto* exp = p.if_contains("exp");
  const auto* iat = p.if_contains("iat");
  const auto* k8s = p.if_contains("kubernetes.io");
  if (!exp || !exp->is_int64() || !iat || !iat->is_int64() || !k8s || !k8s->is_object())
    return tokenError("missing claims");
  out.expiresAt = api::Clock::time_point(std::chrono::seconds(exp->as_int64()));
  out.issuedAt = api::Clock::time_point(std::chrono::seconds(iat->as_int64()));
  if (now >= out.expiresAt) return tokenError("token has expired");
  const auto& k = k8s->as_object();
  if (const auto* ns = k.if_contains("namespace"); ns && ns->is_string())
    out.ns = std::string(ns->as_string());
  if (const auto* sa = k.if_contains("serviceaccount"); sa && sa->is_object()) {
    const auto& s = sa->as_object();
    if (const auto* n = s.if_contains("name"); n && n->is_string())
      out.name = std::string(n->as_string());
    if (const auto* u = s.if_contains("uid"); u && u->is_string())
      out.uid = std::string(u->as_string());
  }
  if (out.ns.empty() || out.name.empty()) return tokenError("missing claims");
  if (const auto* aud = p.if_contains("aud"); aud && aud->is_array())
    for (const auto& a : aud->as_array())
      if (a.is_string()) out.audiences.emplace_back(a.as_string());
  return out;
}

UserInfo serviceAccountUser(const std::string& ns, const std::string& name,
                            const std::string& uid) {
  return UserInfo{"system:serviceaccount:" + ns + ":" + name,
                  uid,
                  {"system:serviceaccounts", "system:serviceaccounts:" + ns,
                   std::string(kSystemAuthenticated)}};
}

std::string newSigningKey() {
  unsigned char bytes[32];
  RAND_bytes(bytes, sizeof bytes);
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : bytes) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace flotilla::sim
