// Authentication as kube-apiserver does it for bearer tokens: a static token file
// (--token-auth-file: CSV token,user,uid,"group1,group2") and ServiceAccount tokens issued by the
// TokenRequest subresource. flotilla-sim signs ServiceAccount tokens as HS256 JWTs with its own
// key (kube-apiserver uses RS256; clients never look inside), with kube-apiserver's claims.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"
#include "api/time.h"
#include "sim/server/rbac.h"

namespace flotilla::sim {

class Store;

// The audience kube-apiserver gives tokens by default; only tokens for it authenticate.
inline constexpr std::string_view kApiAudience = "https://kubernetes.default.svc.cluster.local";
// The issuer of legacy (Secret-held) ServiceAccount tokens.
inline constexpr std::string_view kLegacyIssuer = "kubernetes/serviceaccount";

struct TokenFileEntry {
  std::string token;
  UserInfo user;
};

// Parses a token file. Blank lines are skipped; fields may be quoted ("a,b" for groups). A line
// with fewer than 3 fields or an unterminated quote is an error naming `path` and the line.
api::Result<std::vector<TokenFileEntry>> parseTokenFile(std::string_view text,
                                                        const std::string& path);

struct ServiceAccountToken {
  std::string ns, name, uid;  // the ServiceAccount
  std::vector<std::string> audiences;
  api::Clock::time_point issuedAt, expiresAt;
  // Set for a legacy token, the kind the token controller writes into a
  // kubernetes.io/service-account-token Secret: issuer kubernetes/serviceaccount, no audience and
  // no expiry; valid while that Secret exists and still holds it.
  std::string secretName;
};

std::string signServiceAccountToken(const std::string& key, const ServiceAccountToken& claims);
// The claims of a token this key signed; an error when it is malformed, not ours or expired.
api::Result<ServiceAccountToken> verifyServiceAccountToken(const std::string& key,
                                                           std::string_view token,
                                                           api::Clock::time_point now);
// Whether the bearer token looks like a JWT (three base64url parts).
bool looksLikeJwt(std::string_view token);

// The token controller's work (kube-controller-manager's serviceaccount-token controller): every
// kubernetes.io/service-account-token Secret naming an existing ServiceAccount in its
// kubernetes.io/service-account.name annotation, and not filled yet, gets data.token (a legacy
// token), data.ca.crt (`caPem`), data.namespace and the account's uid annotation; one naming an
// account that does not exist, or an earlier account of that name (another uid), is deleted.
// Returns the commit sequence of the last write (0: nothing written).
uint64_t fillServiceAccountTokenSecrets(Store& store, const std::string& key,
                                        const std::string& caPem);

// system:serviceaccount:NS:NAME in system:serviceaccounts, system:serviceaccounts:NS and
// system:authenticated.
UserInfo serviceAccountUser(const std::string& ns, const std::string& name, const std::string& uid);

// 32 random bytes in hex (the signing key kept in DIR/pki/NAME/sa.key).
std::string newSigningKey();

}  // namespace flotilla::sim
