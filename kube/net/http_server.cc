#include "kube/net/http_server.h"

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <array>
#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <future>
#include <map>
#include <mutex>

namespace flotilla::net {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

// Error codes as values rather than exceptions.
//
// GCC 12 destroys temporaries of a suspended co_await full-expression twice when the coroutine
// frame is destroyed (io_context shutdown): every non-trivial argument of a co_await'ed call is
// therefore a named local first. This applies to all coroutine code in Flotilla.
constexpr auto kAwait = asio::as_tuple(asio::use_awaitable);
// Oversized bodies up to this size are read and dropped before the 413 is sent.
constexpr uint64_t kMaxDrainedBody = uint64_t{64} << 20;
// What a connection's read buffer may hold: a whole header, and some framing beyond it.
constexpr size_t kMaxBufferedFraming = (64 + 16) * 1024;
// Bodies are read in pieces of this size (from the heap: a coroutine frame holds its arrays for
// the connection's whole life, idle or not).
constexpr size_t kBodyPiece = 16 * 1024;

HttpResponse defaultErrorResponse(int status, const std::string& message) {
  return HttpResponse{status, {{"Content-Type", "text/plain; charset=utf-8"}}, message + "\n"};
}

std::string peerCommonName(SSL* ssl) {
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return {};
  std::string out;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    char buf[256] = {};
    if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf, sizeof buf) > 0)
      out = buf;
  }
  X509_free(cert);
  return out;
}

}  // namespace

struct HttpServer::Impl : std::enable_shared_from_this<Impl> {
  asio::io_context& io;
  HttpServerOptions options;
  HttpHandler handler;
  asio::strand<asio::io_context::executor_type> acceptorStrand;
  tcp::acceptor acceptor;
  std::atomic<uint16_t> boundPort{0};
  std::atomic<bool> stopped{false};
  mutable std::mutex mutex;
  uint64_t nextSession = 0;
  std::map<uint64_t, std::function<void()>> closers;  // closes a session's socket on its strand
  std::map<uint64_t, std::shared_ptr<std::atomic<bool>>> idleFlags;  // between two requests
  std::atomic<size_t> sessions{0};                                   // accepted and not finished
  std::atomic<uint64_t> acceptFailures{0};
  std::atomic<size_t> bufferedBodies{0};  // bytes reserved by requests being read or handled
  asio::steady_timer slotFreed;           // on acceptorStrand: wakes the accept loop when one ends

  Impl(asio::io_context& context, HttpServerOptions opts, HttpHandler h)
      : io(context),
        options(std::move(opts)),
        handler(std::move(h)),
        acceptorStrand(asio::make_strand(context)),
        acceptor(acceptorStrand),
        slotFreed(acceptorStrand) {
    if (!options.errorResponse) options.errorResponse = defaultErrorResponse;
  }

  uint64_t track(std::function<void()> closer, std::shared_ptr<std::atomic<bool>> idle) {
    std::lock_guard lock(mutex);
    const uint64_t id = nextSession++;
    closers.emplace(id, std::move(closer));
    idleFlags.emplace(id, std::move(idle));
    return id;
  }
  void untrack(uint64_t id) {
    std::lock_guard lock(mutex);
    closers.erase(id);
    idleFlags.erase(id);
  }
  // At the connection limit: kept-alive connections waiting for their next request give their
  // slot up (their clients reconnect), so idle connections cannot starve new ones.
  void closeIdle() {
    std::lock_guard lock(mutex);
    for (const auto& [id, idle] : idleFlags)
      if (idle->load()) closers.at(id)();
  }

  asio::awaitable<void> acceptLoop();
  template <class Stream>
  asio::awaitable<void> serve(Stream& stream, beast::tcp_stream& lowest, std::string commonName,
                              std::atomic<bool>& idle);
  asio::awaitable<void> session(tcp::socket socket);
};

