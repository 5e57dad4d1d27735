#include "kube/net/http_client.h"

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <deque>
#include <mutex>

namespace flotilla::net {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);
constexpr size_t kErrorBodyLimit = size_t{1} << 20;

struct Connection {
  std::unique_ptr<beast::tcp_stream> plain;
  std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> secure;
  beast::flat_buffer buffer;

  beast::tcp_stream& lowest() { return plain ? *plain : beast::get_lowest_layer(*secure); }
  void close() {
    boost::system::error_code ignored;
    lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
    lowest().socket().close(ignored);
  }
  // A pooled connection is reusable only while nothing is readable on it: EOF means the server
  // closed it, and stray bytes (a TLS close_notify) mean the same.
  bool stillOpen() {
    auto& socket = lowest().socket();
    if (!socket.is_open() || buffer.size() != 0) return false;
    boost::system::error_code ec;
    socket.non_blocking(true, ec);
    char byte;
    socket.receive(asio::buffer(&byte, 1), tcp::socket::message_peek, ec);
    boost::system::error_code ignored;
    socket.non_blocking(false, ignored);
    return ec == asio::error::would_block;
  }
};

// Runs `f` on whichever stream the connection has; both instantiations return the same awaitable.
template <class F>
auto onStream(Connection& c, F&& f) {
  return c.secure ? f(*c.secure) : f(*c.plain);
}

bool idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE" ||
         method == "OPTIONS";
}

HttpResponse fromBeast(http::response_header<>& header, std::string body) {
  HttpResponse out;
  out.status = static_cast<int>(header.result_int());
  for (const auto& field : header)
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  out.body = std::move(body);
  return out;
}

}  // namespace

struct HttpClient::Impl {
  asio::any_io_executor executor;
  Endpoint endpoint;
  HttpClientOptions options;
  std::string serverName;
  std::string tlsSetupError;
  mutable std::mutex mutex;
  std::deque<std::unique_ptr<Connection>> idle;

  api::Error failure(std::string_view what, const boost::system::error_code& ec,
                     std::chrono::milliseconds timeout) const {
    if (ec == beast::error::timeout || ec == asio::error::operation_aborted)
      return api::Error{api::reason::kTimeout,
                        0,
                        std::string(what) + " " + endpoint.str() + ": timed out after " +
                            std::to_string(timeout.count()) + "ms",
                        {}};
    if (ec == http::error::body_limit)
      return api::Error{api::reason::kTransport,
                        0,
                        "response from " + endpoint.str() + " exceeds the " +
                            std::to_string(options.maxResponseBody) + "-byte limit",
                        {}};
    // The peer answered, but not in HTTP (a cut answer is a transport failure, not this).
    if (ec.category() == http::make_error_code(http::error::bad_version).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message)
      return api::Error{
          api::reason::kTransport,
          0,
          "the answer of " + endpoint.str() + " is not valid HTTP (" + ec.message() + ")",
          {}};
    return api::Error{api::reason::kTransport,
                      0,
                      std::string(what) + " " + endpoint.str() + ": " + ec.message(),
                      {}};
  }

  std::unique_ptr<Connection> takeIdle() {
    std::lock_guard lock(mutex);
    while (!idle.empty()) {
      auto conn = std::move(idle.back());
      idle.pop_back();
      if (conn->stillOpen()) return conn;
      conn->close();
    }
    return nullptr;
  }

  void putIdle(std::unique_ptr<Connection> conn) {
    conn->lowest().expires_never();
    std::lock_guard lock(mutex);
    if (idle.size() >= options.maxIdleConnections) {
      conn->close();
      return;
    }
    idle.push_back(std::move(conn));
  }

  http::request<http::string_body> toBeast(const HttpRequest& r) const {
    http::request<http::string_body> req;
    req.version(11);
    req.method_string(r.method);
    req.target(endpoint.basePath + r.target);
    req.set(http::field::host, endpoint.hostHeader());
    req.set(http::field::user_agent, options.userAgent);
    for (const auto& [name, value] : r.headers) req.insert(name, value);
    req.body() = r.body;
    req.keep_alive(true);
    if (!r.body.empty() || r.method == "POST" || r.method == "PUT" || r.method == "PATCH")
      req.prepare_payload();
    return req;
  }

