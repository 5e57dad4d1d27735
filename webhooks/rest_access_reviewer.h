// The AccessReviewer the operator uses: SubjectAccessReviews created through the host client
// (which needs `create subjectaccessreviews`, config/rbac/role.yaml); and its KindDiscovery.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include "kube/client/rest_client.h"
#include "webhooks/access_review.h"

namespace flotilla::webhooks {

// Also the webhook server's KindDiscovery: the same host client's cached discovery.
class RestAccessReviewer final : public AccessReviewer, public KindDiscovery {
 public:
  // `host` runs on `hostExecutor` (the manager's I/O thread); both outlive the reviewer.
  RestAccessReviewer(kube::RestClient& host, boost::asio::any_io_executor hostExecutor);
  boost::asio::awaitable<api::Result<bool>> allowed(const UserInfo& user,
                                                    const AccessCheck& check) override;
  boost::asio::awaitable<api::Result<bool>> serves(const std::string& apiVersion,
                                                   const std::string& kind) override;

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor hostExecutor_;
};

}  // namespace flotilla::webhooks