namespace {

template <class Stream>
class Exchange final : public HttpExchange {
 public:
  Exchange(Stream& stream, beast::tcp_stream& lowest, const HttpServerOptions& options,
           HttpRequest request, bool keepAlive, const std::string& commonName)
      : stream_(stream),
        lowest_(lowest),
        options_(options),
        request_(std::move(request)),
        keepAlive_(keepAlive),
        commonName_(commonName) {}

  const HttpRequest& request() const override { return request_; }
  const std::string& clientCommonName() const override { return commonName_; }
  asio::any_io_executor executor() const override { return lowest_.get_executor(); }

  asio::awaitable<void> respond(HttpResponse response) override {
    if (answered_) co_return;
    answered_ = true;
    http::response<http::string_body> res;
    res.version(11);
    res.result(static_cast<unsigned>(response.status));
    for (auto& [name, value] : response.headers) res.insert(name, value);
    res.body() = std::move(response.body);
    res.keep_alive(keepAlive_);
    res.prepare_payload();
    lowest_.expires_after(options_.writeTimeout);
    auto [ec, n] = co_await http::async_write(stream_, res, kAwait);
    (void)n;
    lowest_.expires_never();
    if (ec) broken_ = true;
  }

  asio::awaitable<bool> startStream(int status, Headers headers) override {
    if (answered_) co_return false;
    answered_ = true;
    streaming_ = true;
    http::response<http::empty_body> res;
    res.version(11);
    res.result(static_cast<unsigned>(status));
    for (auto& [name, value] : headers) res.insert(name, value);
    res.keep_alive(keepAlive_);
    res.chunked(true);
    http::response_serializer<http::empty_body> serializer(res);
    lowest_.expires_after(options_.writeTimeout);
    auto [ec, n] = co_await http::async_write_header(stream_, serializer, kAwait);
    (void)n;
    lowest_.expires_never();
    if (ec) broken_ = true;
    co_return !broken_;
  }

  asio::awaitable<bool> writeChunk(std::string data) override {
    if (!streaming_ || broken_ || data.empty()) co_return !broken_;
    lowest_.expires_after(options_.writeTimeout);
    auto chunk = http::make_chunk(asio::buffer(data));
    auto [ec, n] = co_await asio::async_write(stream_, chunk, kAwait);
    (void)n;
    lowest_.expires_never();
    if (ec) broken_ = true;
    co_return !broken_;
  }

  asio::awaitable<void> endStream() override {
    if (!streaming_ || broken_ || ended_) co_return;
    ended_ = true;
    lowest_.expires_after(options_.writeTimeout);
    auto last = http::make_chunk_last();
    auto [ec, n] = co_await asio::async_write(stream_, last, kAwait);
    (void)n;
    lowest_.expires_never();
    if (ec) broken_ = true;
  }

  bool clientGone() override {
    if (broken_) return true;
    auto& socket = lowest_.socket();
    if (!socket.is_open()) return true;
    boost::system::error_code ec;
    socket.non_blocking(true, ec);
    char byte;
    const size_t n = socket.receive(asio::buffer(&byte, 1), tcp::socket::message_peek, ec);
    boost::system::error_code ignored;
    socket.non_blocking(false, ignored);
    if (ec == asio::error::would_block) return false;
    return ec || n == 0;
  }

  void abandon() override {
    // The session ends when the handler returns (the exchange is neither unanswered nor
    // reusable) and closes the socket there; nothing more is written until then.
    answered_ = true;
    broken_ = true;
  }

  bool answered() const { return answered_; }
  // The connection can carry another request.
  bool reusable() const { return keepAlive_ && !broken_ && (!streaming_ || ended_); }

 private:
  Stream& stream_;
  beast::tcp_stream& lowest_;
  const HttpServerOptions& options_;
  HttpRequest request_;
  bool keepAlive_;
  const std::string& commonName_;
  bool answered_ = false;
  bool streaming_ = false;
  bool ended_ = false;
  bool broken_ = false;
};

}  // namespace

