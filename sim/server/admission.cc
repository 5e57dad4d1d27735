#include "sim/server/admission.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <map>
#include <thread>

#include "api/base64.h"
#include "api/label_selector.h"
#include "kube/net/http_client.h"
#include "sim/server/patch.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {
namespace json = boost::json;
namespace asio = boost::asio;

namespace {

std::string str(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool listHas(const json::object& rule, const char* key, const std::string& value) {
  const auto* list = rule.if_contains(key);
  if (!list || !list->is_array()) return false;
  for (const auto& v : list->as_array()) {
    if (v.is_string() && (v.as_string() == "*" || v.as_string() == value)) return true;
  }
  return false;
}

bool resourceMatches(const json::object& rule, const AdmissionAttributes& a) {
  const auto* list = rule.if_contains("resources");
  if (!list || !list->is_array()) return false;
  for (const auto& v : list->as_array()) {
    if (!v.is_string()) continue;
    const std::string entry(v.as_string());
    const auto slash = entry.find('/');
    const std::string res = entry.substr(0, slash);
    const std::string sub = slash == std::string::npos ? "" : entry.substr(slash + 1);
    if (res != "*" && res != a.resource) continue;
    if (slash == std::string::npos) {
      if (a.subresource.empty()) return true;  // "pods" and "*" never match subresources
    } else if (sub == "*" || sub == a.subresource) {
      return true;
    }
  }
  return false;
}

bool ruleMatches(const json::object& rule, const AdmissionAttributes& a) {
  if (!listHas(rule, "operations", a.operation)) return false;
  if (!listHas(rule, "apiGroups", a.group)) return false;
  if (!listHas(rule, "apiVersions", a.version)) return false;
  if (!resourceMatches(rule, a)) return false;
  const std::string scope = str(rule, "scope");
  if (scope == "Cluster" && a.namespaced) return false;
  if (scope == "Namespaced" && !a.namespaced) return false;
  return true;
}

api::Labels labelsOf(const std::optional<json::object>& object) {
  api::Labels labels;
  if (!object) return labels;
  const auto* m = object->if_contains("metadata");
  if (!m || !m->is_object()) return labels;
  const auto* l = m->as_object().if_contains("labels");
  if (!l || !l->is_object()) return labels;
  for (const auto& [k, v] : l->as_object())
    if (v.is_string()) labels[std::string(k)] = std::string(v.as_string());
  return labels;
}

api::Error callFailure(const Webhook& w, const std::string& what) {
  return api::Error{api::reason::kInternalError,
                    500,
                    "Internal error occurred: failed calling webhook \"" + w.name + "\": " + what,
                    {}};
}

}  // namespace

std::optional<api::Selector> labelSelectorFromJson(const json::value* value) {
  api::LabelSelector selector;
  if (value && value->is_object()) {
    const auto& o = value->as_object();
    if (const auto* labels = o.if_contains("matchLabels"); labels && labels->is_object()) {
      for (const auto& [k, v] : labels->as_object())
        if (v.is_string()) selector.matchLabels[std::string(k)] = std::string(v.as_string());
    }
    if (const auto* exprs = o.if_contains("matchExpressions"); exprs && exprs->is_array()) {
      for (const auto& e : exprs->as_array()) {
        if (!e.is_object()) continue;
        api::LabelSelectorRequirement r{
            str(e.as_object(), "key"), str(e.as_object(), "operator"), {}};
        if (const auto* values = e.as_object().if_contains("values"); values && values->is_array())
          for (const auto& v : values->as_array())
            if (v.is_string()) r.values.emplace_back(v.as_string());
        selector.matchExpressions.push_back(std::move(r));
      }
    }
  }
  auto compiled = api::Selector::fromLabelSelector(selector);
  if (!compiled) return std::nullopt;
  return *compiled;
}

api::FieldErrors validateWebhookConfiguration(const json::object& configuration) {
  api::FieldErrors errors;
  const json::value* hooks = configuration.if_contains("webhooks");
  if (!hooks || !hooks->is_array()) return errors;
  for (size_t i = 0; i < hooks->as_array().size(); ++i) {
    const std::string path = "webhooks[" + std::to_string(i) + "]";
    const json::value& hook = hooks->as_array()[i];
    if (!hook.is_object()) continue;
    const json::object& h = hook.as_object();
    const json::value* cc = h.if_contains("clientConfig");
    const json::object empty;
    const json::object& clientConfig = cc && cc->is_object() ? cc->as_object() : empty;
    const json::value* url = clientConfig.if_contains("url");
    const bool hasUrl = url && !url->is_null();
    const json::value* service = clientConfig.if_contains("service");
    const bool hasService = service && !service->is_null();
    // kube-apiserver's order: sideEffects, clientConfig, admissionReviewVersions.
    const json::value* sideEffects = h.if_contains("sideEffects");
    if (!sideEffects || !sideEffects->is_string() || sideEffects->as_string().empty())
      errors.push_back(
          {path + ".sideEffects", "Required value: must specify one of None, NoneOnDryRun"});
    if (hasUrl == hasService) {
      errors.push_back(
          {path + ".clientConfig", "Required value: exactly one of url or service is required"});
    } else if (hasUrl && url->is_string()) {
      const std::string_view text = url->as_string();
      const size_t colon = text.find("://");
      const std::string scheme(colon == std::string_view::npos ? "" : text.substr(0, colon));
      if (scheme != "https")
        errors.push_back({path + ".clientConfig.url",
                          "Invalid value: \"" + scheme +
                              "\": 'https' is the only allowed URL scheme; desired format: "
                              "https://host[/path]"});
    }
    const json::value* versions = h.if_contains("admissionReviewVersions");
    if (!versions || !versions->is_array() || versions->as_array().empty())
      errors.push_back(
          {path + ".admissionReviewVersions", "Required value: must specify one of v1, v1beta1"});
  }
  return errors;
}

std::vector<Webhook> matchingWebhooks(const std::vector<json::object>& configurations,
                                      bool mutating, const AdmissionAttributes& a,
                                      const std::map<std::string, std::string>& namespaceLabels) {
  std::vector<const json::object*> sorted;
  for (const auto& c : configurations) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(), [](const json::object* x, const json::object* y) {
    return str(x->at("metadata").as_object(), "name") < str(y->at("metadata").as_object(), "name");
  });
  std::vector<Webhook> out;
  for (const json::object* config : sorted) {
    const auto* hooks = config->if_contains("webhooks");
    if (!hooks || !hooks->is_array()) continue;
    for (const auto& entry : hooks->as_array()) {
      if (!entry.is_object()) continue;
      const auto& w = entry.as_object();
      bool matched = false;
      if (const auto* rules = w.if_contains("rules"); rules && rules->is_array()) {
        for (const auto& rule : rules->as_array())
          if (rule.is_object() && ruleMatches(rule.as_object(), a)) matched = true;
      }
      if (!matched) continue;
      // namespaceSelector applies to namespaced objects and to Namespaces themselves.
      if (a.namespaced || (a.resource == "namespaces" && a.group.empty())) {
        auto selector = labelSelectorFromJson(w.if_contains("namespaceSelector"));
        if (!selector || !selector->matches(namespaceLabels)) continue;
      }
      auto objectSelector = labelSelectorFromJson(w.if_contains("objectSelector"));
      if (!objectSelector) continue;
      // Either object may match; an absent one (old on CREATE, new on DELETE) never does.
      const bool objectMatches = objectSelector->empty() ||
                                 (a.object && objectSelector->matches(labelsOf(a.object))) ||
                                 (a.oldObject && objectSelector->matches(labelsOf(a.oldObject)));
      if (!objectMatches) continue;
      Webhook hook;
      hook.configuration = str(config->at("metadata").as_object(), "name");
      hook.name = str(w, "name");
      hook.mutating = mutating;
      hook.spec = w;
      hook.failOpen = str(w, "failurePolicy") == "Ignore";
      if (const auto* t = w.if_contains("timeoutSeconds"); t && t->is_int64())
        hook.timeout = std::chrono::seconds(std::clamp<int64_t>(t->as_int64(), 1, 30));
      if (const auto* cc = w.if_contains("clientConfig"); cc && cc->is_object()) {
        const auto& client = cc->as_object();
        if (auto ca = api::base64Decode(str(client, "caBundle"))) hook.caPem = *ca;
        hook.url = str(client, "url");
        if (const auto* svc = client.if_contains("service"); svc && svc->is_object()) {
          const auto& s = svc->as_object();
          int64_t port = 443;
          if (const auto* p = s.if_contains("port"); p && p->is_int64()) port = p->as_int64();
          // No cluster network here: a service is the local process listening on its port.
          hook.url = "https://127.0.0.1:" + std::to_string(port) + str(s, "path");
          hook.serverName = str(s, "name") + "." + str(s, "namespace") + ".svc";
        }
      }
      out.push_back(std::move(hook));
    }
  }
  return out;
}