  asio::awaitable<api::Result<std::unique_ptr<Connection>>> connect(
      Clock::time_point deadline, std::chrono::milliseconds timeout) {
    if (endpoint.tls && !options.tls)
      co_return api::Error{
          api::reason::kTransport, 0, "TLS setup for " + endpoint.str() + ": " + tlsSetupError, {}};
    std::vector<tcp::endpoint> addresses;
    boost::system::error_code ec;
    const auto address = asio::ip::make_address(endpoint.host, ec);
    if (!ec) {
      addresses.emplace_back(address, endpoint.port);
    } else {
      // The resolver has no deadline of its own: a timer cancels it.
      tcp::resolver resolver(executor);
      asio::steady_timer timer(executor);
      timer.expires_at(deadline);
      timer.async_wait([&resolver](boost::system::error_code e) {
        if (!e) resolver.cancel();
      });
      const std::string service = std::to_string(endpoint.port);
      auto [rec, results] = co_await resolver.async_resolve(endpoint.host, service, kAwait);
      timer.cancel();
      if (rec) co_return failure("resolving", rec, timeout);
      for (const auto& r : results) addresses.push_back(r.endpoint());
    }
    auto conn = std::make_unique<Connection>();
    if (endpoint.tls) {
      conn->secure = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(executor, *options.tls);
      if (!endpoint.hostIsIpAddress() || serverName != endpoint.host)
        SSL_set_tlsext_host_name(conn->secure->native_handle(), serverName.c_str());
      if (options.verifyHostname)
        conn->secure->set_verify_callback(asio::ssl::host_name_verification(serverName));
    } else {
      conn->plain = std::make_unique<beast::tcp_stream>(executor);
    }
    auto& lowest = conn->lowest();
    lowest.expires_at(deadline);
    auto [cec, connected] = co_await lowest.async_connect(addresses, kAwait);
    (void)connected;
    if (cec) co_return failure("connecting to", cec, timeout);
    lowest.socket().set_option(tcp::no_delay(true), ec);
    if (conn->secure) {
      auto [hec] = co_await conn->secure->async_handshake(asio::ssl::stream_base::client, kAwait);
      if (hec) co_return failure("TLS handshake with", hec, timeout);
    }
    co_return std::move(conn);
  }

  // A connection and the parser that read (part of) its response.
  template <class Parser>
  struct Sent {
    std::unique_ptr<Connection> conn;
    std::unique_ptr<Parser> parser;
  };

  // Writes `req` and runs `read` (the whole response, or only its header) on a pooled or new
  // connection. A pooled connection the server closed in the meantime fails before any answer:
  // that is retried once on a new connection when it cannot repeat a side effect.
  template <class Parser, class Configure, class Read>
  asio::awaitable<api::Result<Sent<Parser>>> send(const http::request<http::string_body>& req,
                                                  const std::string& method,
                                                  Clock::time_point deadline,
                                                  std::chrono::milliseconds timeout,
                                                  Configure configure, Read read) {
    for (int attempt = 0;; ++attempt) {
      auto conn = takeIdle();
      const bool reused = conn != nullptr;
      if (!conn) {
        auto fresh = co_await connect(deadline, timeout);
        if (!fresh) co_return fresh.error();
        conn = std::move(*fresh);
      }
      auto parser = std::make_unique<Parser>();
      configure(*parser);
      conn->lowest().expires_at(deadline);
      auto [wec, written] =
          co_await onStream(*conn, [&](auto& s) { return http::async_write(s, req, kAwait); });
      (void)written;
      boost::system::error_code ec = wec;
      if (!ec) {
        auto [rec, got] =
            co_await onStream(*conn, [&](auto& s) { return read(s, conn->buffer, *parser); });
        (void)got;
        ec = rec;
      }
      if (!ec) co_return Sent<Parser>{std::move(conn), std::move(parser)};
      conn->close();
      const bool safe = wec || idempotent(method);
      if (reused && attempt == 0 && !parser->got_some() && ec != beast::error::timeout && safe)
        continue;
      co_return failure("request to", ec, timeout);
    }
  }
};

namespace {

// A streamed body read with a fixed buffer: works for chunked and length-delimited bodies.
class StreamImpl final : public HttpStream {
 public:
  StreamImpl(std::shared_ptr<HttpClient::Impl> client, std::unique_ptr<Connection> conn,
             std::unique_ptr<http::response_parser<http::buffer_body>> parser)
      : client_(std::move(client)), conn_(std::move(conn)), parser_(std::move(parser)) {}
  ~StreamImpl() override { close(); }

  asio::awaitable<api::Result<std::string>> next(std::chrono::milliseconds idle) override {
    while (conn_ && !parser_->is_done()) {
      parser_->get().body().data = buffer_.data();
      parser_->get().body().size = buffer_.size();
      conn_->lowest().expires_after(idle);
      reading_ = true;
      auto [ec, n] = co_await onStream(*conn_, [&](auto& s) {
        return http::async_read_some(s, conn_->buffer, *parser_, kAwait);
      });
      reading_ = false;
      (void)n;
      if (closed_) {  // close() ran while the read was pending: release the connection now
        conn_.reset();
        co_return client_->failure("reading the stream from", asio::error::operation_aborted, idle);
      }
      if (ec && ec != http::error::need_buffer) {
        close();
        co_return client_->failure("reading the stream from", ec, idle);
      }
      const size_t got = buffer_.size() - parser_->get().body().size;
      if (parser_->is_done()) finish();
      if (got > 0) co_return api::okString(std::string(buffer_.data(), got));
    }
    co_return api::okString("");
  }

