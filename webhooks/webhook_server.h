// The operator's admission server (docs/design.md §6): HTTPS with the certificate from --cert-dir
// (reloaded on change), AdmissionReview v1 at kubebuilder's paths, on its own I/O thread so that
// admission answers while the controllers are busy and in every replica, leader or not (the
// webhook Service sends requests to any ready pod).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <set>
#include <string>

#include "api/result.h"
#include "kube/manager/metrics.h"
#include "webhooks/access_review.h"
#include "webhooks/admission.h"

namespace flotilla::webhooks {

struct WebhookServerOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 9443;  // 0: any free port (tests; the bound one is logged)
  std::filesystem::path certDir = "/tmp/k8s-webhook-server/serving-certs";
  // Connections served at once; at the limit, kept-alive connections waiting for their next
  // request are closed and further clients wait in the listen backlog. kube-apiserver keeps a
  // few connections per replica. The limit is high so that slow clients cannot fill it
  // (docs/security.md, M2): a connection that sends nothing costs a descriptor and a few KiB, and
  // leaves after requestTimeout; memory is bounded by maxBufferedBodies, not by this.
  size_t maxConnections = 1024;
  // The TLS handshake and the whole first request must arrive within this: kube-apiserver sends
  // its request at once, and gives up after the configuration's timeoutSeconds anyway.
  std::chrono::milliseconds requestTimeout{5'000};
  // An AdmissionReview carries the object and the old one, each at most etcd's 1.5 MiB.
  size_t maxRequestBody = size_t{6} << 20;
  // Request bodies in memory at once, over all connections: well inside the container's memory
  // limit however many clients send at the same time.
  size_t maxBufferedBodies = size_t{128} << 20;
  // Users whose requests need no SubjectAccessReview (handleAdmission): the operator itself.
  std::set<std::string> trustedUsers;
};

class WebhookServer {
 public:
  // `cluster` and `reviewer` must outlive the server. Without a reviewer, a request that needs an
  // access review (a FederatedCluster naming a Secret) is denied: admission fails closed.
  // `discovery` (optional, outliving the server too) answers whether the host serves the kinds an
  // override policy selects; without it no such warning is given.
  WebhookServer(WebhookServerOptions options, const ClusterView& cluster,
                AccessReviewer* reviewer = nullptr, KindDiscovery* discovery = nullptr);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  // Loads the certificate, binds and starts serving; returns the bound port. Errors name the
  // missing file or the address in use.
  api::Result<uint16_t> start();
  void stop();  // idempotent; closes every connection
  uint16_t port() const;

  // flotilla_webhook_requests_total{webhook,allowed}, flotilla_webhook_duration_seconds,
  // flotilla_webhook_certificate_reloads_total.
  void collectMetrics(kube::MetricsWriter& writer) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::webhooks
