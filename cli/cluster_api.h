// The calls `flotillactl join` and `unjoin` make to one cluster, as a seam: SyncClient talks to a
// real API server; join_test.cc has an in-memory fake. Every call blocks and returns the object
// the API server answered with, or its Status as an error (kube::StatusError codes: 404, 403...).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>

#include "api/result.h"
#include "kube/client/resource.h"

namespace flotilla::cli {

class ClusterApi {
 public:
  virtual ~ClusterApi() = default;
  // The API server's URL, for messages and the FederatedCluster's apiEndpoint.
  virtual std::string server() const = 0;
  virtual api::Result<boost::json::value> getPath(const std::string& path) = 0;
  virtual api::Result<boost::json::object> get(const kube::ResourceId& resource,
                                               const std::string& ns, const std::string& name) = 0;
  // Server-side apply as field manager "flotillactl" (creates or updates).
  virtual api::Result<boost::json::object> apply(const kube::ResourceId& resource,
                                                 const boost::json::object& object) = 0;
  virtual api::Result<boost::json::object> create(const kube::ResourceId& resource,
                                                  const std::string& ns,
                                                  const boost::json::object& object) = 0;
  virtual api::Result<boost::json::object> remove(const kube::ResourceId& resource,
                                                  const std::string& ns,
                                                  const std::string& name) = 0;
};

}  // namespace flotilla::cli
