// TLS contexts for clients and servers, built from PEM data (never from files the caller has not
// read: kubeconfig "-data" fields, Secrets and generated certificates all arrive as memory).
#pragma once

#include <memory>
#include <string>

#include "api/result.h"

namespace boost::asio::ssl {
class context;
}

namespace flotilla::net {

struct TlsClientOptions {
  std::string caPem;  // trust only these CAs; empty: the system's default trust store
  bool insecureSkipVerify = false;
  std::string certPem;  // client certificate (optional)
  std::string keyPem;
};

struct TlsServerOptions {
  std::string certPem;  // serving certificate chain
  std::string keyPem;
  // When set, clients may present a certificate signed by one of these CAs; it is verified and its
  // subject is available to the handler. Clients without one are still accepted (token auth).
  std::string clientCaPem;
};

using TlsContextPtr = std::shared_ptr<boost::asio::ssl::context>;

// TLS 1.2 or newer. Errors name what was wrong ("client certificate: no PEM data found").
api::Result<TlsContextPtr> makeClientTlsContext(const TlsClientOptions& options);
api::Result<TlsContextPtr> makeServerTlsContext(const TlsServerOptions& options);

}  // namespace flotilla::net
