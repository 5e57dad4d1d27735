#include "cli/sync_client.h"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include "kube/client/rest_client.h"

namespace flotilla::cli {
namespace asio = boost::asio;
namespace json = boost::json;

struct SyncClient::Impl {
  asio::io_context io;
  std::unique_ptr<kube::RestClient> client;

  // Runs one call of the client to completion. The call's arguments are the caller's named
  // objects, alive until run() returns (docs/development.md, coroutines and GCC 12).
  template <class T>
  T run(asio::awaitable<T> task) {
    auto result = asio::co_spawn(io, std::move(task), asio::use_future);
    io.restart();
    io.run();
    return result.get();
  }
};

SyncClient::SyncClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SyncClient::~SyncClient() = default;

api::Result<std::unique_ptr<SyncClient>> SyncClient::create(kube::RestConfig config) {
  auto impl = std::make_unique<Impl>();
  config.userAgent = "flotillactl/0.1";
  kube::RestClientOptions options;
  options.maxRetries = 2;  // a person is waiting: fail in seconds, not minutes
  auto client = kube::RestClient::create(impl->io.get_executor(), std::move(config), options);
  if (!client) return client.error();
  impl->client = std::move(*client);
  return std::unique_ptr<SyncClient>(new SyncClient(std::move(impl)));
}

std::string SyncClient::server() const { return impl_->client->config().server; }

api::Result<json::value> SyncClient::getPath(const std::string& path) {
  return impl_->run(impl_->client->getPath(path));
}

api::Result<json::object> SyncClient::get(const kube::ResourceId& resource, const std::string& ns,
                                          const std::string& name) {
  const std::string none;
  return impl_->run(impl_->client->get(resource, ns, name, none));
}

api::Result<json::object> SyncClient::apply(const kube::ResourceId& resource,
                                            const json::object& object) {
  kube::WriteOptions options;
  options.fieldManager = "flotillactl";
  options.force = true;  // the objects join owns are join's, whoever edited them since
  return impl_->run(impl_->client->apply(resource, object, options));
}

api::Result<json::object> SyncClient::create(const kube::ResourceId& resource,
                                             const std::string& ns, const json::object& object) {
  const kube::WriteOptions options;
  return impl_->run(impl_->client->create(resource, ns, object, options));
}

api::Result<json::object> SyncClient::remove(const kube::ResourceId& resource,
                                             const std::string& ns, const std::string& name) {
  const kube::DeleteOptions options;
  return impl_->run(impl_->client->remove(resource, ns, name, options));
}

}  // namespace flotilla::cli
