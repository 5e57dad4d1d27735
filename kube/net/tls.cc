#include "kube/net/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/context.hpp>

namespace flotilla::net {
namespace ssl = boost::asio::ssl;

namespace {

api::Error tlsError(const std::string& what, const boost::system::error_code& ec) {
  return api::Error{api::reason::kBadRequest, 0, what + ": " + ec.message(), {}};
}

api::Result<TlsContextPtr> baseContext(ssl::context::method method) {
  auto ctx = std::make_shared<ssl::context>(method);
  // TLS 1.2+ only; no compression (CRIME).
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::no_compression);
  return ctx;
}

}  // namespace

api::Result<TlsContextPtr> makeClientTlsContext(const TlsClientOptions& options) {
  auto base = baseContext(ssl::context::tls_client);
  if (!base) return base.error();
  TlsContextPtr ctx = *base;
  boost::system::error_code ec;
  if (options.insecureSkipVerify) {
    ctx->set_verify_mode(ssl::verify_none);
  } else {
    ctx->set_verify_mode(ssl::verify_peer);
    if (options.caPem.empty()) {
      ctx->set_default_verify_paths(ec);
      if (ec) return tlsError("system trust store", ec);
    } else {
      ctx->add_certificate_authority(boost::asio::buffer(options.caPem), ec);
      if (ec) return tlsError("certificate authority", ec);
    }
  }
  if (!options.certPem.empty() || !options.keyPem.empty()) {
    if (options.certPem.empty() || options.keyPem.empty())
      return api::Error{
          api::reason::kBadRequest, 0, "a client certificate needs both certificate and key", {}};
    ctx->use_certificate_chain(boost::asio::buffer(options.certPem), ec);
    if (ec) return tlsError("client certificate", ec);
    ctx->use_private_key(boost::asio::buffer(options.keyPem), ssl::context::pem, ec);
    if (ec) return tlsError("client key", ec);
  }
  return ctx;
}

api::Result<TlsContextPtr> makeServerTlsContext(const TlsServerOptions& options) {
  auto base = baseContext(ssl::context::tls_server);
  if (!base) return base.error();
  TlsContextPtr ctx = *base;
  boost::system::error_code ec;
  ctx->use_certificate_chain(boost::asio::buffer(options.certPem), ec);
  if (ec) return tlsError("serving certificate", ec);
  ctx->use_private_key(boost::asio::buffer(options.keyPem), ssl::context::pem, ec);
  if (ec) return tlsError("serving key", ec);
  if (!options.clientCaPem.empty()) {
    ctx->add_certificate_authority(boost::asio::buffer(options.clientCaPem), ec);
    if (ec) return tlsError("client certificate authority", ec);
    ctx->set_verify_mode(ssl::verify_peer);  // verify when presented; absence is allowed
  }
  return ctx;
}

}  // namespace flotilla::net
