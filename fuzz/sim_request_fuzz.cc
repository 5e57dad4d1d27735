// flotilla-sim's request handling, in process: paths, query parameters, content types, bodies and
// the patch formats, as any client could send them. The input is NUL-separated sections: first
// the body every admission webhook call answers with (so the sim's reading of AdmissionReview
// responses is fuzzed too), then requests, each "METHOD TARGET CONTENT-TYPE\nBODY", served in
// order by one fresh API server (so a create can be followed by a patch of the same object).
//
// A request answered with a 5xx is a defect: kube-apiserver answers bad input with 4xx, and an
// exception escaping a handler is what the HTTP server turns into a 500. The one 500 that is
// right is a webhook call that failed (its answer is part of the input).
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <exception>
#include <iostream>

#include "fuzz/fuzz_check.h"
#include "kube/net/http_server.h"
#include "sim/server/admission.h"
#include "sim/server/api_server.h"
#include "sim/storage/store.h"

namespace sim = flotilla::sim;
namespace net = flotilla::net;
namespace asio = boost::asio;

namespace {

constexpr const char* kToken = "fuzz-token";

// One request, answered in memory. Watches end at once: the client is "gone".
class Exchange : public net::HttpExchange {
 public:
  Exchange(net::HttpRequest request, asio::any_io_executor executor)
      : request_(std::move(request)), executor_(std::move(executor)) {}
  const net::HttpRequest& request() const override { return request_; }
  const std::string& clientCommonName() const override { return cn_; }
  asio::any_io_executor executor() const override { return executor_; }
  asio::awaitable<void> respond(net::HttpResponse response) override {
    response_ = std::move(response);
    co_return;
  }
  asio::awaitable<bool> startStream(int status, net::Headers) override {
    response_.status = status;
    co_return false;
  }
  asio::awaitable<bool> writeChunk(std::string) override { co_return false; }
  asio::awaitable<void> endStream() override { co_return; }
  bool clientGone() override { return true; }
  void abandon() override {}

  net::HttpResponse response_;

 private:
  net::HttpRequest request_;
  std::string cn_;
  asio::any_io_executor executor_;
};

// Every webhook call answers with the first section of the input.
class Caller : public sim::WebhookCaller {
 public:
  explicit Caller(std::string answer) : answer_(std::move(answer)) {}
  flotilla::api::Result<std::string> call(const sim::Webhook&, const std::string&) override {
    return flotilla::api::Result<std::string>(boost::system::in_place_value, answer_);
  }

 private:
  std::string answer_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view rest = flotilla::fuzz::text(data, size);
  auto [answer, requests] = flotilla::fuzz::split(rest, std::string_view("\0", 1));

  // First, so it is destroyed last: watches keep timers of it until the server goes.
  asio::io_context io;
  auto store = sim::Store::open({}).value();
  sim::ApiServerOptions options;
  options.tokens = {kToken};
  options.webhookCaller = std::make_shared<Caller>(std::string(answer));
  options.now = [] {
    return flotilla::api::Clock::time_point(std::chrono::seconds(1'800'000'000));
  };
  sim::ApiServer server(*store, options);
  FUZZ_CHECK(server.bootstrap().has_value(), "bootstrap");

  int served = 0;
  while (!requests.empty() && served < 16) {
    auto [one, next] = flotilla::fuzz::split(requests, std::string_view("\0", 1));
    requests = next;
    auto [head, body] = flotilla::fuzz::split(one, "\n");
    auto [method, afterMethod] = flotilla::fuzz::split(head, " ");
    auto [target, contentType] = flotilla::fuzz::split(afterMethod, " ");
    net::HttpRequest request;
    request.method = std::string(method);
    request.target = std::string(target);
    request.body = std::string(body);
    request.headers.push_back({"Authorization", std::string("Bearer ") + kToken});
    if (!contentType.empty()) request.headers.push_back({"Content-Type", std::string(contentType)});
    Exchange exchange(std::move(request), io.get_executor());
    std::exception_ptr failure;
    asio::co_spawn(io, server.handle(exchange), [&](std::exception_ptr e) { failure = e; });
    io.restart();
    io.run();
    if (failure) {
      try {
        std::rethrow_exception(failure);
      } catch (const std::exception& e) {
        FUZZ_CHECK(false, std::string("exception out of the handler: ") + e.what() + " for " +
                              std::string(head));
      }
    }
    // ... except a webhook that answered badly, which kube-apiserver also reports as a 500.
    const bool webhookFailed =
        exchange.response_.body.find("failed calling webhook") != std::string::npos;
    FUZZ_CHECK(exchange.response_.status < 500 || webhookFailed,
               std::to_string(exchange.response_.status) + " for " + std::string(head) + ": " +
                   exchange.response_.body);
    ++served;
  }
  return 0;
}
