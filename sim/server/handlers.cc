// CRUD, list and patch for every resource (the shared rules kube-apiserver's generic registry
// applies: immutable metadata, generation on spec changes, status subresources, finalizers,
// owner-reference garbage collection, namespace lifecycle, CRDs).
#include <boost/json.hpp>

#include "api/base64.h"
#include "api/names.h"
#include "api/yaml.h"
#include "sim/server/admission.h"
#include "sim/server/authorizer.h"
#include "sim/server/defaults.h"
#include "sim/server/internal.h"
#include "sim/server/managed_fields.h"
#include "sim/server/patch.h"
#include "sim/server/protobuf.h"
#include "sim/server/rbac.h"
#include "sim/server/schema.h"
#include "sim/server/status.h"

namespace flotilla::sim {
namespace json = boost::json;
using namespace internal;

namespace {

constexpr int kWriteRetries = 8;
const std::string kNamespaces = "/namespaces";
const std::string kCrds = "apiextensions.k8s.io/customresourcedefinitions";

// Who is writing, for managedFields: fieldManager, else the User-Agent's product.
ManagedContext managedContext(const ResourceInfo& r, const ApiServer::Request& req,
                              api::Clock::time_point now) {
  std::string manager = req.param("fieldManager");
  if (manager.empty()) manager = defaultManager(req.http.header("User-Agent"));
  return ManagedContext{manager, r.groupVersion(), api::formatRfc3339(now), !r.custom};
}

// Everything but metadata and status: what bumps metadata.generation when it changes.
bool specChanged(const json::object& a, const json::object& b) {
  auto strip = [](json::object o) {
    o.erase("metadata");
    o.erase("status");
    return o;
  };
  return strip(a) != strip(b);
}

// Semantic equality of metadata.annotations: absent and empty are the same.
bool annotationsChanged(const json::object& before, const json::object& after) {
  auto annotations = [](const json::object& meta) {
    const auto* a = meta.if_contains("annotations");
    return a && a->is_object() && !a->as_object().empty() ? *a : json::value();
  };
  return annotations(before) != annotations(after);
}

bool hasFinalizers(const json::object& object) {
  const auto* m = object.if_contains("metadata");
  if (!m || !m->is_object()) return false;
  const auto* f = m->as_object().if_contains("finalizers");
  return f && f->is_array() && !f->as_array().empty();
}

struct ContinueToken {
  std::string start;  // the last key returned: "namespace/name"
};

std::string encodeContinue(const ContinueToken& token, int64_t version) {
  return api::base64Encode(json::serialize(json::object{{"v", version}, {"start", token.start}}));
}

std::optional<ContinueToken> decodeContinue(const std::string& text) {
  auto raw = api::base64Decode(text);
  if (!raw) return std::nullopt;
  boost::system::error_code ec;
  auto value = json::parse(*raw, ec);
  if (ec || !value.is_object()) return std::nullopt;
  const auto* start = value.as_object().if_contains("start");
  if (!start || !start->is_string()) return std::nullopt;
  return ContinueToken{std::string(start->as_string())};
}

}  // namespace

namespace internal {

api::Result<json::object> parseObjectBody(const net::HttpRequest& http) {
  const std::string_view type = http.header("Content-Type");
  // kubectl's typed create commands send protobuf (a few kinds are decoded, see protobuf.h).
  if (type.find("protobuf") != std::string_view::npos) return decodeKubernetesProtobuf(http.body);
  if (!type.empty() && type.find("json") == std::string_view::npos &&
      type.find("yaml") == std::string_view::npos)
    return api::Error{api::reason::kUnsupportedMediaType,
                      415,
                      "the body of the request was in an unknown format - accepted media types "
                      "include: application/json, application/yaml",
                      {}};
  json::value value;
  if (type.find("yaml") != std::string_view::npos) {
    auto docs = api::parseManifests(http.body);
    if (!docs) return badRequest(docs.error().message);
    if (docs->size() != 1) return badRequest("expected exactly one YAML document");
    value = std::move(docs->front().value);
  } else {
    boost::system::error_code ec;
    value = json::parse(http.body, ec);
    if (ec) return badRequest("couldn't get version/kind; json parse error: " + ec.message());
  }
  if (!value.is_object()) return badRequest("the request body must be a JSON object");
  return std::move(value.as_object());
}

}  // namespace internal

api::Result<json::object> ApiServer::get(Request& req) {
  const auto& r = *req.resource;
  auto object = store_.get(req.key());
  if (!object) return notFound(r, req.path.name);
  if (req.path.subresource == "scale") {
    json::object scale{
        {"kind", "Scale"},
        {"apiVersion", "autoscaling/v1"},
        {"metadata", json::object{{"name", req.path.name},
                                  {"namespace", req.path.namespace_},
                                  {"resourceVersion", metaString(*object, "resourceVersion")}}}};
    const json::value root(*object);
    auto replicas = evalJsonPath(root, ".spec.replicas");
    scale["spec"] = json::object{{"replicas", replicas ? *replicas : json::value(1)}};
    auto current = evalJsonPath(root, ".status.replicas");
    scale["status"] = json::object{{"replicas", current ? *current : json::value(0)}};
    return scale;
  }
  return servedAs(std::move(*object), r);
}

api::Result<json::object> ApiServer::list(Request& req) {
  const auto& r = *req.resource;
  auto filter = parseFilter(req.query, &r);
  if (!filter) return filter.error();
  std::string after;
  if (const std::string token = req.param("continue"); !token.empty()) {
    auto decoded = decodeContinue(token);
    if (!decoded)
      return badRequest("continue key is not valid: incorrect encoded start resourceVersion");
    after = decoded->start;
  }
  size_t limit = 0;
  if (auto requested = parseVersion(req.param("limit")); requested && *requested > 0)
    limit = static_cast<size_t>(*requested);
  auto listed = store_.listPage(
      r.storageKey(), r.namespaced ? req.path.namespace_ : "",
      [&](const json::object& o) { return filter->matches(o); }, after, limit);
  json::object listMeta{{"resourceVersion", std::to_string(listed.resourceVersion)}};
  if (listed.remaining > 0) {
    listMeta["continue"] = encodeContinue({listed.lastKey}, listed.resourceVersion);
    listMeta["remainingItemCount"] = static_cast<int64_t>(listed.remaining);
  }
  const size_t begin = 0;
  const size_t end = listed.items.size();
  std::vector<json::object> items;
  items.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) items.push_back(servedAs(std::move(listed.items[i]), r));
  if (req.wantsTable) {
    json::object table = makeTable(r, items, options_.now(), req.include, true,
                                   std::to_string(listed.resourceVersion));
    table["metadata"] = std::move(listMeta);
    return table;
  }
  json::array array;
  array.reserve(items.size());
  for (auto& o : items) array.push_back(std::move(o));
  return json::object{{"kind", r.listKind},
                      {"apiVersion", r.groupVersion()},
                      {"metadata", std::move(listMeta)},
                      {"items", std::move(array)}};
}

