// The AccessReviewer the operator uses: SubjectAccessReviews created through the host client
// (which needs `create subjectaccessreviews`, config/rbac/role.yaml).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "kube/client/rest_client.h"
#include "webhooks/access_review.h"

namespace flotilla::webhooks {

class RestAccessReviewer final : public AccessReviewer {
 public:
  // `host` runs on `hostExecutor` (the manager's I/O thread); both outlive the reviewer.
  RestAccessReviewer(kube::RestClient& host, boost::asio::any_io_executor hostExecutor);
  boost::asio::awaitable<api::Result<bool>> allowed(const UserInfo& user,
                                                    const AccessCheck& check) override;

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor hostExecutor_;
};

}  // namespace flotilla::webhooks
