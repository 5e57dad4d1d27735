// The fault-injection side of the API server: the admin endpoint and the injected answers.
#include <boost/json/serialize.hpp>

#include "sim/server/api_server.h"
#include "sim/server/faults.h"
#include "sim/server/internal.h"
#include "sim/server/status.h"

namespace flotilla::sim {
namespace asio = boost::asio;
namespace json = boost::json;
using internal::errorReply;
using internal::jsonReply;

asio::awaitable<void> ApiServer::serveFaultAdmin(net::HttpExchange& ex, const UserInfo& user) {
  const auto& http = ex.request();
  // Faults are an operator's tool for tests: only the admin (system:masters) may see or change
  // them, whatever the authorization mode.
  if (std::find(user.groups.begin(), user.groups.end(), kSystemMasters) == user.groups.end()) {
    auto reply = errorReply({api::reason::kForbidden,
                             403,
                             "forbidden: User \"" + user.name +
                                 "\" cannot manage fault injection: it needs group system:masters",
                             {}});
    co_await ex.respond(std::move(reply));
    co_return;
  }
  if (http.method == "PUT" || http.method == "POST") {
    auto config = parseFaultConfig(http.body);
    if (!config) {
      auto reply = errorReply(config.error());
      co_await ex.respond(std::move(reply));
      co_return;
    }
    options_.faults->configure(std::move(*config));
  } else if (http.method == "DELETE") {
    options_.faults->configure({});
  } else if (http.method != "GET") {
    auto reply = errorReply(methodNotAllowed("GET, PUT or DELETE /flotilla-sim/faults"));
    co_await ex.respond(std::move(reply));
    co_return;
  }
  const json::value body = options_.faults->describe();
  auto reply = jsonReply(200, body);
  co_await ex.respond(std::move(reply));
}

asio::awaitable<void> ApiServer::answerFault(net::HttpExchange& ex, Request& req,
                                             const FaultPlan& plan) {
  const auto& r = *req.resource;
  if (plan.fault == Fault::kWatchGone) {
    // As kube-apiserver answers a resume from a compacted version: 200, then one ERROR event.
    const std::string rv = req.param("resourceVersion");
    api::Error gone{"Expired", 410, "too old resource version: " + rv + " (injected fault)", {}};
    net::Headers headers = {{"Content-Type", "application/json"},
                            {"Cache-Control", "no-cache, private"}};
    if (!co_await ex.startStream(200, std::move(headers))) co_return;
    std::string line =
        json::serialize(json::object{{"type", "ERROR"}, {"object", statusBody(gone)}}) + "\n";
    if (co_await ex.writeChunk(std::move(line))) co_await ex.endStream();
    co_return;
  }
  net::HttpResponse reply;
  if (plan.fault == Fault::kThrottle) {
    // kube-apiserver's max-in-flight answer: Retry-After in the header and in the details.
    json::object details{{"retryAfterSeconds", plan.retryAfterSeconds}};
    reply = errorReply({api::reason::kTooManyRequests,
                        429,
                        "the server has received too many requests and has asked us to try "
                        "again later (injected fault)",
                        {}},
                       nullptr, "", details);
    reply.headers.emplace_back("Retry-After", std::to_string(plan.retryAfterSeconds));
  } else if (plan.fault == Fault::kConflict) {
    std::string name = req.path.name;  // a create names its object in the body
    if (name.empty())
      if (auto body = internal::parseObjectBody(req.http))
        name = internal::metaString(*body, "name");
    reply = errorReply(conflict(r, name,
                                "the object has been modified; please apply your changes to the "
                                "latest version and try again (injected fault)"),
                       &r, name);
  } else {
    reply = errorReply({api::reason::kInternalError,
                        500,
                        "Internal error occurred: injected fault (flotilla-sim --faults)",
                        {}});
  }
  co_await ex.respond(std::move(reply));
}

}  // namespace flotilla::sim
