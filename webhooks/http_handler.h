// HTTP in, HTTP out, for one admission call: the method, the path (which kind, validate or
// mutate), the content type and the AdmissionReview body are checked here, as plain values, so
// every bad request is a unit test without a socket.
#pragma once

#include <set>
#include <string>

#include "kube/net/http_types.h"
#include "webhooks/admission.h"

namespace flotilla::webhooks {

struct HandledAdmission {
  net::HttpResponse response;
  std::string path;  // the endpoint, for metrics ("" when unknown)
  bool allowed = false;
  std::string uid;
  // Access the requesting user must have for the request to be admitted (AdmissionResponse::
  // requiredAccess). While not empty, `response` is not written yet: the caller asks a
  // SubjectAccessReview for each and calls completeAdmission with the answers.
  std::vector<AccessCheck> pendingAccess;
  // Kinds to ask the host's discovery about once the access checks passed (AdmissionResponse::
  // servedQuestions); while not empty, `response` is not written yet: the caller asks and calls
  // completeServed with the answers.
  std::vector<ServedQuestion> pendingServed;
  UserInfo user;
  AdmissionResponse answer;  // the decision so far
};

// 404 for an unknown path, 405 for a method other than POST, 415 for a body that is not JSON by
// its Content-Type, 400 (with an AdmissionReview saying why) for a body that is not an
// AdmissionReview v1; otherwise 200 with the decision (or pendingAccess, see above).
// `trustedUsers`: users whose requests need no access review (the operator's own identity: the
// federated objects its federate controllers make hold objects their sources' authors wrote on
// the host, under a policy that governs them).
HandledAdmission handleAdmission(const net::HttpRequest& request, const ClusterView& cluster,
                                 const std::set<std::string>& trustedUsers = {});

// Finishes a request with pendingAccess: `answers[i]` is whether the user may do
// pendingAccess[i] (an error: the review could not be made). Any refusal denies the request with
// 403 Forbidden naming what the user may not do; any error denies it too (fail closed: admission
// never lets an unchecked secretRef through), with 500 and the error.
// With pendingServed left (and the request still allowed), `response` is not written yet.
void completeAdmission(HandledAdmission& handled, const std::vector<api::Result<bool>>& answers);

// Finishes a request with pendingServed: `answers[i]` is whether the host serves
// pendingServed[i]'s kind; false adds its warning (servedWarning), an error (discovery could not
// be asked) none: the request is never denied for it.
void completeServed(HandledAdmission& handled, const std::vector<api::Result<bool>>& answers);

}  // namespace flotilla::webhooks
