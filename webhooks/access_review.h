// Asking the API server whether the user behind an admission request may do something
// themselves (docs/security.md, H1): a SubjectAccessReview (authorization.k8s.io/v1) with the
// request's userInfo. The body and the reading of the answer are pure functions here; the
// reviewer that sends them is an interface, so the webhook server is tested with a fake.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>

#include "api/result.h"
#include "webhooks/admission_review.h"

namespace flotilla::webhooks {

// The SubjectAccessReview asking whether `user` may do `check`.
boost::json::object subjectAccessReview(const UserInfo& user, const AccessCheck& check);
// status.allowed of a SubjectAccessReview answer; an error when the answer has no boolean
// status.allowed (never read as allowed).
api::Result<bool> accessAllowed(const boost::json::object& answer);

class AccessReviewer {
 public:
  virtual ~AccessReviewer() = default;
  // Whether `user` may do `check`; an error when the API server could not be asked. Runs on the
  // webhook server's I/O thread.
  virtual boost::asio::awaitable<api::Result<bool>> allowed(const UserInfo& user,
                                                            const AccessCheck& check) = 0;
};

// The host's discovery, for the kinds an object names (AdmissionResponse::servedQuestions).
class KindDiscovery {
 public:
  virtual ~KindDiscovery() = default;
  // Whether the host serves `kind` in `apiVersion`; an error when its discovery could not be
  // asked. Runs on the webhook server's I/O thread.
  virtual boost::asio::awaitable<api::Result<bool>> serves(const std::string& apiVersion,
                                                           const std::string& kind) = 0;
};

}  // namespace flotilla::webhooks