json::object admissionReview(const AdmissionAttributes& a, const std::string& uid) {
  json::object userInfo{{"username", a.username}};
  if (!a.uid.empty()) userInfo["uid"] = a.uid;
  userInfo["groups"] = json::value_from(a.groups);
  json::object kind{{"group", a.group}, {"version", a.version}, {"kind", a.kind}};
  json::object resource{{"group", a.group}, {"version", a.version}, {"resource", a.resource}};
  json::object request{{"uid", uid},
                       {"kind", kind},
                       {"resource", resource},
                       {"requestKind", kind},
                       {"requestResource", resource},
                       {"name", a.name},
                       {"operation", a.operation},
                       {"userInfo", userInfo},
                       {"object", a.object ? json::value(*a.object) : json::value()},
                       {"oldObject", a.oldObject ? json::value(*a.oldObject) : json::value()},
                       {"dryRun", a.dryRun}};
  if (!a.subresource.empty()) request["subResource"] = a.subresource;
  if (a.namespaced) request["namespace"] = a.ns;
  return json::object{{"apiVersion", "admission.k8s.io/v1"},
                      {"kind", "AdmissionReview"},
                      {"request", std::move(request)}};
}

api::Result<AdmissionVerdict> parseAdmissionResponse(const Webhook& w, const std::string& body,
                                                     const std::string& uid) {
  boost::system::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    // kube-apiserver decodes the answer as YAML first: plain text is a string to it.
    const char* type = ec                   ? "string"
                       : parsed.is_array()  ? "array"
                       : parsed.is_bool()   ? "bool"
                       : parsed.is_string() ? "string"
                                            : "number";
    return callFailure(w, std::string("failed to call webhook: couldn't get version/kind; json "
                                      "parse error: json: cannot unmarshal ") +
                              type +
                              " into Go value of type struct { APIVersion string "
                              "\"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
                              "\"json:\\\"kind,omitempty\\\"\" }");
  }
  const auto* response = parsed.as_object().if_contains("response");
  if (!response || !response->is_object())
    return callFailure(w, "the AdmissionReview has no response");
  const auto& r = response->as_object();
  if (str(r, "uid") != uid)
    return callFailure(w, "expected response.uid=\"" + uid + "\", got \"" + str(r, "uid") + "\"");
  AdmissionVerdict verdict;
  const auto* allowed = r.if_contains("allowed");
  verdict.allowed = allowed && allowed->is_bool() && allowed->as_bool();
  if (const auto* warnings = r.if_contains("warnings"); warnings && warnings->is_array())
    for (const auto& warning : warnings->as_array())
      if (warning.is_string()) verdict.warnings.emplace_back(warning.as_string());
  if (!verdict.allowed) {
    const json::object* status = nullptr;
    if (const auto* s = r.if_contains("status"); s && s->is_object()) status = &s->as_object();
    int code = 400;
    std::string message, reason;
    if (status) {
      if (const auto* c = status->if_contains("code"); c && c->is_int64() && c->as_int64() >= 400)
        code = static_cast<int>(c->as_int64());
      message = str(*status, "message");
      reason = str(*status, "reason");
      if (const auto* d = status->if_contains("details"); d && d->is_object())
        verdict.denialDetails = d->as_object();
    }
    const std::string deniedBy = "admission webhook \"" + w.name + "\" denied the request";
    std::string text = !message.empty()  ? deniedBy + ": " + message
                       : !reason.empty() ? deniedBy + ": " + reason
                                         : deniedBy + " without explanation";
    verdict.denial = api::Error{reason, code, std::move(text), {}};
    return verdict;
  }
  const std::string patch = str(r, "patch");
  if (!patch.empty()) {
    if (!w.mutating) return callFailure(w, "a validating webhook may not return a patch");
    const std::string type = str(r, "patchType");
    if (type != "JSONPatch") return callFailure(w, "unsupported patchType \"" + type + "\"");
    auto decoded = api::base64Decode(patch);
    if (!decoded) return callFailure(w, "the patch is not valid base64");
    json::value operations = json::parse(*decoded, ec);
    if (ec || !operations.is_array()) return callFailure(w, "the patch is not a JSON array");
    verdict.jsonPatch = std::move(operations);
  }
  return verdict;
}