template <class Stream>
asio::awaitable<void> HttpServer::Impl::serve(Stream& stream, beast::tcp_stream& lowest,
                                              std::string commonName, std::atomic<bool>& idle) {
  // Bounded: the header (64 KiB) and chunk framing are read through it, and Beast limits neither
  // a chunk extension nor trailers: a request with an endless one fails with buffer_overflow
  // instead of growing this (docs/security.md, M2). Bodies go to `received`, not here.
  beast::flat_buffer buffer(kMaxBufferedFraming);
  bool first = true;
  while (!stopped) {
    // One deadline per request, for header, 100-continue and body together. The first request
    // continues the deadline the session set before the TLS handshake; a kept-alive connection
    // waits idleTimeout for the next request's first byte, and the deadline starts there, so a
    // pipelined byte cannot stretch a request to the idle timeout.
    if (!first) {
      if (buffer.size() == 0) {
        lowest.expires_after(options.idleTimeout);
        idle = true;
        auto room = buffer.prepare(16 * 1024);
        auto [iec, in] = co_await stream.async_read_some(room, kAwait);
        idle = false;
        if (iec) co_return;  // EOF, reset or the idle timeout: just close
        buffer.commit(in);
      }
      lowest.expires_after(options.requestTimeout);
    }
    first = false;
    http::request_parser<http::empty_body> parser;
    parser.header_limit(64 * 1024);
    parser.body_limit(boost::none);  // checked here, against maxRequestBody, as bytes arrive
    auto [hec, hn] = co_await http::async_read_header(stream, buffer, parser, kAwait);
    (void)hn;
    if (hec) {
      // EOF, reset or timeout: just close. A malformed request gets a 400.
      if (hec.category() == http::make_error_code(http::error::bad_target).category() &&
          hec != http::error::end_of_stream && hec != http::error::partial_message) {
        auto res = options.errorResponse(400, "malformed HTTP request: " + hec.message());
        Exchange<Stream> exchange(stream, lowest, options, {}, false, commonName);
        co_await exchange.respond(std::move(res));
      }
      co_return;
    }
    const bool continueExpected = beast::iequals(parser.get()[http::field::expect], "100-continue");
    if (auto length = parser.content_length(); length && *length > options.maxRequestBody) {
      // Read (and drop) a body of reasonable size first: a client still writing it would see a
      // reset instead of the 413.
      if (*length <= kMaxDrainedBody && !continueExpected) {
        http::request_parser<http::buffer_body> drain(std::move(parser));
        std::vector<char> scratch(kBodyPiece);
        while (!drain.is_done()) {
          drain.get().body().data = scratch.data();
          drain.get().body().size = scratch.size();
          auto [dec, dn] = co_await http::async_read_some(stream, buffer, drain, kAwait);
          (void)dn;
          if (dec && dec != http::error::need_buffer) co_return;
        }
      }
      Exchange<Stream> exchange(stream, lowest, options, {}, false, commonName);
      auto errorReply = options.errorResponse(
          413, "the request body of " + std::to_string(*length) + " bytes exceeds the limit of " +
                   std::to_string(options.maxRequestBody) + " bytes");
      co_await exchange.respond(std::move(errorReply));
      co_return;
    }
    if (continueExpected) {
      http::response<http::empty_body> cont{http::status::continue_, 11};
      auto [cec, cn] = co_await http::async_write(stream, cont, kAwait);
      (void)cn;
      if (cec) co_return;
    }
    // The body is read in pieces, each reserved in the server-wide budget as it arrives: a
    // declared Content-Length reserves nothing until its bytes come (docs/security.md, M2).
    struct Reservation {
      std::atomic<size_t>& total;
      size_t bytes = 0;
      ~Reservation() { total.fetch_sub(bytes); }
      bool grow(size_t more, size_t limit) {
        if (!limit) return true;
        size_t now = total.load();
        do {
          if (now + more > limit) return false;
        } while (!total.compare_exchange_weak(now, now + more));
        bytes += more;
        return true;
      }
    } reservation{bufferedBodies};
    http::request_parser<http::buffer_body> body(std::move(parser));
    std::string received;
    std::vector<char> scratch(kBodyPiece);
    int refusal = 0;  // 413 or 503 once the body cannot be held
    while (!body.is_done()) {
      body.get().body().data = scratch.data();
      body.get().body().size = scratch.size();
      auto [bec, bn] = co_await http::async_read_some(stream, buffer, body, kAwait);
      (void)bn;
      if (bec && bec != http::error::need_buffer) co_return;
      const size_t got = scratch.size() - body.get().body().size;
      if (received.size() + got > options.maxRequestBody) {  // chunked bodies declare no length
        refusal = 413;
        break;
      }
      if (!reservation.grow(got, options.maxBufferedBodies)) {
        refusal = 503;
        break;
      }
      received.append(scratch.data(), got);
    }
    if (refusal) {
      Exchange<Stream> exchange(stream, lowest, options, {}, false, commonName);
      auto errorReply =
          refusal == 413
              ? options.errorResponse(413, "the request body exceeds the limit of " +
                                               std::to_string(options.maxRequestBody) + " bytes")
              : options.errorResponse(
                    503, "the server is reading too many request bodies at once; retry");
      co_await exchange.respond(std::move(errorReply));
      co_return;
    }
    lowest.expires_never();
    const auto& message = body.get();
    HttpRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    for (const auto& field : message)
      request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    request.body = std::move(received);
    Exchange<Stream> exchange(stream, lowest, options, std::move(request), message.keep_alive(),
                              commonName);
    std::string failure;
    try {
      co_await handler(exchange);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (!exchange.answered()) {
      auto errorReply = options.errorResponse(
          500, failure.empty() ? "the handler sent no response" : "internal error: " + failure);
      co_await exchange.respond(std::move(errorReply));
    }
    if (!exchange.reusable()) co_return;
  }
}

asio::awaitable<void> HttpServer::Impl::session(tcp::socket socket) {
  auto self = shared_from_this();
  // stop() closes the socket on the session's strand; `alive` (only touched on that strand) keeps
  // a late close from reaching a finished session.
  auto alive = std::make_shared<bool>(true);
  auto idle = std::make_shared<std::atomic<bool>>(false);
  auto closer = [](beast::tcp_stream& lowest, const std::shared_ptr<bool>& flag) {
    return [&lowest, flag] {
      asio::post(lowest.get_executor(), [&lowest, flag] {
        if (*flag) lowest.close();
      });
    };
  };
  boost::system::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  struct Release {  // the connection slot is free again however the session ends
    Impl& impl;
    ~Release() {
      impl.sessions.fetch_sub(1);
      if (impl.options.maxConnections)
        asio::post(impl.acceptorStrand,
                   [self = impl.shared_from_this()] { self->slotFreed.cancel(); });
    }
  } release{*this};
  TlsContextPtr tls = options.tlsProvider ? options.tlsProvider() : options.tls;
  if (options.tlsProvider && !tls) co_return;  // no usable certificate: refuse the connection
  if (tls) {
    beast::ssl_stream<beast::tcp_stream> stream(std::move(socket), *tls);
    auto& lowest = beast::get_lowest_layer(stream);
    const uint64_t id = track(closer(lowest, alive), idle);
    lowest.expires_after(options.requestTimeout);
    auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::server, kAwait);
    if (!ec) {
      std::string commonName = peerCommonName(stream.native_handle());
      co_await serve(stream, lowest, std::move(commonName), *idle);
    }
    untrack(id);
    *alive = false;
    lowest.close();
  } else {
    beast::tcp_stream stream(std::move(socket));
    const uint64_t id = track(closer(stream, alive), idle);
    stream.expires_after(options.requestTimeout);  // the first request's deadline
    co_await serve(stream, stream, {}, *idle);
    untrack(id);
    *alive = false;
    stream.close();
  }
}

