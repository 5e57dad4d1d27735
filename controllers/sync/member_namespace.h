// The member namespace a namespaced object goes into (docs/security.md, H3): made by Flotilla,
// labelled as Flotilla's and carrying the host namespace's Pod Security labels (kept when the
// object goes: others may live there); one that exists and Flotilla did not make is used only when
// its owner on the member has labelled it as Flotilla's. Shared by the sync of every kind.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <string>

#include "controllers/common/member_registry.h"
#include "kube/client/rest_client.h"

namespace flotilla::controllers::sync {

struct NamespaceCheck {
  bool ready = false;       // the object may be written into the namespace
  std::string propagation;  // when not ready: the cluster's propagation state ("" = undecided)
  std::string message;
  bool retrySoon = false;     // retry after the not-ready delay
  bool retryBackoff = false;  // retry with the queue's backoff
};

// `create`: make the namespace when it is missing (the object is about to be created); otherwise
// a missing namespace is reported. `what` names the object for messages ("Deployment demo/web").
NamespaceCheck ensureMemberNamespace(kube::RestClient& host,
                                     boost::asio::any_io_executor hostExecutor,
                                     MemberConnection& member, const std::string& ns,
                                     const std::string& cluster, bool create,
                                     const std::string& what);

// No HTTP answer at all (refused, reset, timeout): the member is not reachable right now.
bool unreachable(const api::Error& e);

}  // namespace flotilla::controllers::sync
