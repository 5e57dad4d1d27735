// Helpers shared by the ApiServer's translation units (not part of its interface).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <boost/json.hpp>
#include <map>
#include <memory>
#include <string>

#include "api/label_selector.h"
#include "sim/server/api_server.h"
#include "sim/server/request.h"
#include "sim/server/table.h"
#include "sim/storage/ids.h"

namespace flotilla::sim {

struct ApiServer::Request {
  const net::HttpRequest& http;
  std::map<std::string, std::string> query;
  ResourcePath path;
  std::shared_ptr<const ResourceInfo> resource;
  bool dryRun = false;
  bool wantsTable = false;
  IncludeObject include = IncludeObject::kMetadata;
  int responseStatus = 200;           // 201 when a server-side apply created the object
  std::vector<std::string> warnings;  // sent as `Warning: 299 - "..."` headers
  bool serverSideApply = false;       // a create on behalf of an apply (field ownership: Apply)
  UserInfo user;                      // who is asking (authentication)
  // Replaces the details of the error reply's Status (an error about another object than the
  // request's, or a webhook's own details).
  std::optional<boost::json::object> errorDetails;
  // Fault injection: the probability that a watch stream is cut after each event.
  double watchCut = 0;

  ObjectKey key() const {
    return {resource->storageKey(), resource->namespaced ? path.namespace_ : "", path.name};
  }
  std::string param(const std::string& name) const {
    auto it = query.find(name);
    return it == query.end() ? std::string() : it->second;
  }
};

namespace internal {

boost::json::object& metadata(boost::json::object& object);
std::string metaString(const boost::json::object& object, std::string_view field);
std::optional<int64_t> parseVersion(std::string_view text);
int64_t storedVersion(const boost::json::object& object);

// core/v1 or events.k8s.io/v1 Events: one collection (events.h).
bool isEvents(const ResourceInfo& r);
// Serves the object in the requested version: CRDs with several versions share one collection,
// and so do core/v1 and events.k8s.io/v1 Events (converted, events.h).
boost::json::object servedAs(boost::json::object object, const ResourceInfo& r);
// What the store keeps of an object written through `r` (events in their core/v1 form).
boost::json::object storedForm(boost::json::object object, const ResourceInfo& r);

// Defaulting (defaults.h) of a built-in object written through `r` on create (`old` null) or
// update, with the built-in admission plugins that mutate pods.
// What the REST storage allocates on create and keeps on update (a Service's clusterIP and
// nodePorts): after the field manager, so no manager owns it.
void allocate(const ResourceInfo& r, boost::json::object& object, const boost::json::object* old,
              uint32_t salt);
// `minorVersion` is the served Kubernetes minor version: fields whose feature gate is off in it
// are dropped, as kube-apiserver's dropDisabledFields does.
void defaultBuiltin(const ResourceInfo& r, boost::json::object& object,
                    const boost::json::object* old, int minorVersion);

// Label and field selector filters for lists and watches; the error is a 400 message. Field
// paths are matched against the stored form: events.k8s.io paths ("regarding.name") are
// translated to the core ones, and the core events label "source" is source.component or
// reportingComponent, as in kube-apiserver.
struct Filter {
  std::optional<api::Selector> labels;
  std::vector<std::tuple<std::string, bool, std::string>> fields;  // path, equal?, value
  bool eventSource = false;  // "source" is the events' source label
  bool matches(const boost::json::object& object) const;
};
api::Result<Filter> parseFilter(const std::map<std::string, std::string>& query,
                                const ResourceInfo* resource = nullptr);

// Responses are built as values first and then sent with `co_await ex.respond(std::move(r))`:
// GCC 12 mishandles temporaries inside co_await expressions (see kube/net/http_server.cc).
net::HttpResponse jsonReply(int status, const boost::json::value& body);
// `details`, when set, replaces the Status details (empty: none).
net::HttpResponse errorReply(const api::Error& error, const ResourceInfo* resource = nullptr,
                             const std::string& name = "",
                             const std::optional<boost::json::object>& details = std::nullopt);
// A write's body: JSON, YAML or (kinds kubectl's typed commands create) protobuf.
api::Result<boost::json::object> parseObjectBody(const net::HttpRequest& http);
// Resumes the coroutine once every store write up to `seq` is durable.
boost::asio::awaitable<void> waitDurable(Store& store, uint64_t seq);

}  // namespace internal
}  // namespace flotilla::sim
