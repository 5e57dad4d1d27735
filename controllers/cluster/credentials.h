// Which Secret may serve as a FederatedCluster's credentials (docs/security.md, H1). The
// FederatedCluster names its Secret, but a name is not authority: anyone who may write a
// FederatedCluster could name another member's Secret and an endpoint of their own. The Secret
// therefore names its cluster too (annotation flotilla.io/cluster), and is used only when both
// agree. Writing that annotation takes write access to the Secret, which already means holding the
// credentials.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>

namespace flotilla::controllers::cluster {

// nullopt when `secret` may serve FederatedCluster `cluster`; otherwise why not, for the
// cluster's Ready condition.
std::optional<std::string> credentialsBindingError(const boost::json::object& secret,
                                                   const std::string& cluster);

}  // namespace flotilla::controllers::cluster
