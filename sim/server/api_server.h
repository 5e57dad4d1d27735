// flotilla-sim's Kubernetes API: discovery, CRUD, list/watch, patch, status subresources, Table
// output, finalizers, owner-reference garbage collection, CRDs, defaulting of built-ins and
// request metrics (/metrics), on top of the Store. Serves HTTP exchanges from net::HttpServer;
// holds no socket itself.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "api/result.h"
#include "api/time.h"
#include "kube/net/http_server.h"
#include "sim/server/authn.h"
#include "sim/server/metrics.h"
#include "sim/server/resources.h"
#include "sim/storage/store.h"

namespace flotilla::sim {

class WebhookCaller;
class RbacAuthorizer;
class FaultInjector;
struct FaultPlan;

// The user of the admin tokens (ApiServerOptions::tokens), in system:masters.
inline constexpr const char* kAdminUser = "flotilla-sim:admin";

struct ApiServerOptions {
  // Accepted admin bearer tokens (user flotilla-sim:admin, group system:masters: always allowed).
  // Empty: authentication is off, every request is the admin's (unit tests only).
  std::vector<std::string> tokens;
  // More users, as kube-apiserver's --token-auth-file (each also in system:authenticated).
  std::vector<TokenFileEntry> tokenFile;
  // Signs and verifies ServiceAccount tokens (TokenRequest). Empty: a random key per server.
  std::string serviceAccountKey;
  // The CA the token controller writes into token Secrets as ca.crt (kube-controller-manager's
  // --root-ca-file): the one that signed this server's serving certificate.
  std::string rootCaPem;
  // "RBAC" (kube-apiserver's --authorization-mode=RBAC) or "AlwaysAllow".
  std::string authorizationMode = "RBAC";
  std::chrono::milliseconds bookmarkInterval{30'000};  // allowWatchBookmarks
  std::function<api::Clock::time_point()> now = [] { return api::Clock::now(); };
  std::string gitVersion = "v1.32.0-flotilla-sim";
  // Calls admission webhooks; default: HTTPS on a private I/O thread (tests inject a fake).
  std::shared_ptr<WebhookCaller> webhookCaller;
  // Fault injection (faults.h); null: an injector with no rules, configurable at run time on
  // /flotilla-sim/faults by an admin.
  std::shared_ptr<FaultInjector> faults;
};

class ApiServer {
 public:
  ApiServer(Store& store, ApiServerOptions options);
  ~ApiServer();

  // Creates the default namespaces and serves the CRDs found in the store. Call once at start.
  api::Result<void> bootstrap();

  boost::asio::awaitable<void> handle(net::HttpExchange& exchange);
  net::HttpHandler handler() {
    return [this](net::HttpExchange& ex) { return handle(ex); };
  }

  ResourceRegistry& registry() { return registry_; }
  // apiserver_request_total, as served on /metrics.
  const RequestMetrics& metrics() const { return metrics_; }

  // The Status bodies the HTTP server itself sends (413, 400, 500).
  static net::HttpResponse errorResponse(int status, const std::string& message);

  struct Request;  // one API request being served (api_server.cc)

 private:
  boost::asio::awaitable<void> serveResource(net::HttpExchange& ex, Request& req);
  boost::asio::awaitable<void> serveWatch(net::HttpExchange& ex, Request& req);
  // GET, PUT and DELETE of the fault configuration (system:masters only).
  boost::asio::awaitable<void> serveFaultAdmin(net::HttpExchange& ex, const UserInfo& user);
  // Answers `req` with the injected 500, 429, 409 or 410 instead of serving it.
  boost::asio::awaitable<void> answerFault(net::HttpExchange& ex, Request& req,
                                           const FaultPlan& plan);

  api::Result<boost::json::object> get(Request& req);
  api::Result<boost::json::object> list(Request& req);
  api::Result<std::pair<int, boost::json::object>> create(Request& req, uint64_t& seq);
  api::Result<boost::json::object> update(Request& req, uint64_t& seq);
  api::Result<boost::json::object> patch(Request& req, uint64_t& seq);
  api::Result<boost::json::object> remove(Request& req, uint64_t& seq);
  api::Result<boost::json::object> removeCollection(Request& req, uint64_t& seq);

  // Writes `next` over the stored object as an update of the given kind, applying the rules every
  // write path shares (immutable metadata, generation, status subresource, finalizers).
  enum class WriteKind { kMain, kStatus };
  api::Result<boost::json::object> write(const ResourceInfo& r, const ObjectKey& key,
                                         const boost::json::object& current,
                                         boost::json::object next, WriteKind kind, bool dryRun,
                                         uint64_t& seq);
  // Deletes now or marks for deletion (finalizers); collects dependents.
  api::Result<boost::json::object> deleteObject(const ResourceInfo& r, const ObjectKey& key,
                                                const std::string& propagation,
                                                std::optional<int64_t> expectedVersion,
                                                const std::string& expectedUid, bool dryRun,
                                                uint64_t& seq);
  // Custom resources: schema defaults, pruning (Strict fieldValidation rejects unknown fields,
  // Warn reports them) and validation.
  api::Result<void> admitCustom(const ResourceInfo& r, boost::json::object& object, Request& req);
  // Mutating webhooks, then the CRD schema (main resource only), then validating webhooks.
  // `object` is null for DELETE; `old` is null for CREATE.
  api::Result<void> admit(const ResourceInfo& r, const char* operation, boost::json::object* object,
                          const boost::json::object* old, Request& req);
  // The user behind the request's bearer token; nullopt: 401.
  std::optional<UserInfo> authenticate(const net::HttpRequest& http);
  // Escalation prevention for Roles, ClusterRoles and their bindings (rbac_admission.cc).
  api::Result<void> checkEscalation(const ResourceInfo& r, const boost::json::object& object,
                                    Request& req);
  // POST serviceaccounts/NAME/token and selfsubjectaccessreviews (rbac_admission.cc).
  api::Result<boost::json::object> createToken(Request& req);
  // SelfSubjectAccessReview (the requester) and SubjectAccessReview (spec.user, spec.groups).
  api::Result<boost::json::object> reviewSelfAccess(Request& req);
  void collectDependents(const std::string& ownerUid, const std::string& propagation,
                         uint64_t& seq);
  void deleteNamespaceContents(const std::string& ns, uint64_t& seq);
  void onCrdChanged(const boost::json::object& crd, bool deleted, uint64_t& seq);

  Store& store_;
  ApiServerOptions options_;
  // Mixed into what Services are allocated, so two API servers (host and members) give the same
  // Service different clusterIPs, as separate clusters do.
  uint32_t allocationSalt_ = 0;
  ResourceRegistry registry_;
  RequestMetrics metrics_;
  std::unique_ptr<RbacAuthorizer> authorizer_;
};

}  // namespace flotilla::sim