  // Closing the socket cancels a pending read; the Connection it uses is destroyed only once that
  // read has returned (by next()), never under it.
  void close() override {
    closed_ = true;
    if (conn_) conn_->close();
    if (!reading_) conn_.reset();
  }

  http::response_parser<http::buffer_body>& parser() { return *parser_; }

 private:
  void finish() {
    if (conn_ && parser_->get().keep_alive()) {
      client_->putIdle(std::move(conn_));
    } else {
      close();
    }
  }

  std::shared_ptr<HttpClient::Impl> client_;
  std::unique_ptr<Connection> conn_;
  std::unique_ptr<http::response_parser<http::buffer_body>> parser_;
  std::array<char, size_t{64} * 1024> buffer_;
  bool reading_ = false;
  bool closed_ = false;
};

}  // namespace

HttpClient::HttpClient(asio::any_io_executor executor, Endpoint endpoint, HttpClientOptions options)
    : impl_(std::make_shared<Impl>()) {
  impl_->executor = std::move(executor);
  impl_->endpoint = std::move(endpoint);
  impl_->options = std::move(options);
  impl_->serverName =
      impl_->options.serverName.empty() ? impl_->endpoint.host : impl_->options.serverName;
  if (impl_->endpoint.tls && !impl_->options.tls) {
    auto ctx = makeClientTlsContext({});
    if (ctx) {
      impl_->options.tls = *ctx;
    } else {
      impl_->tlsSetupError = ctx.error().message;
    }
  }
}

HttpClient::~HttpClient() {
  std::lock_guard lock(impl_->mutex);
  for (auto& conn : impl_->idle) conn->close();
  impl_->idle.clear();
}

const Endpoint& HttpClient::endpoint() const { return impl_->endpoint; }

size_t HttpClient::idleConnections() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->idle.size();
}

asio::awaitable<api::Result<HttpResponse>> HttpClient::request(HttpRequest request,
                                                               std::chrono::milliseconds timeout) {
  std::shared_ptr<Impl> self = impl_;
  const auto deadline = Clock::now() + timeout;
  const auto req = self->toBeast(request);
  using Parser = http::response_parser<http::string_body>;
  const size_t limit = self->options.maxResponseBody;
  auto sent = co_await self->send<Parser>(
      req, request.method, deadline, timeout, [limit](Parser& p) { p.body_limit(limit); },
      [](auto& stream, beast::flat_buffer& buffer, Parser& p) {
        return http::async_read(stream, buffer, p, kAwait);
      });
  if (!sent) co_return sent.error();
  auto response = sent->parser->release();
  const bool keepAlive = response.keep_alive();
  HttpResponse out = fromBeast(response.base(), std::move(response.body()));
  if (keepAlive) {
    self->putIdle(std::move(sent->conn));
  } else {
    sent->conn->close();
  }
  co_return out;
}

asio::awaitable<api::Result<HttpClient::Streamed>> HttpClient::openStream(
    HttpRequest request, std::chrono::milliseconds timeout) {
  std::shared_ptr<Impl> self = impl_;
  const auto deadline = Clock::now() + timeout;
  const auto req = self->toBeast(request);
  using Parser = http::response_parser<http::buffer_body>;
  auto sent = co_await self->send<Parser>(
      req, request.method, deadline, timeout,
      // Watch streams have no size limit, only an idle timeout.
      [](Parser& p) { p.body_limit(boost::none); },
      [](auto& stream, beast::flat_buffer& buffer, Parser& p) {
        return http::async_read_header(stream, buffer, p, kAwait);
      });
  if (!sent) co_return sent.error();
  auto conn = std::move(sent->conn);
  auto parser = std::move(sent->parser);
  Streamed out;
  out.response = fromBeast(parser->get().base(), {});
  auto stream = std::make_unique<StreamImpl>(self, std::move(conn), std::move(parser));
  if (out.response.status >= 200 && out.response.status < 300) {
    out.stream = std::move(stream);
    co_return out;
  }
  // An error answer (410 Gone, 403, ...) is read whole, within the same deadline.
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) co_return self->failure("request to", beast::error::timeout, timeout);
    auto part = co_await stream->next(left);
    if (!part) co_return part.error();
    if (part->empty()) break;
    out.response.body += *part;
    if (out.response.body.size() > kErrorBodyLimit) {
      stream->close();
      break;
    }
  }
  co_return out;
}

}  // namespace flotilla::net