json::object callFailureDetails(const api::Error& failure) {
  constexpr std::string_view kPrefix = "Internal error occurred: ";
  std::string_view cause = failure.message;
  if (cause.substr(0, kPrefix.size()) == kPrefix) cause.remove_prefix(kPrefix.size());
  return json::object{{"causes", json::array{json::object{{"message", cause}}}}};
}

api::Result<void> runWebhooks(WebhookCaller& caller, const std::vector<Webhook>& webhooks,
                              AdmissionAttributes& attributes, std::vector<std::string>& warnings,
                              std::optional<json::object>& details) {
  for (const auto& w : webhooks) {
    const std::string uid = newUid();
    const std::string body = json::serialize(admissionReview(attributes, uid));
    auto answered = caller.call(w, body);
    api::Result<AdmissionVerdict> verdict =
        answered ? parseAdmissionResponse(w, *answered, uid)
                 : api::Result<AdmissionVerdict>(callFailure(w, answered.error().message));
    if (!verdict) {
      if (w.failOpen) continue;  // failurePolicy Ignore: kube-apiserver only logs it
      details = callFailureDetails(verdict.error());
      return verdict.error();
    }
    for (auto& warning : verdict->warnings) warnings.push_back(std::move(warning));
    if (!verdict->allowed) {
      details = verdict->denialDetails.value_or(json::object{});
      return verdict->denial;
    }
    if (verdict->jsonPatch && attributes.object && attributes.operation != "DELETE") {
      auto patched = applyJsonPatch(json::value(*attributes.object), *verdict->jsonPatch);
      if (!patched || !patched->is_object()) {
        auto failure =
            callFailure(w, "applying its patch failed: " +
                               (patched ? std::string("not an object") : patched.error().message));
        details = callFailureDetails(failure);
        return failure;
      }
      attributes.object = std::move(patched->as_object());
    }
  }
  return {};
}

