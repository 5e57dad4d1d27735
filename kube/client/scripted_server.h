// Test helper: an HTTP(S) server on port 0 whose answers a test scripts per request, recording
// what the client sent. Streaming answers send their chunks as given, so tests control exactly
// where the transport splits watch events.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client/delayer_recorder.h"
#include "kube/net/http_server.h"
#include "kube/net/test_server.h"

namespace flotilla::kube::testing {

struct Reply {
  net::HttpResponse response;
  std::vector<std::string> chunks;  // non-empty: stream these (response.status and headers first)
};

inline Reply json(int status, std::string body, net::Headers headers = {}) {
  headers.emplace_back("Content-Type", "application/json");
  return Reply{net::HttpResponse{status, std::move(headers), std::move(body)}, {}};
}
inline Reply stream(std::vector<std::string> chunks) {
  net::Headers headers = {{"Content-Type", "application/json"}};
  return Reply{net::HttpResponse{200, std::move(headers), ""}, std::move(chunks)};
}
// A Status body as kube-apiserver writes it.
inline std::string status(int code, const std::string& reason, const std::string& message,
                          const std::string& details = "") {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         message + R"(","reason":")" + reason + R"(",)" +
         (details.empty() ? "" : R"("details":)" + details + ",") + R"("code":)" +
         std::to_string(code) + "}";
}

class ScriptedServer {
 public:
  using Script = std::function<Reply(const net::HttpRequest&)>;

  ScriptedServer(net::testing::IoThread& io, Script script, net::HttpServerOptions options = {})
      : state_(std::make_shared<State>()) {
    state_->script = std::move(script);
    auto state = state_;
    server_ = std::make_unique<net::HttpServer>(
        io.io(), std::move(options),
        [state](net::HttpExchange& ex) -> boost::asio::awaitable<void> {
          Reply reply;
          {
            std::lock_guard lock(state->mutex);
            state->requests.push_back(ex.request());
            state->clientNames.push_back(ex.clientCommonName());
            reply = state->script(ex.request());
          }
          if (reply.chunks.empty()) {
            co_await ex.respond(std::move(reply.response));
            co_return;
          }
          const int code = reply.response.status;
          net::Headers headers = std::move(reply.response.headers);
          if (!co_await ex.startStream(code, std::move(headers))) co_return;
          for (auto& chunk : reply.chunks) {
            if (!co_await ex.writeChunk(std::move(chunk))) co_return;
          }
          co_await ex.endStream();
        });
    server_->start().value();
  }
  ~ScriptedServer() { server_->stop(); }

  std::string url() const { return server_->url(); }
  std::vector<net::HttpRequest> requests() const {
    std::lock_guard lock(state_->mutex);
    return state_->requests;
  }
  std::vector<std::string> clientNames() const {
    std::lock_guard lock(state_->mutex);
    return state_->clientNames;
  }
  size_t count() const {
    std::lock_guard lock(state_->mutex);
    return state_->requests.size();
  }

 private:
  struct State {
    mutable std::mutex mutex;
    Script script;
    std::vector<net::HttpRequest> requests;
    std::vector<std::string> clientNames;
  };
  std::shared_ptr<State> state_;
  std::unique_ptr<net::HttpServer> server_;
};

}  // namespace flotilla::kube::testing
