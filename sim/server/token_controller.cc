// The serviceaccount-token controller of kube-controller-manager, as flotilla-sim runs it: after
// a write of a Secret or a ServiceAccount (api_server.cc), token Secrets that can be filled are.
// kube answers the Secret's create before its controller fills it, so clients poll for
// data.token; the sim answers the create first too and fills it before the next request.
#include <boost/json.hpp>

#include "api/base64.h"
#include "sim/server/authn.h"
#include "sim/server/internal.h"
#include "sim/storage/store.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

constexpr std::string_view kTokenType = "kubernetes.io/service-account-token";
constexpr std::string_view kAccountName = "kubernetes.io/service-account.name";
constexpr std::string_view kAccountUid = "kubernetes.io/service-account.uid";

std::string annotation(const json::object& object, std::string_view key) {
  const auto* meta = object.if_contains("metadata");
  if (!meta || !meta->is_object()) return "";
  const auto* annotations = meta->as_object().if_contains("annotations");
  if (!annotations || !annotations->is_object()) return "";
  const auto* v = annotations->as_object().if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

bool isTokenSecret(const json::object& secret) {
  const auto* type = secret.if_contains("type");
  return type && type->is_string() && type->as_string() == kTokenType &&
         !annotation(secret, kAccountName).empty() &&
         metaString(secret, "deletionTimestamp").empty();
}

bool filled(const json::object& secret) {
  const auto* data = secret.if_contains("data");
  return data && data->is_object() && data->as_object().contains("token");
}

}  // namespace

uint64_t fillServiceAccountTokenSecrets(Store& store, const std::string& key,
                                        const std::string& caPem) {
  uint64_t seq = 0;
  for (auto& secret : store.list("/secrets", "", isTokenSecret).items) {
    const std::string ns = metaString(secret, "namespace"), name = metaString(secret, "name");
    const std::string accountName = annotation(secret, kAccountName);
    auto account = store.get({"/serviceaccounts", ns, accountName});
    const std::string accountUid = account ? metaString(*account, "uid") : "";
    const std::string uid = annotation(secret, kAccountUid);
    const auto version = std::stoll(metaString(secret, "resourceVersion"));
    // As kube's controller: a token Secret of an account that does not exist (any more), or of
    // an earlier account of that name, is deleted (its token could never authenticate).
    if (!account || !metaString(*account, "deletionTimestamp").empty() ||
        (!uid.empty() && uid != accountUid)) {
      if (auto removed = store.remove({"/secrets", ns, name}, version); removed)
        seq = std::max(seq, removed->commitSeq);
      continue;
    }
    if (filled(secret)) continue;
    ServiceAccountToken claims;
    claims.ns = ns;
    claims.name = accountName;
    claims.uid = accountUid;
    claims.secretName = name;
    auto& meta = secret["metadata"].as_object();
    if (!meta.contains("annotations") || !meta["annotations"].is_object())
      meta["annotations"] = json::object{};
    meta["annotations"].as_object()[kAccountUid] = accountUid;
    if (!secret.contains("data") || !secret["data"].is_object()) secret["data"] = json::object{};
    auto& data = secret["data"].as_object();
    data["token"] = api::base64Encode(signServiceAccountToken(key, claims));
    data["ca.crt"] = api::base64Encode(caPem);
    data["namespace"] = api::base64Encode(ns);
    if (auto written = store.update({"/secrets", ns, name}, std::move(secret), version); written)
      seq = std::max(seq, written->commitSeq);
  }
  return seq;
}

}  // namespace flotilla::sim
