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

HandledAdmission handleAdmission(const net::HttpRequest& request, const ClusterView& cluster) {
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
  AdmissionResponse answer = admit(*route, *decoded, cluster);
  out.allowed = answer.allowed;
  out.uid = answer.uid;
  out.response = review(200, answer);
  return out;
}

}  // namespace flotilla::webhooks