std::string webhookStatusError(int status, const std::string& body) {
  std::string quoted = "\"";  // Go's %q of the body
  for (char c : body) {
    if (c == '"' || c == '\\') quoted += '\\';
    if (c == '\n') {
      quoted += "\\n";
      continue;
    }
    quoted += c;
  }
  quoted += '"';
  switch (status) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "the server has asked for the client to provide credentials";
    case 403:
      return body;  // the server's own words about who may do what
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 409:
      return "the server reported a conflict";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be "
             "processing the request";
    default:
      if (status >= 500)
        return "an error on the server (" + quoted + ") has prevented the request from succeeding";
      return "the server responded with the status code " + std::to_string(status) +
             " but did not return more information";
  }
}

namespace {

// Our client's transport errors in the words of Go's net/http, as kube-apiserver reports them.
std::string goTransportError(const net::Endpoint& endpoint, const api::Error& error) {
  const std::string& m = error.message;
  if (error.reason == api::reason::kTimeout) return "context deadline exceeded";
  if (m.find("Connection refused") != std::string::npos)
    return "dial tcp " + endpoint.hostHeader() + ": connect: connection refused";
  if (m.find("certificate verify failed") != std::string::npos)
    return "x509: certificate signed by unknown authority";
  return m;
}

class HttpWebhookCaller final : public WebhookCaller {
 public:
  HttpWebhookCaller() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~HttpWebhookCaller() override {
    work_.reset();
    io_.stop();
    thread_.join();
  }

  api::Result<std::string> call(const Webhook& w, const std::string& body) override {
    auto endpoint = net::parseEndpoint(w.url);
    if (!endpoint) return api::Error{api::reason::kTransport, 0, endpoint.error().message, {}};
    if (!endpoint->tls)
      return api::Error{api::reason::kTransport, 0, "webhook URLs must use https", {}};
    net::TlsClientOptions tls;
    tls.caPem = w.caPem;
    auto context = net::makeClientTlsContext(tls);
    if (!context) return api::Error{api::reason::kTransport, 0, context.error().message, {}};
    net::HttpClientOptions options;
    options.tls = *context;
    options.serverName = w.serverName;
    options.maxResponseBody = size_t{3} << 20;
    auto http = std::make_shared<net::HttpClient>(io_.get_executor(), *endpoint, options);
    // kube-apiserver's REST client adds ?timeout=<timeoutSeconds>s, and names that URL in errors.
    const std::string timeoutQuery =
        "?timeout=" +
        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(w.timeout).count()) + "s";
    const std::string url = w.url + timeoutQuery;
    net::HttpRequest request;
    request.method = "POST";
    request.target = (endpoint->basePath.empty() ? "/" : "") + timeoutQuery;
    request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    request.body = body;
    auto task =
        [](std::shared_ptr<net::HttpClient> client, net::HttpRequest req,
           std::chrono::milliseconds timeout) -> asio::awaitable<api::Result<net::HttpResponse>> {
      co_return co_await client->request(std::move(req), timeout);
    };
    auto response =
        asio::co_spawn(io_, task(http, std::move(request), w.timeout), asio::use_future).get();
    if (!response) {
      return api::Error{response.error().reason == api::reason::kTimeout ? api::reason::kTimeout
                                                                         : api::reason::kTransport,
                        0,
                        "failed to call webhook: Post \"" + url +
                            "\": " + goTransportError(*endpoint, response.error()),
                        {}};
    }
    if (response->status < 200 || response->status > 206)
      return api::Error{
          api::reason::kTransport,
          0,
          "failed to call webhook: " + webhookStatusError(response->status, response->body),
          {}};
    return api::okString(std::move(response->body));
  }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::thread thread_;
};

}  // namespace

std::unique_ptr<WebhookCaller> makeHttpWebhookCaller() {
  return std::make_unique<HttpWebhookCaller>();
}

}  // namespace flotilla::sim