asio::awaitable<void> HttpServer::Impl::acceptLoop() {
  auto self = shared_from_this();
  while (!stopped) {
    // At the limit, wait for a session to end (woken by it; the timeout covers a wake-up that
    // came before the wait started).
    while (options.maxConnections && sessions.load() >= options.maxConnections && !stopped) {
      closeIdle();
      slotFreed.expires_after(std::chrono::milliseconds(50));
      auto [waited] = co_await slotFreed.async_wait(kAwait);
      (void)waited;  // cancelled (a slot freed) or timed out: check again either way
    }
    if (stopped) co_return;
    auto strand = asio::make_strand(io);
    auto [ec, socket] = co_await acceptor.async_accept(strand, kAwait);
    if (ec) {
      if (stopped || ec == asio::error::operation_aborted) co_return;
      // EMFILE, ENFILE, ENOBUFS: keep serving the connections we have, and try again a little
      // later rather than at once (the pending connection stays in the backlog, so an immediate
      // retry fails again: a spinning thread; docs/security.md, M3).
      acceptFailures.fetch_add(1);
      slotFreed.expires_after(std::chrono::milliseconds(100));
      auto [waited] = co_await slotFreed.async_wait(kAwait);
      (void)waited;
      continue;
    }
    auto executor = socket.get_executor();
    sessions.fetch_add(1);
    asio::co_spawn(executor, session(std::move(socket)), asio::detached);
  }
}

