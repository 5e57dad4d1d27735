#include "webhooks/http_handler.h"

namespace flotilla::webhooks {

namespace {

net::HttpResponse text(int status, std::string body) {
  return {status, {{"Content-Type", "text/plain; charset=utf-8"}}, std::move(body) + "\n"};
}

net::HttpResponse review(int status, const AdmissionResponse& response) {
  return {status, {{"Content-Type", "application/json"}}, encodeAdmissionReview(response)};
}

}  // namespace

HandledAdmission handleAdmission(const net::HttpRequest& request, const ClusterView& cluster,
                                 const std::set<std::string>& trustedUsers) {
  HandledAdmission out;
  const auto route = routeFor(request.path());
  if (!route) {
    out.response = text(404, "no admission webhook at " + std::string(request.path()));
    return out;
  }
  out.path = pathFor(*route);
  if (request.method != "POST") {
    out.response = text(405, "admission webhooks accept POST only, got " + request.method);
    out.response.headers.push_back({"Allow", "POST"});
    return out;
  }
  const std::string_view type = request.header("Content-Type");
  if (type.substr(0, type.find(';')) != "application/json") {
    out.response =
        text(415, "Content-Type must be application/json, got \"" + std::string(type) + "\"");
    return out;
  }
  auto decoded = decodeAdmissionReview(request.body);
  if (!decoded) {
    out.response = review(400, denied("", decoded.error()));
    return out;
  }
  out.answer = admit(*route, *decoded, cluster);
  out.allowed = out.answer.allowed;
  out.uid = out.answer.uid;
  if (out.answer.allowed) out.pendingServed = out.answer.servedQuestions;
  if (out.answer.allowed && !out.answer.requiredAccess.empty() &&
      !trustedUsers.count(decoded->user.username)) {
    out.pendingAccess = out.answer.requiredAccess;
    out.user = decoded->user;
    return out;
  }
  if (!out.pendingServed.empty()) return out;
  out.response = review(200, out.answer);
  return out;
}

void completeAdmission(HandledAdmission& handled, const std::vector<api::Result<bool>>& answers) {
  const auto& user =
      handled.user.username.empty() ? std::string("system:anonymous") : handled.user.username;
  for (size_t i = 0; i < handled.pendingAccess.size(); ++i) {
    const AccessCheck& check = handled.pendingAccess[i];
    const std::string what =
        check.verb + " " + (check.resource.empty() ? check.kind : check.resource) +
        (check.group.empty() ? "" : "." + check.group) + " \"" + check.name + "\"" +
        (check.namespace_.empty() ? std::string() : " in namespace \"" + check.namespace_ + "\"");
    if (i >= answers.size() || !answers[i]) {
      const std::string why =
          i < answers.size() ? answers[i].error().message : std::string("no answer");
      handled.answer = denied(handled.uid, {api::reason::kInternalError,
                                            500,
                                            "cannot check whether user \"" + user + "\" may " +
                                                what + " (" + check.why + "): " + why,
                                            {}});
      break;
    }
    if (!*answers[i]) {
      handled.answer =
          denied(handled.uid, {api::reason::kForbidden,
                               403,
                               "user \"" + user + "\" cannot " + what + ", and " + check.why +
                                   ": " + check.rule + " (docs/security.md)",
                               {}});
      break;
    }
  }
  handled.allowed = handled.answer.allowed;
  handled.pendingAccess.clear();
  if (handled.allowed && !handled.pendingServed.empty()) return;
  handled.pendingServed.clear();
  handled.response = review(200, handled.answer);
}

void completeServed(HandledAdmission& handled, const std::vector<api::Result<bool>>& answers) {
  for (size_t i = 0; i < handled.pendingServed.size() && i < answers.size(); ++i)
    if (answers[i] && !*answers[i])
      handled.answer.warnings.push_back(servedWarning(handled.pendingServed[i]));
  handled.pendingServed.clear();
  handled.response = review(200, handled.answer);
}

}  // namespace flotilla::webhooks
