// Dynamic admission as kube-apiserver does it: Mutating then Validating webhook configurations
// (admissionregistration.k8s.io/v1) are matched against each write by rules (operations, groups,
// versions, resources incl. subresources and wildcards, scope), namespaceSelector and
// objectSelector; matching webhooks get an AdmissionReview v1 over HTTPS (clientConfig.url, or a
// service reference resolved to 127.0.0.1:<port> and verified as <name>.<namespace>.svc) with
// their caBundle and timeoutSeconds; failurePolicy decides what a failed call means; mutating
// webhooks' JSONPatch responses are applied in order.
//
// Matching and review construction are pure functions; calls go through the WebhookCaller seam.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/label_selector.h"
#include "api/result.h"

namespace flotilla::sim {

struct AdmissionAttributes {
  std::string operation;  // CREATE | UPDATE | DELETE
  std::string group, version, resource, subresource, kind;
  bool namespaced = true;
  std::string ns, name;
  std::optional<boost::json::object> object;     // absent for DELETE
  std::optional<boost::json::object> oldObject;  // UPDATE and DELETE
  bool dryRun = false;
  std::string username = "flotilla-sim:admin";
  std::string uid;
  std::vector<std::string> groups = {"system:masters", "system:authenticated"};
};

struct Webhook {
  std::string configuration;  // the configuration object's name
  std::string name;
  bool mutating = false;
  boost::json::object spec;  // the webhook entry as stored
  std::string url;           // resolved target
  std::string serverName;    // TLS name to verify (service: name.namespace.svc)
  std::string caPem;
  std::chrono::milliseconds timeout{10'000};
  bool failOpen = false;  // failurePolicy: Ignore
};

// A metav1.LabelSelector in JSON (null: everything); nullopt when malformed.
std::optional<api::Selector> labelSelectorFromJson(const boost::json::value* value);

// Webhooks of the given configurations (sorted by configuration name, then declaration order, as
// kube-apiserver) that match the request. `namespaceLabels` are the labels of the request's
// namespace (of the Namespace itself for namespaces; ignored for other cluster-scoped objects).
std::vector<Webhook> matchingWebhooks(const std::vector<boost::json::object>& configurations,
                                      bool mutating, const AdmissionAttributes& attributes,
                                      const std::map<std::string, std::string>& namespaceLabels);

// kube-apiserver's validation of a Validating/MutatingWebhookConfiguration's entries (the rules
// the sim relies on to call a webhook): exactly one of clientConfig.url and .service, https URLs,
// sideEffects and admissionReviewVersions present. Field paths as kube-apiserver reports them.
api::FieldErrors validateWebhookConfiguration(const boost::json::object& configuration);

// The AdmissionReview request body for one call.
boost::json::object admissionReview(const AdmissionAttributes& attributes, const std::string& uid);

// What one webhook answered: allowed or not, and for mutating webhooks the patched object.
struct AdmissionVerdict {
  bool allowed = true;
  // When not allowed, the webhook's response.status passed through as kube-apiserver does: its
  // code (400 when below 400), its reason (may be empty), the message
  // `admission webhook "<name>" denied the request: <message>` (or `: <reason>`, or
  // ` without explanation`), and its details exactly as sent (nullopt: none).
  api::Error denial;
  std::optional<boost::json::object> denialDetails;
  std::optional<boost::json::value> jsonPatch;
  std::vector<std::string> warnings;
};
api::Result<AdmissionVerdict> parseAdmissionResponse(const Webhook& webhook,
                                                     const std::string& body,
                                                     const std::string& uid);

// Sends one review and returns the response body (transport and HTTP errors as Error).
class WebhookCaller {
 public:
  virtual ~WebhookCaller() = default;
  virtual api::Result<std::string> call(const Webhook& webhook, const std::string& body) = 0;
};
// Blocking HTTPS calls on a private I/O thread.
std::unique_ptr<WebhookCaller> makeHttpWebhookCaller();

// The details kube-apiserver sends with a failed call's 500 (`Internal error occurred: failed
// calling webhook ...`): {causes: [{message: "failed calling webhook ..."}]}.
boost::json::object callFailureDetails(const api::Error& failure);

// Runs every matching webhook of one kind. Mutating webhooks may change `object`. Returns the
// error the API request should fail with (a denial, or a failed call under failurePolicy Fail);
// `details` then gets what the Status's details must be (empty: none). Warnings are collected
// from every webhook that answered, denying ones included. A failed call under failurePolicy
// Ignore is skipped silently, as kube-apiserver does (it only logs it).
api::Result<void> runWebhooks(WebhookCaller& caller, const std::vector<Webhook>& webhooks,
                              AdmissionAttributes& attributes, std::vector<std::string>& warnings,
                              std::optional<boost::json::object>& details);

// What Go's REST client says of a webhook's non-2xx answer (`the server could not find the
// requested resource`, `an error on the server ("<body>") has prevented the request from
// succeeding`, ...), after kube-apiserver's `failed to call webhook: `.
std::string webhookStatusError(int status, const std::string& body);

}  // namespace flotilla::sim