HttpServer::HttpServer(asio::io_context& io, HttpServerOptions options, HttpHandler handler)
    : impl_(std::make_shared<Impl>(io, std::move(options), std::move(handler))) {}

HttpServer::~HttpServer() { stop(); }

api::Result<uint16_t> HttpServer::start() {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(impl_->options.address, ec);
  if (ec)
    return api::badRequest("invalid listen address \"" + impl_->options.address +
                           "\": " + ec.message());
  tcp::endpoint endpoint(address, impl_->options.port);
  auto& acceptor = impl_->acceptor;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return api::Error{api::reason::kInternalError,
                      0,
                      "listening on " + impl_->options.address + ":" +
                          std::to_string(impl_->options.port) + ": " + ec.message(),
                      {}};
  impl_->boundPort = acceptor.local_endpoint().port();
  asio::co_spawn(impl_->acceptorStrand, impl_->acceptLoop(), asio::detached);
  return impl_->boundPort.load();
}

uint16_t HttpServer::port() const { return impl_->boundPort; }

std::string HttpServer::url() const {
  std::string host = impl_->options.address;
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  const bool tls = impl_->options.tls || impl_->options.tlsProvider;
  return std::string(tls ? "https://" : "http://") + host + ":" + std::to_string(port());
}

void HttpServer::stop() {
  if (impl_->stopped.exchange(true)) return;
  auto impl = impl_;
  // The acceptor belongs to its strand. Wait (bounded, in case the io_context is not running) for
  // it to close, so that nothing can connect once stop() returns.
  auto closed = std::make_shared<std::promise<void>>();
  auto done = closed->get_future();
  asio::post(impl->acceptorStrand, [impl, closed] {
    boost::system::error_code ignored;
    impl->acceptor.close(ignored);
    impl->slotFreed.cancel();
    closed->set_value();
  });
  if (!impl->io.get_executor().running_in_this_thread()) done.wait_for(std::chrono::seconds(2));
  std::lock_guard lock(impl->mutex);
  for (auto& [id, close] : impl->closers) close();
}

uint64_t HttpServer::acceptFailures() const { return impl_->acceptFailures.load(); }

size_t HttpServer::bufferedBodyBytes() const { return impl_->bufferedBodies.load(); }

size_t HttpServer::openConnections() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->closers.size();
}

}  // namespace flotilla::net
