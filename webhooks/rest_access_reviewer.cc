#include "webhooks/rest_access_reviewer.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace flotilla::webhooks {
namespace asio = boost::asio;

namespace {
const kube::ResourceId kSubjectAccessReviews{"authorization.k8s.io", "v1", "subjectaccessreviews",
                                             false, "SubjectAccessReview"};
}  // namespace

RestAccessReviewer::RestAccessReviewer(kube::RestClient& host, asio::any_io_executor hostExecutor)
    : host_(host), hostExecutor_(std::move(hostExecutor)) {}

asio::awaitable<api::Result<bool>> RestAccessReviewer::allowed(const UserInfo& user,
                                                               const AccessCheck& asked) {
  AccessCheck check = asked;
  if (check.resource.empty() && !check.kind.empty()) {
    // The resource a kind is served as: the host's discovery, on the host client's thread.
    auto lookup = host_.resourceFor(check.apiVersion, check.kind);
    auto found = co_await asio::co_spawn(hostExecutor_, std::move(lookup), asio::use_awaitable);
    if (!found)
      co_return api::Error{found.error().reason,
                           found.error().code,
                           "the host does not serve " + check.kind + " in " + check.apiVersion +
                               ": " + found.error().message,
                           {}};
    if (check.namespaced && *check.namespaced != found->namespaced)
      co_return api::Error{api::reason::kBadRequest,
                           400,
                           check.kind + " is " +
                               (found->namespaced ? "namespaced: a FederatedObject in its namespace"
                                                  : "cluster-scoped: a ClusterFederatedObject") +
                               " holds it",
                           {}};
    check.group = found->group;
    check.resource = found->resource;
  }
  const boost::json::object body = subjectAccessReview(user, check);
  const kube::WriteOptions options;
  const std::string clusterScoped;  // named: the lazy task keeps a reference to it
  // The host client belongs to the manager's I/O thread: the review runs there and this
  // coroutine (on the webhook's thread) resumes with the answer.
  auto task = host_.create(kSubjectAccessReviews, clusterScoped, body, options);
  auto answer = co_await asio::co_spawn(hostExecutor_, std::move(task), asio::use_awaitable);
  if (!answer) co_return answer.error();
  co_return accessAllowed(*answer);
}

asio::awaitable<api::Result<bool>> RestAccessReviewer::serves(const std::string& apiVersion,
                                                              const std::string& kind) {
  // Cached per group-version by the client; a miss reads that group-version once more. On the
  // host client's thread; the strings outlive it (this coroutine waits for it).
  auto lookup = host_.resourceFor(apiVersion, kind);
  auto found = co_await asio::co_spawn(hostExecutor_, std::move(lookup), asio::use_awaitable);
  if (found) co_return true;
  if (found.error().code == 404) co_return false;
  co_return found.error();
}

}  // namespace flotilla::webhooks
