#include "scheduler/extender/http_extender_client.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <future>
#include <thread>

#include "kube/net/http_client.h"

namespace flotilla::scheduler {
namespace asio = boost::asio;

struct HttpExtenderClient::Impl {
  struct Extender {
    ExtenderConfig config;
    std::unique_ptr<net::HttpClient> http;
  };

  asio::io_context io;
  asio::executor_work_guard<asio::io_context::executor_type> work{io.get_executor()};
  std::vector<Extender> extenders;
  std::thread thread;

  ~Impl() {
    work.reset();
    io.stop();
    if (thread.joinable()) thread.join();
    extenders.clear();  // HTTP clients close their sockets while the io_context still exists
  }

  // Starts one call on the I/O thread; the future resolves to the body of a 2xx answer.
  std::future<api::Result<std::string>> call(Extender& e, const std::string& verb,
                                             std::string body) {
    net::HttpRequest request{"POST",
                             "/" + verb,
                             {{"Content-Type", "application/json"}, {"Accept", "application/json"}},
                             std::move(body)};
    auto task = [](net::HttpClient* http, net::HttpRequest req,
                   std::chrono::milliseconds timeout) -> asio::awaitable<api::Result<std::string>> {
      auto response = co_await http->request(std::move(req), timeout);
      if (!response) co_return response.error();
      if (response->status < 200 || response->status > 299) {
        std::string excerpt = response->body.substr(0, 200);
        co_return api::Error{api::reason::kInternalError,
                             response->status,
                             "HTTP " + std::to_string(response->status) + ": " + excerpt,
                             {}};
      }
      co_return api::okString(std::move(response->body));
    };
    return asio::co_spawn(io, task(e.http.get(), std::move(request), e.config.timeout),
                          asio::use_future);
  }

  static std::string failure(const Extender& e, const char* verb, const api::Error& error) {
    return "extender " + e.config.name + " " + verb + ": " + error.message;
  }
};

HttpExtenderClient::HttpExtenderClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpExtenderClient::~HttpExtenderClient() = default;

api::Result<std::unique_ptr<HttpExtenderClient>> HttpExtenderClient::create(
    std::vector<ExtenderConfig> extenders) {
  auto impl = std::make_unique<Impl>();
  for (auto& config : extenders) {
    auto endpoint = net::parseEndpoint(config.urlPrefix);
    if (!endpoint)
      return api::badRequest("extender " + config.name + ": " + endpoint.error().message);
    net::HttpClientOptions options;
    options.maxResponseBody = size_t{16} << 20;
    if (endpoint->tls) {
      net::TlsClientOptions tls;
      tls.caPem = config.caPem;
      tls.insecureSkipVerify = config.insecureSkipVerify;
      auto ctx = net::makeClientTlsContext(tls);
      if (!ctx) return api::badRequest("extender " + config.name + ": " + ctx.error().message);
      options.tls = *ctx;
      options.serverName = config.serverName;
      options.verifyHostname = !config.insecureSkipVerify;
    }
    auto http = std::make_unique<net::HttpClient>(impl->io.get_executor(), std::move(*endpoint),
                                                  std::move(options));
    impl->extenders.push_back({std::move(config), std::move(http)});
  }
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->io.run(); });
  return std::unique_ptr<HttpExtenderClient>(new HttpExtenderClient(std::move(impl)));
}

ExtenderClient::FilterOutcome HttpExtenderClient::filter(
    const SchedulingUnit& unit, const std::vector<const api::FederatedCluster*>& feasible) {
  FilterOutcome out;
  std::vector<const api::FederatedCluster*> current = feasible;
  for (auto& e : impl_->extenders) {
    if (e.config.filterVerb.empty() || current.empty()) continue;
    std::vector<std::string> sent;
    sent.reserve(current.size());
    for (const auto* c : current) sent.push_back(c->metadata.name);
    auto body =
        impl_->call(e, e.config.filterVerb, extenderArgs(unit, current, e.config.nodeCacheCapable))
            .get();
    api::Result<ExtenderFilterResult> result =
        body ? parseFilterResponse(*body, sent, e.config.name)
             : api::Result<ExtenderFilterResult>(body.error());
    if (!result) {
      std::string message = Impl::failure(e, "filter", result.error());
      if (!e.config.ignorable) {
        out.error = std::move(message);
        return out;
      }
      out.warnings.push_back(std::move(message) + " (ignorable: skipped)");
      continue;
    }
    const std::string plugin = e.config.pluginName();
    for (auto& [cluster, reason] : result->failed)
      out.rejected.push_back({cluster, plugin, std::move(reason)});
    std::erase_if(current, [&](const api::FederatedCluster* c) {
      return result->failed.count(c->metadata.name) > 0;
    });
  }
  return out;
}

ExtenderClient::PrioritizeOutcome HttpExtenderClient::prioritize(
    const SchedulingUnit& unit, const std::vector<const api::FederatedCluster*>& feasible) {
  PrioritizeOutcome out;
  if (feasible.empty()) return out;
  std::vector<std::string> sent;
  sent.reserve(feasible.size());
  for (const auto* c : feasible) sent.push_back(c->metadata.name);
  // Start every call first: they run concurrently on the I/O thread.
  std::vector<std::pair<Impl::Extender*, std::future<api::Result<std::string>>>> calls;
  for (auto& e : impl_->extenders) {
    if (e.config.prioritizeVerb.empty()) continue;
    calls.emplace_back(&e, impl_->call(e, e.config.prioritizeVerb,
                                       extenderArgs(unit, feasible, e.config.nodeCacheCapable)));
  }
  for (auto& [e, future] : calls) {
    auto body = future.get();
    auto scores = body ? parsePrioritizeResponse(*body, sent, e->config.weight)
                       : api::Result<std::map<std::string, int64_t>>(body.error());
    if (!scores) {
      // Prioritize failures never fail a cycle (seed 004): the other scores decide.
      out.warnings.push_back(Impl::failure(*e, "prioritize", scores.error()) + " (ignored)");
      continue;
    }
    out.scores.push_back({e->config.pluginName(), std::move(*scores)});
  }
  return out;
}

}  // namespace flotilla::scheduler
