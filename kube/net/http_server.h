// An HTTP/1.1 server over TLS (or plain TCP for tests), C++20 coroutines on Boost.Beast: one
// strand per connection, keep-alive, a request body limit (413), deadlines on every read and
// write, and chunked streaming responses (watch). Used by flotilla-sim, the webhook server, the
// operator's health/metrics endpoint and test servers.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "api/result.h"
#include "kube/net/http_types.h"
#include "kube/net/tls.h"

namespace boost::asio {
class io_context;
}

namespace flotilla::net {

struct HttpServerOptions {
  std::string address = "127.0.0.1";  // loopback unless configured otherwise
  uint16_t port = 0;                  // 0: any free port (see HttpServer::port)
  TlsContextPtr tls;                  // null: plain HTTP (tests and local-only endpoints)
  // When set, asked for the TLS context of every new connection (and `tls` only says that the
  // server speaks TLS): how a server picks up rotated certificates without a restart.
  std::function<TlsContextPtr()> tlsProvider;
  // At most this many connections are served at once (0: no limit); further clients wait in the
  // listen backlog until one closes, so a flood cannot exhaust memory or file descriptors.
  size_t maxConnections = 0;
  size_t maxRequestBody = size_t{3} << 20;  // kube-apiserver's default is 3 MiB
  // Request body bytes held in memory at once, over all connections (0: no limit). Bytes are
  // counted as they arrive, not as declared; a request whose body does not fit gets 503 and the
  // connection closes: many connections cannot each buffer maxRequestBody.
  size_t maxBufferedBodies = 0;
  // To receive one whole request (header, 100-continue and body). A connection's first request
  // shares one deadline with the TLS handshake (a client trickling bytes holds its slot for this
  // long at most); a kept-alive connection waits up to idleTimeout for the next request's first
  // byte, and this deadline starts there.
  std::chrono::milliseconds requestTimeout{60'000};
  std::chrono::milliseconds idleTimeout{120'000};  // between requests on a kept-alive connection
  std::chrono::milliseconds writeTimeout{30'000};  // per response write or stream chunk
  // The body for errors the server answers itself (400, 413, 500): content type and text.
  std::function<HttpResponse(int status, const std::string& message)> errorResponse;
};

// One request being answered. Exactly one of respond() or startStream() is called.
class HttpExchange {
 public:
  virtual ~HttpExchange() = default;
  virtual const HttpRequest& request() const = 0;
  // Subject CN of a verified client certificate, empty when none was presented.
  virtual const std::string& clientCommonName() const = 0;
  virtual boost::asio::any_io_executor executor() const = 0;

  virtual boost::asio::awaitable<void> respond(HttpResponse response) = 0;
  // Chunked streaming: headers first, then chunks. Each returns false when the client went away or
  // a write did not finish within writeTimeout; the handler should then return.
  virtual boost::asio::awaitable<bool> startStream(int status, Headers headers) = 0;
  virtual boost::asio::awaitable<bool> writeChunk(std::string data) = 0;
  virtual boost::asio::awaitable<void> endStream() = 0;
  // True once the client closed its side (checked cheaply, without reading a request body).
  virtual bool clientGone() = 0;
  // Closes the connection without (the rest of) an answer: a response not yet sent never is, a
  // stream ends without its last chunk. flotilla-sim's fault injection (a write committed whose
  // client never learns the outcome, a watch cut mid-stream).
  virtual void abandon() = 0;
};

// Called on the connection's strand. Exceptions are caught and answered with 500.
using HttpHandler = std::function<boost::asio::awaitable<void>(HttpExchange&)>;

class HttpServer {
 public:
  HttpServer(boost::asio::io_context& io, HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and starts accepting; returns the bound port.
  api::Result<uint16_t> start();
  uint16_t port() const;
  std::string url() const;  // "https://127.0.0.1:PORT"
  // Stops accepting and closes every connection (streams included). Idempotent.
  void stop();
  size_t openConnections() const;
  // Accepts that failed (out of file descriptors, say); each is followed by a 100 ms pause.
  uint64_t acceptFailures() const;
  // Request body bytes now held, counted against maxBufferedBodies.
  size_t bufferedBodyBytes() const;

  struct Impl;  // implementation detail

 private:
  std::shared_ptr<Impl> impl_;
};

}  // namespace flotilla::net
