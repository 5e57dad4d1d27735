// The API server's RBAC endpoints and checks: escalation prevention on Role, ClusterRole and
// binding writes (as kube-apiserver's rbac registry), TokenRequest
// (serviceaccounts/NAME/token) and SelfSubjectAccessReview (kubectl auth can-i).
#include <boost/json.hpp>

#include "sim/server/authorizer.h"
#include "sim/server/internal.h"
#include "sim/server/status.h"

namespace flotilla::sim {
namespace json = boost::json;
using namespace internal;

namespace {

bool inGroup(const UserInfo& user, std::string_view group) {
  return std::find(user.groups.begin(), user.groups.end(), group) != user.groups.end();
}

std::string str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object* objectAt(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

constexpr int64_t kMinTokenSeconds = 600;
constexpr int64_t kDefaultTokenSeconds = 3600;

}  // namespace

api::Result<void> ApiServer::checkEscalation(const ResourceInfo& r, const json::object& object,
                                             Request& req) {
  if (r.group != kRbacGroup || options_.authorizationMode == "AlwaysAllow" ||
      inGroup(req.user, kSystemMasters))
    return {};
  const std::string ns = r.namespaced ? req.path.namespace_ : "";
  const std::string name = metaString(object, "name");
  std::vector<PolicyRule> requested;
  if (r.resource == "roles" || r.resource == "clusterroles") {
    const RequestAttributes escalate{
        "escalate", true, "", std::string(kRbacGroup), "v1", r.resource, "", ns, name};
    if (authorizer_->authorize(req.user, escalate).allowed) return {};
    if (const auto* rules = object.if_contains("rules")) requested = rulesOf(*rules);
    // An aggregated ClusterRole can come to hold anything: creating one takes full authority.
    if (r.resource == "clusterroles" && objectAt(object, "aggregationRule"))
      requested = {PolicyRule{{"*"}, {"*"}, {"*"}, {}, {}}, PolicyRule{{"*"}, {}, {}, {}, {"*"}}};
  } else {
    const json::object* ref = objectAt(object, "roleRef");
    const std::string kind = ref ? str(*ref, "kind") : "";
    const std::string roleName = ref ? str(*ref, "name") : "";
    const std::string resource = kind == "ClusterRole" ? "clusterroles" : "roles";
    const RequestAttributes bind{"bind", true, "",      std::string(kRbacGroup), "v1", resource,
                                 "",     ns,   roleName};
    if (authorizer_->authorize(req.user, bind).allowed) return {};
    auto rules = authorizer_->roleRefRules(kind, roleName, ns);
    if (!rules) {
      req.errorDetails =
          json::object{{"name", roleName}, {"group", kRbacGroup}, {"kind", resource}};
      return rules.error();
    }
    requested = std::move(*rules);
  }
  std::vector<std::string> errors;
  const auto held = authorizer_->rulesFor(req.user, ns, errors);
  const auto uncovered = uncoveredRules(held, requested);
  if (uncovered.empty()) return {};
  req.errorDetails = json::object{{"name", name}, {"group", kRbacGroup}, {"kind", r.resource}};
  return api::Error{api::reason::kForbidden,
                    403,
                    r.resource + "." + std::string(kRbacGroup) + " \"" + name +
                        "\" is forbidden: " + escalationMessage(req.user, uncovered, errors),
                    {}};
}

api::Result<json::object> ApiServer::createToken(Request& req) {
  auto body = parseObjectBody(req.http);
  if (!body) return body.error();
  const std::string& ns = req.path.namespace_;
  const std::string& name = req.path.name;
  auto account = store_.get({"/serviceaccounts", ns, name});
  if (!account) return notFound(*req.resource, name);
  const json::object* spec = objectAt(*body, "spec");
  int64_t seconds = kDefaultTokenSeconds;
  if (spec)
    if (const auto* e = spec->if_contains("expirationSeconds"); e && e->is_int64())
      seconds = e->as_int64();
  std::string problem;
  if (seconds < kMinTokenSeconds) problem = "may not specify a duration less than 10 minutes";
  if (seconds > (int64_t{1} << 32)) problem = "may not specify a duration larger than 2^32 seconds";
  if (!problem.empty()) {
    ResourceInfo tokenRequest;
    tokenRequest.group = "authentication.k8s.io";
    tokenRequest.kind = "TokenRequest";
    tokenRequest.resource = "TokenRequest";  // kube names the kind in these details
    auto error = invalidObject(
        tokenRequest, "",
        {{"spec.expirationSeconds", "Invalid value: " + std::to_string(seconds) + ": " + problem}});
    req.errorDetails = statusBody(error, &tokenRequest, "").at("details").as_object();
    return error;
  }
  ServiceAccountToken claims;
  claims.ns = ns;
  claims.name = name;
  claims.uid = metaString(*account, "uid");
  if (spec)
    if (const auto* a = spec->if_contains("audiences"); a && a->is_array())
      for (const auto& audience : a->as_array())
        if (audience.is_string()) claims.audiences.emplace_back(audience.as_string());
  if (claims.audiences.empty()) claims.audiences.emplace_back(kApiAudience);
  claims.issuedAt = std::chrono::time_point_cast<std::chrono::seconds>(options_.now());
  claims.expiresAt = claims.issuedAt + std::chrono::seconds(seconds);
  json::array audiences;
  for (const auto& a : claims.audiences) audiences.emplace_back(a);
  json::value boundObjectRef = nullptr;
  if (spec)
    if (const auto* b = spec->if_contains("boundObjectRef"); b && b->is_object())
      boundObjectRef = *b;
  json::object response{
      {"kind", "TokenRequest"},
      {"apiVersion", "authentication.k8s.io/v1"},
      {"metadata", json::object{{"creationTimestamp", nullptr}}},
      {"spec", json::object{{"audiences", std::move(audiences)},
                            {"expirationSeconds", seconds},
                            {"boundObjectRef", std::move(boundObjectRef)}}},
      {"status",
       json::object{{"token", signServiceAccountToken(options_.serviceAccountKey, claims)},
                    {"expirationTimestamp", api::formatRfc3339(claims.expiresAt)}}}};
  return response;
}

api::Result<json::object> ApiServer::reviewSelfAccess(Request& req) {
  auto body = parseObjectBody(req.http);
  if (!body) return body.error();
  const json::object* spec = objectAt(*body, "spec");
  RequestAttributes attributes;
  if (const json::object* ra = spec ? objectAt(*spec, "resourceAttributes") : nullptr) {
    attributes.resourceRequest = true;
    attributes.verb = str(*ra, "verb");
    attributes.group = str(*ra, "group");
    attributes.version = str(*ra, "version");
    attributes.resource = str(*ra, "resource");
    attributes.subresource = str(*ra, "subresource");
    attributes.ns = str(*ra, "namespace");
    attributes.name = str(*ra, "name");
  } else if (const json::object* nra = spec ? objectAt(*spec, "nonResourceAttributes") : nullptr) {
    attributes.verb = str(*nra, "verb");
    attributes.path = str(*nra, "path");
  } else {
    ResourceInfo review = *req.resource;
    return invalidObject(review, "",
                         {{"spec.resourceAttributes",
                           "Invalid value: \"null\": exactly one of nonResourceAttributes or "
                           "resourceAttributes must be specified"}});
  }
  // A SubjectAccessReview asks about spec.user and spec.groups (as the webhook that sends it saw
  // them in an AdmissionReview's userInfo); a SelfSubjectAccessReview about the requester.
  const bool subject = req.resource->resource == "subjectaccessreviews";
  UserInfo who = req.user;
  if (subject) {
    who = UserInfo{};
    who.name = spec ? str(*spec, "user") : "";
    who.uid = spec ? str(*spec, "uid") : "";
    if (const auto* groups = spec ? spec->if_contains("groups") : nullptr;
        groups && groups->is_array()) {
      for (const auto& g : groups->as_array())
        if (g.is_string()) who.groups.emplace_back(g.as_string());
    }
    if (who.name.empty() && who.groups.empty()) {
      ResourceInfo review = *req.resource;
      return invalidObject(review, "",
                           {{"spec.user",
                             "Invalid value: \"\": at least one of user or group "
                             "must be specified"}});
    }
  }
  RbacAuthorizer::Decision decision{true, ""};
  if (options_.authorizationMode != "AlwaysAllow")
    decision = authorizer_->authorize(who, attributes);
  json::object status{{"allowed", decision.allowed}};
  if (!decision.reason.empty()) status["reason"] = decision.reason;
  return json::object{{"kind", subject ? "SubjectAccessReview" : "SelfSubjectAccessReview"},
                      {"apiVersion", "authorization.k8s.io/v1"},
                      {"metadata", json::object{{"creationTimestamp", nullptr}}},
                      {"spec", spec ? json::value(*spec) : json::value(json::object{})},
                      {"status", std::move(status)}};
}

}  // namespace flotilla::sim
