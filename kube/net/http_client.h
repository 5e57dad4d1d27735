// An HTTP/1.1 client over TCP or TLS (Boost.Beast, C++20 coroutines) for one server: keep-alive
// connection reuse, a deadline on every request, a response body limit, and streaming responses
// (watch). Shared by the Kubernetes REST client and the scheduler's extender client.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "api/result.h"
#include "kube/net/endpoint.h"
#include "kube/net/http_types.h"
#include "kube/net/tls.h"

namespace flotilla::net {

struct HttpClientOptions {
  TlsContextPtr tls;       // required for https endpoints (see makeClientTlsContext)
  std::string serverName;  // SNI and the name verified in the certificate; default: endpoint host
  bool verifyHostname = true;  // false only together with insecureSkipVerify
  size_t maxResponseBody = size_t{256} << 20;
  size_t maxIdleConnections = 8;
  std::string userAgent = "flotilla/0.1";
};

// A streaming response body (watch): bytes as the server sends them, chunk framing removed.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  // The next bytes of the body; an empty string means the server ended the response. Fails with
  // kTimeout when nothing arrived within `idle`, kTransport when the connection broke.
  virtual boost::asio::awaitable<api::Result<std::string>> next(std::chrono::milliseconds idle) = 0;
  // Drops the connection (for a client that stops watching).
  virtual void close() = 0;
};

class HttpClient {
 public:
  // All connections live on `executor`; call request()/openStream() from coroutines on it.
  HttpClient(boost::asio::any_io_executor executor, Endpoint endpoint, HttpClientOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  const Endpoint& endpoint() const;

  // One request and its whole response. `request.target` is relative to the endpoint's base path.
  // The deadline covers connecting, the TLS handshake, writing and reading. Any HTTP status is a
  // success here; only transport failures (kTransport) and the deadline (kTimeout) are errors.
  // A pooled connection the server had closed is replaced transparently.
  boost::asio::awaitable<api::Result<HttpResponse>> request(HttpRequest request,
                                                            std::chrono::milliseconds timeout);

  // Sends the request and reads the response headers within `timeout`. A 2xx answer comes back as
  // a stream (response.body empty); any other status is read whole and returned with no stream.
  struct Streamed {
    HttpResponse response;
    std::unique_ptr<HttpStream> stream;
  };
  boost::asio::awaitable<api::Result<Streamed>> openStream(HttpRequest request,
                                                           std::chrono::milliseconds timeout);

  // Idle pooled connections (tests and metrics).
  size_t idleConnections() const;

  struct Impl;  // implementation detail (public only so streams in the .cc can share it)

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace flotilla::net
