#include "sim/server/api_server.h"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <random>

#include "api/base64.h"
#include "sim/server/admission.h"
#include "sim/server/authorizer.h"
#include "sim/server/defaults.h"
#include "sim/server/events.h"
#include "sim/server/faults.h"
#include "sim/server/internal.h"
#include "sim/server/openapi.h"
#include "sim/server/status.h"

namespace flotilla::sim {
namespace asio = boost::asio;
namespace json = boost::json;

namespace internal {

json::object& metadata(json::object& object) {
  auto& m = object["metadata"];
  if (!m.is_object()) m = json::object{};
  return m.as_object();
}

std::string metaString(const json::object& object, std::string_view field) {
  const auto* m = object.if_contains("metadata");
  if (!m || !m->is_object()) return {};
  const auto* v = m->as_object().if_contains(field);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<int64_t> parseVersion(std::string_view text) {
  if (text.empty() || text.size() > 18) return std::nullopt;
  int64_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

int64_t storedVersion(const json::object& object) {
  return parseVersion(metaString(object, "resourceVersion")).value_or(0);
}

bool isEvents(const ResourceInfo& r) {
  return r.resource == "events" && !r.custom && (r.group.empty() || r.group == "events.k8s.io");
}

json::object servedAs(json::object object, const ResourceInfo& r) {
  if (isEvents(r))
    return r.group.empty() ? eventToCore(std::move(object)) : eventToEventsV1(object);
  const auto* apiVersion = object.if_contains("apiVersion");
  if (!apiVersion || !apiVersion->is_string() || apiVersion->as_string() != r.groupVersion())
    object["apiVersion"] = r.groupVersion();
  if (!object.contains("kind")) object["kind"] = r.kind;
  return object;
}

json::object storedForm(json::object object, const ResourceInfo& r) {
  if (isEvents(r)) return eventToCore(std::move(object));
  return object;
}

void defaultBuiltin(const ResourceInfo& r, json::object& object, const json::object* old,
                    int minorVersion) {
  if (r.custom) return;
  dropDisabledFields(r.group, r.resource, object, minorVersion);
  if (old && r.group == "batch" && r.resource == "jobs") keepJobSelector(object, *old);
  applyDefaults(r.group, r.resource, object);
  if (r.group.empty() && r.resource == "pods") admitPod(object, old);
}

void allocate(const ResourceInfo& r, json::object& object, const json::object* old, uint32_t salt) {
  if (!r.custom && r.group.empty() && r.resource == "services") allocateService(object, old, salt);
}

bool Filter::matches(const json::object& object) const {
  if (labels) {
    api::Labels l;
    if (const auto* m = object.if_contains("metadata"); m && m->is_object()) {
      if (const auto* ls = m->as_object().if_contains("labels"); ls && ls->is_object()) {
        for (const auto& [k, v] : ls->as_object())
          if (v.is_string()) l[std::string(k)] = std::string(v.as_string());
      }
    }
    if (!labels->matches(l)) return false;
  }
  if (!fields.empty()) {
    const json::value root(object);
    for (const auto& [path, equal, value] : fields) {
      std::string actual;
      if (eventSource && path == "source") {
        actual = coreEventSourceLabel(object);
      } else if (auto found = evalJsonPath(root, "." + path)) {
        actual = found->is_string() ? std::string(found->as_string()) : json::serialize(*found);
      }
      if ((actual == value) != equal) return false;
    }
  }
  return true;
}

api::Result<Filter> parseFilter(const std::map<std::string, std::string>& query,
                                const ResourceInfo* resource) {
  Filter filter;
  const bool events = resource && isEvents(*resource);
  const bool eventsV1 = events && !resource->group.empty();
  filter.eventSource = events && !eventsV1;
  if (auto it = query.find("labelSelector"); it != query.end() && !it->second.empty()) {
    auto selector = api::Selector::parse(it->second);
    if (!selector) return badRequest("unable to parse requirement: " + selector.error().message);
    filter.labels = std::move(*selector);
  }
  if (auto it = query.find("fieldSelector"); it != query.end() && !it->second.empty()) {
    std::string_view text = it->second;
    while (!text.empty()) {
      const size_t comma = text.find(',');
      std::string_view term = text.substr(0, comma);
      text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
      bool equal = true;
      size_t op = term.find("!=");
      size_t valueStart = 0;
      if (op != std::string_view::npos) {
        equal = false;
        valueStart = op + 2;
      } else if ((op = term.find("==")) != std::string_view::npos) {
        valueStart = op + 2;
      } else if ((op = term.find('=')) != std::string_view::npos) {
        valueStart = op + 1;
      } else {
        return badRequest("invalid selector: '" + it->second + "'; can't understand '" +
                          std::string(term) + "'");
      }
      std::string path(term.substr(0, op));
      if (eventsV1) path = eventsV1FieldToCore(path);
      filter.fields.emplace_back(std::move(path), equal, std::string(term.substr(valueStart)));
    }
  }
  return filter;
}

net::HttpResponse jsonReply(int status, const json::value& body) {
  return net::HttpResponse{status, {{"Content-Type", "application/json"}}, json::serialize(body)};
}

net::HttpResponse errorReply(const api::Error& error, const ResourceInfo* resource,
                             const std::string& name, const std::optional<json::object>& details) {
  auto body = statusBody(error, resource, name);
  if (details) {
    if (details->empty()) {
      body.erase("details");
    } else {
      body["details"] = *details;
    }
  }
  return jsonReply(error.code == 0 ? 500 : error.code, body);
}

asio::awaitable<void> waitDurable(Store& store, uint64_t seq) {
  if (seq == 0) co_return;
  co_await asio::async_initiate<decltype(asio::use_awaitable), void()>(
      [&store, seq](auto handler) {
        auto executor = asio::get_associated_executor(handler);
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        store.onDurable(seq, [shared, executor] {
          asio::post(executor, [shared]() mutable { std::move (*shared)(); });
        });
      },
      asio::use_awaitable);
}

}  // namespace internal

using namespace internal;

ApiServer::ApiServer(Store& store, ApiServerOptions options)
    : store_(store),
      options_(std::move(options)),
      authorizer_(std::make_unique<RbacAuthorizer>(store)) {
  if (!options_.webhookCaller) options_.webhookCaller = makeHttpWebhookCaller();
  allocationSalt_ = std::random_device{}();
  if (options_.serviceAccountKey.empty()) options_.serviceAccountKey = newSigningKey();
  if (!options_.faults) options_.faults = std::make_shared<FaultInjector>();
}

ApiServer::~ApiServer() = default;

net::HttpResponse ApiServer::errorResponse(int status, const std::string& message) {
  const char* reason = status == 413   ? api::reason::kRequestEntityTooLarge
                       : status == 400 ? api::reason::kBadRequest
                                       : api::reason::kInternalError;
  api::Error error{reason, status, message, {}};
  return net::HttpResponse{
      status, {{"Content-Type", "application/json"}}, json::serialize(statusBody(error))};
}

api::Result<void> ApiServer::bootstrap() {
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    ObjectKey key{"/namespaces", "", ns};
    if (store_.get(key)) continue;
    json::object object{
        {"apiVersion", "v1"},
        {"kind", "Namespace"},
        {"metadata", json::object{{"name", ns},
                                  {"uid", newUid()},
                                  {"creationTimestamp", api::formatRfc3339(options_.now())},
                                  {"labels", json::object{{"kubernetes.io/metadata.name", ns}}}}},
        {"spec", json::object{{"finalizers", json::array{"kubernetes"}}}},
        {"status", json::object{{"phase", "Active"}}}};
    auto created = store_.create(key, std::move(object));
    if (!created) return created.error();
  }
  for (const auto& crd : store_.list("apiextensions.k8s.io/customresourcedefinitions", "").items) {
    uint64_t seq = 0;
    onCrdChanged(crd, false, seq);
  }
  uint64_t seq = 0;
  if (auto policy = ensureBootstrapPolicy(store_, api::formatRfc3339(options_.now()), seq); !policy)
    return policy.error();
  aggregateClusterRoles(store_);
  store_.flush();
  return {};
}

namespace {

json::object apiResourceList(const ResourceRegistry& registry, const std::string& groupVersion) {
  json::array resources;
  for (const auto& r : registry.all()) {
    if (r->groupVersion() != groupVersion) continue;
    json::object entry{
        {"name", r->resource},
        {"singularName", r->singular},
        {"namespaced", r->namespaced},
        {"kind", r->kind},
        {"verbs", r->verbs.empty() ? json::array{"create", "delete", "deletecollection", "get",
                                                 "list", "patch", "update", "watch"}
                                   : json::value_from(r->verbs).as_array()}};
    if (!r->shortNames.empty()) entry["shortNames"] = json::value_from(r->shortNames);
    if (!r->categories.empty()) entry["categories"] = json::value_from(r->categories);
    resources.push_back(std::move(entry));
    if (r->statusSubresource) {
      resources.push_back(json::object{{"name", r->resource + "/status"},
                                       {"singularName", ""},
                                       {"namespaced", r->namespaced},
                                       {"kind", r->kind},
                                       {"verbs", json::array{"get", "patch", "update"}}});
    }
    if (r->resource == "serviceaccounts" && r->group.empty()) {
      resources.push_back(json::object{{"name", "serviceaccounts/token"},
                                       {"singularName", ""},
                                       {"namespaced", true},
                                       {"group", "authentication.k8s.io"},
                                       {"version", "v1"},
                                       {"kind", "TokenRequest"},
                                       {"verbs", json::array{"create"}}});
    }
    if (r->scaleSubresource) {
      resources.push_back(json::object{{"name", r->resource + "/scale"},
                                       {"singularName", ""},
                                       {"namespaced", r->namespaced},
                                       {"group", "autoscaling"},
                                       {"version", "v1"},
                                       {"kind", "Scale"},
                                       {"verbs", json::array{"get", "patch", "update"}}});
    }
  }
  return json::object{{"kind", "APIResourceList"},
                      {"apiVersion", "v1"},
                      {"groupVersion", groupVersion},
                      {"resources", std::move(resources)}};
}

json::object apiGroup(const std::string& name, const std::vector<std::string>& versions) {
  json::array list;
  for (const auto& v : versions)
    list.push_back(json::object{{"groupVersion", name + "/" + v}, {"version", v}});
  json::object preferred = list.front().as_object();
  return json::object{
      {"name", name}, {"versions", std::move(list)}, {"preferredVersion", preferred}};
}

std::map<std::string, std::vector<std::string>> groups(const ResourceRegistry& registry) {
  std::map<std::string, std::vector<std::string>> out;
  std::vector<std::string> order;
  for (const auto& gv : registry.groupVersions()) {
    const size_t slash = gv.find('/');
    if (slash == std::string::npos) continue;
    auto& versions = out[gv.substr(0, slash)];
    versions.push_back(gv.substr(slash + 1));
  }
  return out;
}

// Forwards to the server's exchange and remembers the status sent (for the request metrics).
class RecordingExchange final : public net::HttpExchange {
 public:
  // `swallow`: nothing reaches the client (a fault drops the connection after the request was
  // served and committed).
  explicit RecordingExchange(net::HttpExchange& inner, bool swallow = false)
      : inner_(inner), swallow_(swallow) {}
  const net::HttpRequest& request() const override { return inner_.request(); }
  const std::string& clientCommonName() const override { return inner_.clientCommonName(); }
  asio::any_io_executor executor() const override { return inner_.executor(); }
  asio::awaitable<void> respond(net::HttpResponse response) override {
    status_ = response.status;
    if (!swallow_) co_await inner_.respond(std::move(response));
  }
  asio::awaitable<bool> startStream(int status, net::Headers headers) override {
    status_ = status;
    if (swallow_) co_return false;
    co_return co_await inner_.startStream(status, std::move(headers));
  }
  asio::awaitable<bool> writeChunk(std::string data) override {
    co_return co_await inner_.writeChunk(std::move(data));
  }
  asio::awaitable<void> endStream() override { co_await inner_.endStream(); }
  bool clientGone() override { return inner_.clientGone(); }
  void abandon() override { inner_.abandon(); }
  int status() const { return status_; }