api::Result<std::pair<int, json::object>> ApiServer::create(Request& req, uint64_t& seq) {
  const auto& r = *req.resource;
  auto body = parseObjectBody(req.http);
  if (!body) return body.error();
  json::object object = std::move(*body);
  const std::string apiVersion =
      object.contains("apiVersion") && object.at("apiVersion").is_string()
          ? std::string(object.at("apiVersion").as_string())
          : "";
  const std::string kind = object.contains("kind") && object.at("kind").is_string()
                               ? std::string(object.at("kind").as_string())
                               : "";
  if (kind.empty())
    return badRequest("Object 'Kind' is missing in '" + req.http.body.substr(0, 200) + "'");
  if (kind != r.kind)
    return badRequest("the kind in the data (" + kind + ") does not match the expected kind (" +
                      r.kind + ")");
  if (apiVersion != r.groupVersion())
    return badRequest("the API version in the data (" + apiVersion +
                      ") does not match the expected API version (" + r.groupVersion() + ")");
  auto& meta = metadata(object);
  std::string name = metaString(object, "name");
  if (r.namespaced) {
    const std::string ns = metaString(object, "namespace");
    if (!ns.empty() && ns != req.path.namespace_)
      return badRequest(
          "the namespace of the provided object does not match the namespace sent on the request");
    meta["namespace"] = req.path.namespace_;
  } else {
    meta.erase("namespace");
  }
  if (name.empty()) {
    const std::string generate = metaString(object, "generateName");
    if (generate.empty())
      return invalidObject(r, "",
                           {{"metadata.name", "Required value: name or generateName is required"}});
    name = generate + randomNameSuffix();
    meta["name"] = name;
  }
  if (!api::isDns1123Subdomain(name))
    return invalidObject(r, name,
                         {{"metadata.name", "Invalid value: \"" + name +
                                                "\": " + api::dns1123SubdomainMessage(name)}});
  if (!metaString(object, "resourceVersion").empty())
    return invalidObject(
        r, name,
        {{"metadata.resourceVersion",
          "Invalid value: \"" + metaString(object, "resourceVersion") + "\": must be empty"}});
  if (r.namespaced) {
    auto ns = store_.get({kNamespaces, "", req.path.namespace_});
    if (!ns)
      return api::Error{
          api::reason::kNotFound, 404, "namespaces \"" + req.path.namespace_ + "\" not found", {}};
    if (!metaString(*ns, "deletionTimestamp").empty())
      return api::Error{api::reason::kForbidden,
                        403,
                        qualifiedResource(r) + " \"" + name +
                            "\" is forbidden: unable to create new content in namespace " +
                            req.path.namespace_ + " because it is being terminated",
                        {}};
  }
  meta["uid"] = newUid();
  meta["creationTimestamp"] = api::formatRfc3339(options_.now());
  meta.erase("deletionTimestamp");
  meta.erase("deletionGracePeriodSeconds");
  if (object.contains("spec") || r.custom) meta["generation"] = 1;
  if (r.statusSubresource && r.resource != "nodes") object.erase("status");
  if (r.resource == "namespaces") {
    object["status"] = json::object{{"phase", "Active"}};
    auto& labels = meta["labels"];
    if (!labels.is_object()) labels = json::object{};
    labels.as_object()["kubernetes.io/metadata.name"] = name;
  } else if (r.resource == "pods" && r.group.empty()) {
    object["status"] = json::object{{"phase", "Pending"}};
  } else if (r.storageKey() == kCrds) {
    std::string error;
    auto served = resourcesFromCrd(object, error);
    if (!error.empty()) return invalidObject(r, name, {{"spec", error}});
    const auto& first = served.front();
    if (name != first.resource + "." + first.group)
      return invalidObject(
          r, name,
          {{"metadata.name",
            "Invalid value: \"" + name + "\": must be spec.names.plural+\".\"+spec.group"}});
    json::object names = object.at("spec").at("names").as_object();
    object["status"] = json::object{
        {"conditions",
         json::array{json::object{{"type", "NamesAccepted"},
                                  {"status", "True"},
                                  {"reason", "NoConflicts"},
                                  {"message", "no conflicts found"},
                                  {"lastTransitionTime", api::formatRfc3339(options_.now())}},
                     json::object{{"type", "Established"},
                                  {"status", "True"},
                                  {"reason", "InitialNamesAccepted"},
                                  {"message", "the initial names have been accepted"},
                                  {"lastTransitionTime", api::formatRfc3339(options_.now())}}}},
        {"acceptedNames", std::move(names)},
        {"storedVersions", json::array{json::value(first.version)}}};
  }
  // An apply owns what it applied, not the defaults.
  const json::object applied = req.serverSideApply ? object : json::object{};
  defaultBuiltin(r, object, nullptr, minorVersionOf(options_.gitVersion));
  if (auto admitted = admit(r, "CREATE", &object, nullptr, req); !admitted) return admitted.error();
  if (!r.custom && r.group == "batch" && r.resource == "jobs") {
    // The Job strategy generates the selector after admission; the Job's labels default to the
    // template's when the stored object is decoded again, generated labels included when the
    // user gave the template none (what a Job read back from kube-apiserver shows).
    generateJobSelector(object);
    applyDefaults(r.group, r.resource, object);
  }
  if (r.resource == "pods" && r.group.empty())  // the pod strategy's PrepareForCreate
    object["status"] = json::object{{"phase", "Pending"}, {"qosClass", podQosClass(object)}};
  {
    const auto context = managedContext(r, req, options_.now());
    if (req.serverSideApply) {
      auto owned = applyOwnership(json::object{}, std::move(object), applied, true, context);
      if (!owned) return owned.error();
      object = std::move(*owned);
    } else {
      recordUpdate(nullptr, object, context);
    }
  }
  // What the registry allocates (a Service's clusterIP and nodePorts) comes after the field
  // manager: nobody owns it (kube-apiserver allocates in the REST storage).
  allocate(r, object, nullptr, allocationSalt_);
  if (req.dryRun) return std::pair<int, json::object>{201, servedAs(std::move(object), r)};
  auto written = store_.create({r.storageKey(), r.namespaced ? req.path.namespace_ : "", name},
                               storedForm(std::move(object), r));
  if (!written) {
    if (written.error().reason == api::reason::kAlreadyExists) return alreadyExists(r, name);
    return written.error();
  }
  seq = written->commitSeq;
  if (r.storageKey() == kCrds) onCrdChanged(written->object, false, seq);
  return std::pair<int, json::object>{201, servedAs(std::move(written->object), r)};
}

