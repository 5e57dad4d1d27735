// HTTP in, HTTP out, for one admission call: the method, the path (which kind, validate or
// mutate), the content type and the AdmissionReview body are checked here, as plain values, so
// every bad request is a unit test without a socket.
#pragma once

#include "kube/net/http_types.h"
#include "webhooks/admission.h"

namespace flotilla::webhooks {

struct HandledAdmission {
  net::HttpResponse response;
  std::string path;  // the endpoint, for metrics ("" when unknown)
  bool allowed = false;
  std::string uid;
};

// 404 for an unknown path, 405 for a method other than POST, 415 for a body that is not JSON by
// its Content-Type, 400 (with an AdmissionReview saying why) for a body that is not an
// AdmissionReview v1; otherwise 200 with the decision.
HandledAdmission handleAdmission(const net::HttpRequest& request, const ClusterView& cluster);

}  // namespace flotilla::webhooks
