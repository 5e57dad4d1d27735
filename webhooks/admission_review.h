// AdmissionReview v1 (admission.k8s.io/v1) as the API server sends it to a webhook and expects it
// back: decoding the request strictly enough to answer it safely, encoding the response. Pure
// functions on text and JSON, so every malformed shape is a unit test.
#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace flotilla::webhooks {

struct GroupVersionKind {
  std::string group, version, kind;
};

// request.userInfo: who is asking, as the API server authenticated them.
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
  std::map<std::string, std::vector<std::string>> extra;
};

// Something the requesting user must be allowed to do themselves for the request to be admitted
// (a SubjectAccessReview on their behalf), with why, for the denial.
struct AccessCheck {
  std::string verb, group, resource, namespace_, name;
  std::string why;  // "spec.secretRef names it"
  std::string
      rule;  // the rule a refusal breaks: "only someone who may read the Secret may name it"
  // When `resource` is empty: the kind it is found from by the host's discovery (an unknown kind
  // fails the check), and, if set, the scope that kind must have (a FederatedObject holds
  // namespaced kinds only, a ClusterFederatedObject cluster-scoped ones).
  std::string apiVersion, kind;
  std::optional<bool> namespaced;
  bool operator==(const AccessCheck&) const = default;
};

// A kind an object names that the host may not serve (an override policy's selector): asked of
// the host's discovery after the decision, as access checks are, and answered with a warning when
// the host does not serve it (servedWarning). `field` is where the object names it.
struct ServedQuestion {
  std::string field;  // "spec.resourceSelectors[1]"
  std::string apiVersion, kind;
  bool operator==(const ServedQuestion&) const = default;
};
// "spec.resourceSelectors[1]: the host does not serve kind Gadget in example.com/v1; this
// selector selects nothing until it does".
std::string servedWarning(const ServedQuestion& question);

struct AdmissionRequest {
  std::string uid;
  GroupVersionKind kind;
  std::string resource;     // request.resource.resource ("propagationpolicies")
  std::string subResource;  // "" for the main resource
  std::string operation;    // CREATE | UPDATE | DELETE | CONNECT
  std::string namespace_;
  std::string name;
  std::string username;          // request.userInfo.username (for logs)
  UserInfo user;                 // request.userInfo, whole (for access reviews)
  boost::json::value object;     // null when absent (DELETE)
  boost::json::value oldObject;  // null when absent (CREATE)
  bool dryRun = false;
};

struct AdmissionResponse {
  std::string uid;
  bool allowed = true;
  // When denied: the Status the API server passes on to the client (code, reason, message and
  // field causes). kube-apiserver prefixes the message with `admission webhook "<name>" denied
  // the request: `.
  api::Error status;
  std::optional<boost::json::value> patch;  // RFC 6902 operations (mutating webhooks)
  std::vector<std::string> warnings;
  // Allowed only if the requesting user may do each of these (not sent: the server reviews them
  // and turns the answer into a denial when one is refused; see completeAdmission).
  std::vector<AccessCheck> requiredAccess;
  // Kinds to look up in the host's discovery once allowed; each one not served adds a warning
  // (handled by the webhook server: HandledAdmission::pendingServed).
  std::vector<ServedQuestion> servedQuestions;
};

// Decodes an AdmissionReview v1 request body. Errors (code 400) say what was wrong: not JSON,
// wrong apiVersion or kind, no `request`, no `request.uid`, a field of the wrong type.
api::Result<AdmissionRequest> decodeAdmissionReview(std::string_view body);

// The AdmissionReview v1 body answering one request.
std::string encodeAdmissionReview(const AdmissionResponse& response);

// A response that denies with `error` (its code, reason, message and causes).
AdmissionResponse denied(std::string uid, api::Error error);

}  // namespace flotilla::webhooks