api::Result<json::object> ApiServer::write(const ResourceInfo& r, const ObjectKey& key,
                                           const json::object& current, json::object next,
                                           WriteKind kind, bool dryRun, uint64_t& seq) {
  next = storedForm(std::move(next), r);
  json::object out;
  if (kind == WriteKind::kStatus) {
    out = current;
    if (const auto* status = next.if_contains("status")) {
      out["status"] = *status;
    } else {
      out.erase("status");
    }
  } else {
    out = std::move(next);
    if (r.statusSubresource) {
      if (const auto* status = current.if_contains("status")) {
        out["status"] = *status;
      } else {
        out.erase("status");
      }
    }
  }
  // Metadata the client cannot change.
  auto& meta = metadata(out);
  const json::object& was = current.at("metadata").as_object();
  for (const char* field : {"uid", "creationTimestamp", "deletionTimestamp",
                            "deletionGracePeriodSeconds", "generation", "name", "namespace"}) {
    if (const auto* v = was.if_contains(field)) {
      meta[field] = *v;
    } else {
      meta.erase(field);
    }
  }
  if (!out.contains("apiVersion")) out["apiVersion"] = current.at("apiVersion");
  if (!out.contains("kind")) out["kind"] = current.at("kind");
  // Deployments also count annotation changes (they are copied to the ReplicaSets), as
  // kube-apiserver's deployment strategy does.
  const bool annotationsCount = r.group == "apps" && r.resource == "deployments";
  if (kind == WriteKind::kMain && was.contains("generation") &&
      (specChanged(current, out) || (annotationsCount && annotationsChanged(was, meta)))) {
    meta["generation"] = was.at("generation").as_int64() + 1;
  }
  const int64_t version = storedVersion(current);
  // The last finalizer of an object being deleted is gone: the object goes now.
  if (!metaString(out, "deletionTimestamp").empty() && !hasFinalizers(out)) {
    if (dryRun) return servedAs(std::move(out), r);
    auto removed = store_.remove(key, version);
    if (!removed) {
      if (removed.error().reason == api::reason::kConflict)
        return conflict(r, key.name,
                        "the object has been modified; please apply your changes to the latest "
                        "version and try again");
      return removed.error();
    }
    seq = removed->commitSeq;
    collectDependents(metaString(current, "uid"), "Background", seq);
    // The last object of a terminating namespace lets the namespace go.
    if (r.namespaced) {
      auto ns = store_.get({kNamespaces, "", key.namespace_});
      if (ns && !metaString(*ns, "deletionTimestamp").empty())
        deleteNamespaceContents(key.namespace_, seq);
    }
    if (r.storageKey() == kCrds) onCrdChanged(current, true, seq);
    return servedAs(std::move(removed->object), r);
  }
  if (dryRun) return servedAs(std::move(out), r);
  // Like kube-apiserver's storage, a write that changes nothing is not a write: no new
  // resourceVersion, no watch event (a second identical apply is a no-op).
  {
    json::object candidate = out;
    if (const auto* rv = was.if_contains("resourceVersion")) {
      metadata(candidate)["resourceVersion"] = *rv;
    } else {
      metadata(candidate).erase("resourceVersion");
    }
    if (candidate == current) return servedAs(json::object(current), r);
  }
  auto written = store_.update(key, std::move(out), version);
  if (!written) {
    if (written.error().reason == api::reason::kConflict)
      return conflict(r, key.name,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again");
    return written.error();
  }
  seq = written->commitSeq;
  if (r.storageKey() == kCrds) onCrdChanged(written->object, false, seq);
  return servedAs(std::move(written->object), r);
}

api::Result<json::object> ApiServer::update(Request& req, uint64_t& seq) {
  const auto& r = *req.resource;
  auto body = parseObjectBody(req.http);
  if (!body) return body.error();
  if (req.path.subresource == "scale")
    return methodNotAllowed("update the scale subresource with PATCH or via spec.replicas");
  const std::string name = metaString(*body, "name");
  if (name != req.path.name)
    return badRequest("the name of the object (" + name + ") does not match the name on the URL (" +
                      req.path.name + ")");
  const std::string ns = metaString(*body, "namespace");
  if (r.namespaced && !ns.empty() && ns != req.path.namespace_)
    return badRequest(
        "the namespace of the provided object does not match the namespace sent on the request");
  const std::string rv = metaString(*body, "resourceVersion");
  std::optional<int64_t> expected;
  if (!rv.empty()) {
    expected = parseVersion(rv);
    if (!expected) return badRequest("invalid resourceVersion \"" + rv + "\"");
  }
  for (int attempt = 0;; ++attempt) {
    auto current = store_.get(req.key());
    if (!current) return notFound(r, req.path.name);
    if (expected && *expected != storedVersion(*current))
      return conflict(r, req.path.name,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again");
    json::object next = *body;
    std::optional<json::object> view;  // events are seen in the requested API's form
    if (isEvents(r)) view = servedAs(*current, r);
    const json::object& old = view ? *view : *current;
    if (req.path.subresource.empty())
      defaultBuiltin(r, next, &*current, minorVersionOf(options_.gitVersion));
    if (auto admitted = admit(r, "UPDATE", &next, &old, req); !admitted) return admitted.error();
    if (req.path.subresource.empty()) {
      recordUpdate(&old, next, managedContext(r, req, options_.now()));
      allocate(r, next, &*current, allocationSalt_);
    }
    auto result = write(r, req.key(), *current, std::move(next),
                        req.path.subresource == "status" ? WriteKind::kStatus : WriteKind::kMain,
                        req.dryRun, seq);
    // Without a resourceVersion the update is unconditional: lost races are retried here.
    if (!result && result.error().reason == api::reason::kConflict && !expected &&
        attempt < kWriteRetries)
      continue;
    return result;
  }
}

api::Result<json::object> ApiServer::patch(Request& req, uint64_t& seq) {
  const auto& r = *req.resource;
  const std::string type(req.http.header("Content-Type"));
  const std::string media = type.substr(0, type.find(';'));
  boost::system::error_code ec;
  json::value patchDoc;
  if (media == "application/apply-patch+yaml") {
    auto docs = api::parseManifests(req.http.body);
    if (!docs || docs->size() != 1)
      return badRequest("the apply patch must be one YAML or JSON object");
    patchDoc = std::move(docs->front().value);
    if (req.param("fieldManager").empty())
      return badRequest("PATCH, application/apply-patch+yaml: fieldManager is required");
  } else {
    patchDoc = json::parse(req.http.body, ec);
    if (ec) return badRequest("error decoding patch: " + ec.message());
  }
  for (int attempt = 0;; ++attempt) {
    auto current = store_.get(req.key());
    if (!current) {
      if (media == "application/apply-patch+yaml" && patchDoc.is_object() &&
          req.path.subresource.empty()) {
        // Server-side apply creates what does not exist yet.
        net::HttpRequest createHttp = req.http;
        createHttp.body = json::serialize(patchDoc);
        createHttp.headers = {{"Content-Type", "application/json"}};
        Request createReq{createHttp, req.query, req.path, req.resource};
        createReq.dryRun = req.dryRun;
        createReq.serverSideApply = true;
        // The same requester: RBAC escalation checks and admission webhooks must see who applies
        // (system:masters and holders of `bind` skip the role lookup, as in kube-apiserver).
        createReq.user = req.user;
        // An apply that creates needs `create` as well as `patch` (kube-apiserver authorizes the
        // create it turns into).
        if (options_.authorizationMode != "AlwaysAllow") {
          RequestAttributes creating;
          creating.verb = "create";
          creating.resourceRequest = true;
          creating.group = r.group;
          creating.version = r.version;
          creating.resource = r.resource;
          creating.ns = r.namespaced ? req.path.namespace_ : "";
          creating.name = req.path.name;
          if (auto decision = authorizer_->authorize(req.user, creating); !decision.allowed) {
            // Worded as kube-apiserver's create-on-patch check: the authorizer's reason (empty
            // when no rule matched) after "is forbidden: ", not the request filter's sentence.
            req.errorDetails = json::object{{"name", req.path.name}, {"kind", r.resource}};
            if (!r.group.empty()) (*req.errorDetails)["group"] = r.group;
            return api::Error{api::reason::kForbidden,
                              403,
                              qualifiedResource(r) + " \"" + req.path.name +
                                  "\" is forbidden: " + decision.reason,
                              {}};
          }
        }
        auto created = create(createReq, seq);
        req.warnings.insert(req.warnings.end(), createReq.warnings.begin(),
                            createReq.warnings.end());
        if (createReq.errorDetails) req.errorDetails = std::move(createReq.errorDetails);
        if (!created) return created.error();
        req.responseStatus = created->first;
        return std::move(created->second);
      }
      return notFound(r, req.path.name);
    }
    std::optional<json::object> view;
    if (isEvents(r)) view = servedAs(*current, r);
    const json::object& old = view ? *view : *current;
    json::value base = old;
    if (req.path.subresource == "scale") {
      const json::value* replicas = nullptr;
      if (patchDoc.is_object())
        if (const auto* spec = patchDoc.as_object().if_contains("spec"); spec && spec->is_object())
          replicas = spec->as_object().if_contains("replicas");
      if (!replicas || !replicas->is_int64())
        return badRequest("a scale patch must set spec.replicas");
      json::object next = *current;
      auto& spec = next["spec"];
      if (!spec.is_object()) spec = json::object{};
      spec.as_object()["replicas"] = *replicas;
      auto result =
          write(r, req.key(), *current, std::move(next), WriteKind::kMain, req.dryRun, seq);
      if (!result && result.error().reason == api::reason::kConflict && attempt < kWriteRetries)
        continue;
      if (!result) return result.error();
      Request getReq{req.http, req.query, req.path, req.resource};
      return get(getReq);
    }
    api::Result<json::value> patched = api::Error{};
    if (media == "application/merge-patch+json") {
      patched = applyMergePatch(std::move(base), patchDoc);
    } else if (media == "application/json-patch+json") {
      patched = applyJsonPatch(std::move(base), patchDoc);
    } else if (media == "application/strategic-merge-patch+json" ||
               media == "application/apply-patch+yaml") {
      if (r.custom && media != "application/apply-patch+yaml")
        return api::Error{
            api::reason::kUnsupportedMediaType,
            415,
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/apply-patch+yaml",
            {}};
      patched = r.custom ? applyMergePatch(std::move(base), patchDoc)
                         : applyStrategicMergePatch(std::move(base), patchDoc);
    } else {
      return api::Error{
          api::reason::kUnsupportedMediaType,
          415,
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json, "
          "application/apply-patch+yaml, application/strategic-merge-patch+json",
          {}};
    }
    if (!patched) return patched.error();
    if (!patched->is_object()) return badRequest("the patched object is not a JSON object");
    json::object next = std::move(patched->as_object());
    // A resourceVersion in the patch is a precondition.
    const std::string rv = metaString(next, "resourceVersion");
    if (!rv.empty() && rv != metaString(*current, "resourceVersion"))
      return conflict(r, req.path.name,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again");
    if (req.path.subresource.empty()) {
      const auto context = managedContext(r, req, options_.now());
      if (media == "application/apply-patch+yaml" && patchDoc.is_object()) {
        // Ownership first: fields the manager stops applying go, and defaults come back after.
        auto owned = applyOwnership(old, std::move(next), patchDoc.as_object(),
                                    req.param("force") == "true", context);
        if (!owned) return owned.error();
        next = std::move(*owned);
        defaultBuiltin(r, next, &*current, minorVersionOf(options_.gitVersion));
      } else {
        defaultBuiltin(r, next, &*current, minorVersionOf(options_.gitVersion));
        recordUpdate(&old, next, context);
      }
    }
    if (auto admitted = admit(r, "UPDATE", &next, &old, req); !admitted) return admitted.error();
    if (req.path.subresource.empty()) allocate(r, next, &*current, allocationSalt_);
    auto result = write(r, req.key(), *current, std::move(next),
                        req.path.subresource == "status" ? WriteKind::kStatus : WriteKind::kMain,
                        req.dryRun, seq);
    if (!result && result.error().reason == api::reason::kConflict && rv.empty() &&
        attempt < kWriteRetries)
      continue;
    return result;
  }
}

api::Result<json::object> ApiServer::remove(Request& req, uint64_t& seq) {
  const auto& r = *req.resource;
  std::string propagation = req.param("propagationPolicy");
  std::optional<int64_t> expectedVersion;
  std::string expectedUid;
  if (!req.http.body.empty()) {
    boost::system::error_code ec;
    auto options = json::parse(req.http.body, ec);
    if (ec || !options.is_object())
      return badRequest("invalid DeleteOptions: " +
                        (ec ? ec.message() : std::string("not an object")));
    const auto& o = options.as_object();
    if (const auto* p = o.if_contains("propagationPolicy"); p && p->is_string())
      propagation = p->as_string();
    if (const auto* d = o.if_contains("dryRun"); d && d->is_array() && !d->as_array().empty())
      req.dryRun = true;
    if (const auto* pre = o.if_contains("preconditions"); pre && pre->is_object()) {
      if (const auto* v = pre->as_object().if_contains("resourceVersion"); v && v->is_string()) {
        expectedVersion = parseVersion(v->as_string());
        if (!expectedVersion) return badRequest("invalid precondition resourceVersion");
      }
      if (const auto* u = pre->as_object().if_contains("uid"); u && u->is_string())
        expectedUid = u->as_string();
    }
  }
  if (propagation.empty()) propagation = "Background";
  if (propagation != "Background" && propagation != "Foreground" && propagation != "Orphan")
    return badRequest("propagationPolicy must be Background, Foreground or Orphan");
  if (auto current = store_.get(req.key())) {
    if (auto admitted = admit(r, "DELETE", nullptr, &*current, req); !admitted)
      return admitted.error();
  }
  return deleteObject(r, req.key(), propagation, expectedVersion, expectedUid, req.dryRun, seq);
}

api::Result<json::object> ApiServer::deleteObject(const ResourceInfo& r, const ObjectKey& key,
                                                  const std::string& propagation,
                                                  std::optional<int64_t> expectedVersion,
                                                  const std::string& expectedUid, bool dryRun,
                                                  uint64_t& seq) {
  for (int attempt = 0;; ++attempt) {
    auto current = store_.get(key);
    if (!current) return notFound(r, key.name);
    if (!expectedUid.empty() && expectedUid != metaString(*current, "uid"))
      return conflict(r, key.name,
                      "Precondition failed: UID in precondition: " + expectedUid +
                          ", UID in object meta: " + metaString(*current, "uid"));
    if (expectedVersion && *expectedVersion != storedVersion(*current))
      return conflict(r, key.name,
                      "Precondition failed: ResourceVersion in precondition: " +
                          std::to_string(*expectedVersion) + ", ResourceVersion in object meta: " +
                          metaString(*current, "resourceVersion"));
    if (dryRun) return servedAs(std::move(*current), r);
    if (propagation == "Orphan") collectDependents(metaString(*current, "uid"), "Orphan", seq);
    if (propagation == "Foreground")
      collectDependents(metaString(*current, "uid"), "Foreground", seq);
    // A namespace is always finalized by the server: Terminating until its contents are gone.
    const bool isNamespace = r.storageKey() == kNamespaces;
    if (hasFinalizers(*current) || isNamespace) {
      if (!metaString(*current, "deletionTimestamp").empty()) {
        if (isNamespace) deleteNamespaceContents(key.name, seq);
        return servedAs(std::move(*current), r);
      }
      json::object next = *current;
      auto& meta = metadata(next);
      meta["deletionTimestamp"] = api::formatRfc3339(options_.now());
      meta["deletionGracePeriodSeconds"] = 0;
      if (isNamespace) next["status"] = json::object{{"phase", "Terminating"}};
      auto updated = store_.update(key, std::move(next), storedVersion(*current));
      if (!updated) {
        if (updated.error().reason == api::reason::kConflict && attempt < kWriteRetries) continue;
        return updated.error();
      }
      seq = updated->commitSeq;
      if (isNamespace) deleteNamespaceContents(key.name, seq);
      return servedAs(std::move(updated->object), r);
    }
    auto removed = store_.remove(key, storedVersion(*current));
    if (!removed) {
      if (removed.error().reason == api::reason::kConflict && attempt < kWriteRetries) continue;
      return removed.error();
    }
    seq = removed->commitSeq;
    if (propagation == "Background")
      collectDependents(metaString(*current, "uid"), "Background", seq);
    if (r.storageKey() == kNamespaces) deleteNamespaceContents(key.name, seq);
    if (r.storageKey() == kCrds) onCrdChanged(*current, true, seq);
    return servedAs(std::move(removed->object), r);
  }
}

api::Result<json::object> ApiServer::removeCollection(Request& req, uint64_t& seq) {
  const auto& r = *req.resource;
  auto filter = parseFilter(req.query, &r);
  if (!filter) return filter.error();
  auto listed = store_.list(r.storageKey(), r.namespaced ? req.path.namespace_ : "",
                            [&](const json::object& o) { return filter->matches(o); });
  json::array items;
  for (const auto& o : listed.items) {
    ObjectKey key{r.storageKey(), metaString(o, "namespace"), metaString(o, "name")};
    auto deleted = deleteObject(
        r, key,
        req.param("propagationPolicy").empty() ? "Background" : req.param("propagationPolicy"),
        std::nullopt, "", req.dryRun, seq);
    if (deleted) items.push_back(std::move(*deleted));
  }
  return json::object{
      {"kind", r.listKind},
      {"apiVersion", r.groupVersion()},
      {"metadata", json::object{{"resourceVersion", std::to_string(store_.resourceVersion())}}},
      {"items", std::move(items)}};
}

api::Result<void> ApiServer::admitCustom(const ResourceInfo& r, json::object& object,
                                         Request& req) {
  // An Invalid answer names the kind and the object (kube-apiserver's NewInvalid), not the
  // resource and the request path: kubectl prints `The PropagationPolicy "x" is invalid`.
  auto invalid = [&](api::FieldErrors errors) {
    api::Error error = invalidObject(r, metaString(object, "name"), std::move(errors));
    json::object details = statusBody(error, nullptr, "").at("details").as_object();
    details["name"] = metaString(object, "name");
    if (!r.group.empty()) details["group"] = r.group;
    details["kind"] = r.kind;
    req.errorDetails = std::move(details);
    return error;
  };
  if (r.group == "admissionregistration.k8s.io") {
    auto errors = validateWebhookConfiguration(object);
    if (!errors.empty()) return invalid(std::move(errors));
    return {};
  }
  if (!r.custom || !r.schema) return {};
  auto outcome = applySchema(object, *r.schema);
  if (!outcome.unknown.empty()) {
    const std::string mode = req.param("fieldValidation");
    if (mode == "Strict") {
      std::string message = r.kind + " in version \"" + r.version + "\" cannot be handled as a " +
                            r.kind + ": strict decoding error: ";
      for (size_t i = 0; i < outcome.unknown.size(); ++i)
        message += (i ? ", " : "") + std::string("unknown field \"") + outcome.unknown[i] + "\"";
      return badRequest(message);
    }
    if (mode != "Ignore") {
      for (const auto& field : outcome.unknown)
        req.warnings.push_back("unknown field \"" + field + "\"");
    }
  }
  if (!outcome.errors.empty()) return invalid(std::move(outcome.errors));
  return {};
}

void ApiServer::collectDependents(const std::string& ownerUid, const std::string& propagation,
                                  uint64_t& seq) {
  if (ownerUid.empty()) return;
  std::vector<std::string> seen;
  for (const auto& r : registry_.all()) {
    const std::string collection = r->storageKey();
    if (std::find(seen.begin(), seen.end(), collection) != seen.end()) continue;
    seen.push_back(collection);
    auto dependents = store_.list(collection, "", [&](const json::object& o) {
      const auto* m = o.if_contains("metadata");
      const auto* refs =
          m && m->is_object() ? m->as_object().if_contains("ownerReferences") : nullptr;
      if (!refs || !refs->is_array()) return false;
      for (const auto& ref : refs->as_array()) {
        const auto* uid = ref.is_object() ? ref.as_object().if_contains("uid") : nullptr;
        if (uid && uid->is_string() && uid->as_string() == ownerUid) return true;
      }
      return false;
    });
    for (auto& dependent : dependents.items) {
      ObjectKey key{collection, metaString(dependent, "namespace"), metaString(dependent, "name")};
      json::object next = dependent;
      auto& refs = metadata(next)["ownerReferences"].as_array();
      refs.erase(std::remove_if(refs.begin(), refs.end(),
                                [&](const json::value& ref) {
                                  return ref.as_object().contains("uid") &&
                                         ref.as_object().at("uid") == ownerUid.c_str();
                                }),
                 refs.end());
      if (propagation == "Orphan" || !refs.empty()) {
        if (refs.empty()) metadata(next).erase("ownerReferences");
        if (auto written = store_.update(key, std::move(next), storedVersion(dependent)))
          seq = written->commitSeq;
      } else {
        uint64_t s = 0;
        if (deleteObject(*r, key, propagation, std::nullopt, "", false, s)) seq = std::max(seq, s);
      }
    }
  }
}

void ApiServer::deleteNamespaceContents(const std::string& ns, uint64_t& seq) {
  std::vector<std::string> seen;
  bool remaining = false;
  for (const auto& r : registry_.all()) {
    if (!r->namespaced) continue;
    const std::string collection = r->storageKey();
    if (std::find(seen.begin(), seen.end(), collection) != seen.end()) continue;
    seen.push_back(collection);
    for (const auto& o : store_.list(collection, ns).items) {
      uint64_t s = 0;
      auto deleted = deleteObject(*r, {collection, ns, metaString(o, "name")}, "Background",
                                  std::nullopt, "", false, s);
      seq = std::max(seq, s);
      if (deleted && !metaString(*deleted, "deletionTimestamp").empty() &&
          store_.get({collection, ns, metaString(o, "name")}))
        remaining = true;
    }
  }
  // The namespace itself goes once it is empty (objects with finalizers hold it in Terminating).
  auto namespaceObject = store_.get({kNamespaces, "", ns});
  if (!namespaceObject || metaString(*namespaceObject, "deletionTimestamp").empty()) return;
  if (remaining) {
    json::object next = *namespaceObject;
    next["status"] = json::object{{"phase", "Terminating"}};
    if (auto w =
            store_.update({kNamespaces, "", ns}, std::move(next), storedVersion(*namespaceObject)))
      seq = w->commitSeq;
    return;
  }
  if (auto removed = store_.remove({kNamespaces, "", ns}, std::nullopt)) seq = removed->commitSeq;
}

void ApiServer::onCrdChanged(const json::object& crd, bool deleted, uint64_t& seq) {
  const std::string name = metaString(crd, "name");
  std::string error;
  auto served = resourcesFromCrd(crd, error);
  if (deleted) {
    registry_.removeCustom(name);
    if (!served.empty()) {
      if (auto removed = store_.removeAll(served.front().storageKey()))
        seq = std::max(seq, *removed);
    }
    return;
  }
  if (error.empty()) registry_.setCustom(name, std::move(served));
}

}  // namespace flotilla::sim
