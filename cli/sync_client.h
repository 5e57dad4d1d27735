// ClusterApi over the operator's REST client: each call runs the coroutine to completion on a
// private io_context (a command-line tool has nothing else to do meanwhile). Asio stays in
// sync_client.cc.
#pragma once

#include <memory>

#include "cli/cluster_api.h"
#include "kube/config/rest_config.h"

namespace flotilla::cli {

class SyncClient : public ClusterApi {
 public:
  static api::Result<std::unique_ptr<SyncClient>> create(kube::RestConfig config);
  ~SyncClient() override;

  std::string server() const override;
  api::Result<boost::json::value> getPath(const std::string& path) override;
  api::Result<boost::json::object> get(const kube::ResourceId& resource, const std::string& ns,
                                       const std::string& name) override;
  api::Result<boost::json::object> apply(const kube::ResourceId& resource,
                                         const boost::json::object& object) override;
  api::Result<boost::json::object> create(const kube::ResourceId& resource, const std::string& ns,
                                          const boost::json::object& object) override;
  api::Result<boost::json::object> remove(const kube::ResourceId& resource, const std::string& ns,
                                          const std::string& name) override;

  struct Impl;

 private:
  explicit SyncClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace flotilla::cli
