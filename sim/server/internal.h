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

// Serves the object in the requested version: CRDs with several versions share one collection.
boost::json::object servedAs(boost::json::object object, const ResourceInfo& r);

// Label and field selector filters for lists and watches; the error is a 400 message.
struct Filter {
  std::optional<api::Selector> labels;
  std::vector<std::tuple<std::string, bool, std::string>> fields;  // path, equal?, value
  bool matches(const boost::json::object& object) const;
};
api::Result<Filter> parseFilter(const std::map<std::string, std::string>& query);

// Responses are built as values first and then sent with `co_await ex.respond(std::move(r))`:
// GCC 12 mishandles temporaries inside co_await expressions (see kube/net/http_server.cc).
net::HttpResponse jsonReply(int status, const boost::json::value& body);
net::HttpResponse errorReply(const api::Error& error, const ResourceInfo* resource = nullptr,
                             const std::string& name = "");
// Resumes the coroutine once every store write up to `seq` is durable.
boost::asio::awaitable<void> waitDurable(Store& store, uint64_t seq);

}  // namespace internal
}  // namespace flotilla::sim