 private:
  net::HttpExchange& inner_;
  bool swallow_ = false;
  int status_ = 0;
};

// The RBAC verb of a request, from the verb kube-apiserver reports.
std::string rbacVerb(const std::string& reported, bool named) {
  if (reported == "GET") return "get";
  if (reported == "LIST") return "list";
  if (reported == "WATCH") return "watch";
  if (reported == "POST") return "create";
  if (reported == "PUT") return "update";
  if (reported == "PATCH" || reported == "APPLY") return "patch";
  if (reported == "DELETE") return named ? "delete" : "deletecollection";
  return reported;
}

bool constantTimeEqual(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::optional<UserInfo> ApiServer::authenticate(const net::HttpRequest& http) {
  const UserInfo admin{
      kAdminUser, "", {std::string(kSystemMasters), std::string(kSystemAuthenticated)}};
  if (options_.tokens.empty()) return admin;
  const std::string_view header = http.header("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() <= kBearer.size() || header.substr(0, kBearer.size()) != kBearer)
    return std::nullopt;
  const std::string_view token = header.substr(kBearer.size());
  // Constant-time comparisons: a token must not be guessable byte by byte from timing.
  bool isAdmin = false;
  for (const auto& t : options_.tokens) isAdmin = constantTimeEqual(t, token) || isAdmin;
  if (isAdmin) return admin;
  const TokenFileEntry* entry = nullptr;
  for (const auto& e : options_.tokenFile)
    if (constantTimeEqual(e.token, token)) entry = &e;
  if (entry) {
    UserInfo user = entry->user;
    if (std::find(user.groups.begin(), user.groups.end(), kSystemAuthenticated) ==
        user.groups.end())
      user.groups.emplace_back(kSystemAuthenticated);
    return user;
  }
  if (!looksLikeJwt(token)) return std::nullopt;
  auto claims = verifyServiceAccountToken(options_.serviceAccountKey, token, options_.now());
  if (!claims) return std::nullopt;
  if (std::find(claims->audiences.begin(), claims->audiences.end(), kApiAudience) ==
      claims->audiences.end())
    return std::nullopt;
  // The ServiceAccount must still exist (the same one: a re-created account has a new uid).
  auto account = store_.get({"/serviceaccounts", claims->ns, claims->name});
  if (!account || metaString(*account, "uid") != claims->uid ||
      !metaString(*account, "deletionTimestamp").empty())
    return std::nullopt;
  // A legacy token lives as long as its Secret holds it (deleting the Secret revokes it).
  if (!claims->secretName.empty()) {
    auto secret = store_.get({"/secrets", claims->ns, claims->secretName});
    if (!secret || !metaString(*secret, "deletionTimestamp").empty()) return std::nullopt;
    const auto* data = secret->if_contains("data");
    const auto* held = data && data->is_object() ? data->as_object().if_contains("token") : nullptr;
    auto decoded = held && held->is_string() ? api::base64Decode(held->as_string())
                                             : std::optional<std::string>();
    if (!decoded || !constantTimeEqual(*decoded, token)) return std::nullopt;
  }
  return serviceAccountUser(claims->ns, claims->name, claims->uid);
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point started) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

}  // namespace

asio::awaitable<void> ApiServer::handle(net::HttpExchange& ex) {
  const auto started = std::chrono::steady_clock::now();
  const auto& http = ex.request();
  const std::string path(http.path());
  if (path == "/healthz" || path == "/readyz" || path == "/livez") {
    RequestLabels probe;
    probe.verb = "GET";
    probe.subresource = path;
    probe.component = "";
    probe.code = 200;
    metrics_.record(probe);
    net::HttpResponse ok{200, {{"Content-Type", "text/plain; charset=utf-8"}}, "ok"};
    co_await ex.respond(std::move(ok));
    co_return;
  }
  auto user = authenticate(http);
  if (!user) {
    {
      auto reply = errorReply({api::reason::kUnauthorized, 401, "Unauthorized", {}});
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (path == "/flotilla-sim/faults") {
    co_await serveFaultAdmin(ex, *user);
    co_return;
  }
  if (options_.authorizationMode != "AlwaysAllow") {
    const auto query = parseQuery(http.query());
    const auto attributes = requestAttributes(http.method, path, query);
    auto decision = authorizer_->authorize(*user, attributes);
    if (!decision.allowed) {
      {
        auto reply = jsonReply(403, forbiddenStatus(attributes, *user, decision.reason));
        co_await ex.respond(std::move(reply));
      }
      co_return;
    }
  }
  if (path == "/metrics") {
    std::string exposition = metrics_.exposition();
    if (auto injected = options_.faults->injected(); !injected.empty()) {
      exposition +=
          "# HELP flotilla_sim_injected_faults_total Faults injected (flotilla-sim --faults).\n"
          "# TYPE flotilla_sim_injected_faults_total counter\n";
      for (const auto& [fault, n] : injected)
        exposition += "flotilla_sim_injected_faults_total{fault=\"" + fault + "\"} " +
                      std::to_string(n) + "\n";
    }
    net::HttpResponse text{
        200, {{"Content-Type", "text/plain; version=0.0.4; charset=utf-8"}}, std::move(exposition)};
    co_await ex.respond(std::move(text));
    co_return;
  }
  if (path == "/version") {
    // major and minor as the gitVersion says ("v1.26.3": "1", "26").
    std::string majorVersion = options_.gitVersion.size() > 1 ? options_.gitVersion.substr(1) : "";
    majorVersion = majorVersion.substr(0, majorVersion.find('.'));
    const json::value body =
        json::object{{"major", majorVersion},
                     {"minor", std::to_string(minorVersionOf(options_.gitVersion))},
                     {"gitVersion", options_.gitVersion},
                     {"gitCommit", ""},
                     {"gitTreeState", "clean"},
                     {"buildDate", "2026-11-22T00:00:00Z"},
                     {"goVersion", ""},
                     {"compiler", "gc"},
                     {"platform", "linux/amd64"}};
    {
      auto reply = jsonReply(200, body);
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (path == "/openapi/v3" || path.rfind("/openapi/v3/", 0) == 0) {
    std::optional<json::object> doc;
    if (path == "/openapi/v3") {
      doc = openApiV3Root(registry_);
    } else {
      doc = openApiV3Document(registry_, path.substr(std::string("/openapi/v3/").size()));
    }
    if (doc) {
      const json::value body = std::move(*doc);
      auto reply = jsonReply(200, body);
      co_await ex.respond(std::move(reply));
      co_return;
    }
  }
  if (path == "/api" || path == "/api/") {
    const json::value body = json::object{
        {"kind", "APIVersions"},
        {"versions", json::array{"v1"}},
        {"serverAddressByClientCIDRs",
         json::array{json::object{{"clientCIDR", "0.0.0.0/0"},
                                  {"serverAddress", std::string(http.header("Host"))}}}}};
    {
      auto reply = jsonReply(200, body);
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (path == "/apis" || path == "/apis/") {
    json::array list;
    for (const auto& [name, versions] : groups(registry_)) list.push_back(apiGroup(name, versions));
    const json::value body =
        json::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(list)}};
    {
      auto reply = jsonReply(200, body);
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (path == "/api/v1") {
    const json::value body = apiResourceList(registry_, "v1");
    {
      auto reply = jsonReply(200, body);
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (path.rfind("/apis/", 0) == 0) {
    const std::string rest = path.substr(6);
    const size_t slash = rest.find('/');
    const auto all = groups(registry_);
    if (slash == std::string::npos) {
      auto it = all.find(rest);
      if (it != all.end()) {
        json::value body = apiGroup(it->first, it->second);
        body.as_object()["kind"] = "APIGroup";
        body.as_object()["apiVersion"] = "v1";
        {
          auto reply = jsonReply(200, body);
          co_await ex.respond(std::move(reply));
        }
        co_return;
      }
    } else if (rest.find('/', slash + 1) == std::string::npos) {
      auto it = all.find(rest.substr(0, slash));
      const std::string version = rest.substr(slash + 1);
      if (it != all.end() &&
          std::find(it->second.begin(), it->second.end(), version) != it->second.end()) {
        const json::value body = apiResourceList(registry_, rest);
        {
          auto reply = jsonReply(200, body);
          co_await ex.respond(std::move(reply));
        }
        co_return;
      }
    }
  }
  auto parsed = parseResourcePath(
      path, [this](const std::string& g, const std::string& v, const std::string& resource) {
        auto r = registry_.find(g, v, resource);
        return r && r->namespaced;
      });
  std::shared_ptr<const ResourceInfo> resource;
  if (parsed) resource = registry_.find(parsed->group, parsed->version, parsed->resource);
  if (!resource) {
    {
      auto reply = errorReply(
          {api::reason::kNotFound, 404, "the server could not find the requested resource", {}});
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  Request req{http, parseQuery(http.query()), std::move(*parsed), resource};
  req.user = std::move(*user);
  req.dryRun = req.param("dryRun") == "All";
  const std::string_view accept = http.header("Accept");
  req.wantsTable = accept.find("as=Table") != std::string_view::npos;
  const std::string include = req.param("includeObject");
  if (include == "Object") req.include = IncludeObject::kObject;
  if (include == "None") req.include = IncludeObject::kNone;
  RequestLabels labels;
  const bool named = !req.path.name.empty();
  const bool watch = queryFlag(req.query, "watch");
  labels.verb = reportedVerb(http.method, named, watch, http.header("Content-Type"));
  labels.dryRun = req.param("dryRun") == "All" ? "All" : "";
  labels.group = resource->group;
  labels.version = resource->version;
  labels.resource = resource->resource;
  labels.subresource = req.path.subresource;
  labels.scope = reportedScope(labels.verb, named, !req.path.namespace_.empty());
  FaultPlan fault;
  if (options_.faults->enabled()) {
    const std::string rv = req.param("resourceVersion");
    fault = options_.faults->plan(
        rbacVerb(labels.verb, named),
        req.path.subresource.empty() ? resource->resource
                                     : resource->resource + "/" + req.path.subresource,
        http.header("User-Agent"), http.method != "GET" && http.method != "HEAD",
        watch && !rv.empty() && rv != "0");
    req.watchCut = fault.watchCut;
  }
  if (fault.fault == Fault::kError || fault.fault == Fault::kThrottle ||
      fault.fault == Fault::kConflict || fault.fault == Fault::kWatchGone) {
    RecordingExchange recording(ex);
    co_await answerFault(recording, req, fault);
    labels.code = recording.status();
    metrics_.record(labels);
    if (!watch) metrics_.observe(labels, secondsSince(started));  // as kube: no WATCH durations
    co_return;
  }
  if (fault.fault == Fault::kDelay) {
    // Held past the client's timeout, then served: the write may land after the client gave up.
    asio::steady_timer hold(ex.executor(), fault.delayFor);
    auto [ec] = co_await hold.async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
  }
  if (watch) {
    // A watch is counted when it starts (its errors travel in the stream as ERROR events under
    // a 200): it may outlive this server, which must not be touched after the stream ends.
    labels.code = 200;
    metrics_.record(labels);
    co_await serveResource(ex, req);
    co_return;
  }
  const bool drop = fault.fault == Fault::kDropAfterCommit;
  RecordingExchange recording(ex, drop);
  co_await serveResource(recording, req);
  labels.code = recording.status();
  metrics_.record(labels);
  metrics_.observe(labels, secondsSince(started));
  if (drop) ex.abandon();  // served and durable; the client never hears of it
}

namespace {

// `Warning: 299 - "<text>"` headers (an HTTP quoted-string), as kube-apiserver sends warnings.
void addWarnings(net::HttpResponse& reply, const std::vector<std::string>& warnings) {
  for (const auto& warning : warnings) {
    std::string quoted;
    for (char c : warning) {
      if (c == '"' || c == '\\') quoted += '\\';
      quoted += c;
    }
    reply.headers.emplace_back("Warning", "299 - \"" + quoted + "\"");
  }
}

}  // namespace

asio::awaitable<void> ApiServer::serveResource(net::HttpExchange& ex, Request& req) {
  const auto& r = *req.resource;
  const std::string& method = req.http.method;
  const bool item = !req.path.name.empty();
  const std::string& sub = req.path.subresource;
  const bool tokenRequest = sub == "token" && r.group.empty() && r.resource == "serviceaccounts";
  if (tokenRequest || !r.verbs.empty()) {
    // Answered, never stored: TokenRequest and SelfSubjectAccessReview (create only).
    api::Result<json::object> answer =
        methodNotAllowed("the server does not allow this method on the requested resource");
    if (method == "POST" && (tokenRequest || !item))
      answer = tokenRequest ? createToken(req) : reviewSelfAccess(req);  // both access reviews
    auto reply = answer ? jsonReply(201, *answer)
                        : errorReply(answer.error(), tokenRequest ? req.resource.get() : nullptr,
                                     tokenRequest ? req.path.name : "", req.errorDetails);
    co_await ex.respond(std::move(reply));
    co_return;
  }
  if (!sub.empty() && !(sub == "status" && r.statusSubresource) &&
      !(sub == "scale" && r.scaleSubresource)) {
    {
      auto reply = errorReply(
          {api::reason::kNotFound, 404, "the server could not find the requested resource", {}});
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (r.namespaced && req.path.namespace_.empty() && (method == "POST" || item)) {
    {
      auto reply = errorReply(badRequest("the namespace of the object is required"));
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  uint64_t seq = 0;
  api::Result<json::object> result = api::Error{};
  int status = 200;
  if (method == "GET" && !item) {
    if (queryFlag(req.query, "watch")) {
      co_await serveWatch(ex, req);
      co_return;
    }
    result = list(req);
  } else if (method == "GET") {
    result = get(req);
  } else if (method == "POST" && !item) {
    auto created = create(req, seq);
    if (created) {
      status = created->first;
      result = std::move(created->second);
    } else {
      result = created.error();
    }
  } else if (method == "PUT" && item) {
    result = update(req, seq);
  } else if (method == "PATCH" && item) {
    result = patch(req, seq);
    status = req.responseStatus;
  } else if (method == "DELETE" && item) {
    result = remove(req, seq);
  } else if (method == "DELETE") {
    result = removeCollection(req, seq);
  } else {
    result = methodNotAllowed("the server does not allow this method on the requested resource");
  }
  if (result && method != "GET" && r.group == kRbacGroup && r.resource == "clusterroles")
    seq = std::max(seq, aggregateClusterRoles(store_));  // the aggregation controller's work
  if (result && method != "GET" && r.group.empty() &&
      (r.resource == "secrets" || r.resource == "serviceaccounts"))  // the token controller's
    seq = std::max(seq, fillServiceAccountTokenSecrets(store_, options_.serviceAccountKey,
                                                       options_.rootCaPem));
  co_await waitDurable(store_, seq);
  if (!result) {
    {
      auto reply = errorReply(result.error(), &r, req.path.name, req.errorDetails);
      addWarnings(reply, req.warnings);  // a denying webhook's warnings are sent too
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  if (req.wantsTable && method == "GET" && item) {
    const json::value table = makeTable(r, {*result}, options_.now(), req.include, true,
                                        metaString(*result, "resourceVersion"));
    {
      auto reply = jsonReply(200, table);
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  const json::value body = std::move(*result);
  auto reply = jsonReply(status, body);
  addWarnings(reply, req.warnings);
  co_await ex.respond(std::move(reply));
}

}  // namespace flotilla::sim
