#include "controllers/sync/member_namespace.h"

#include "controllers/common/await.h"
#include "controllers/common/managed.h"
#include "controllers/common/typed.h"
#include "controllers/sync/member_object.h"
#include "controllers/sync/sync_status.h"

namespace flotilla::controllers::sync {

bool unreachable(const api::Error& e) {
  return e.code == 0 || e.code == 503 || e.code == 504 || e.reason == api::reason::kTimeout;
}

NamespaceCheck ensureMemberNamespace(kube::RestClient& host,
                                     boost::asio::any_io_executor hostExecutor,
                                     MemberConnection& member, const std::string& ns,
                                     const std::string& cluster, bool create,
                                     const std::string& what) {
  NamespaceCheck out;
  const char* failed = create ? propagation::kCreationFailed : propagation::kUpdateFailed;
  auto& client = member.client();
  auto nsObject = await(member.executor(), client.get(resources::kNamespaces, "", ns));
  if (!nsObject && nsObject.error().code == 404 && create) {
    auto hostNs = await(hostExecutor, host.get(resources::kNamespaces, "", ns));
    if (!hostNs) {
      out.retryBackoff = true;
      out.propagation = failed;
      out.message = "reading namespace " + ns + " on the host: " + hostNs.error().message;
      return out;
    }
    auto created = await(member.executor(),
                         client.create(resources::kNamespaces, "", memberNamespace(*hostNs)));
    if (!created && created.error().reason != api::reason::kAlreadyExists) {
      (unreachable(created.error()) ? out.retrySoon : out.retryBackoff) = true;
      out.propagation = failed;
      out.message = "creating namespace " + ns + ": " + created.error().message;
      return out;
    }
    if (!created) {  // someone made it in between: theirs unless they allowed Flotilla
      out.retrySoon = true;
      out.message = "namespace " + ns + " appeared on " + cluster + "; checking it";
      return out;  // undecided
    }
    out.ready = true;
    return out;
  }
  if (!nsObject) {  // say why (a Forbidden), not the apply's "namespace not found"
    (unreachable(nsObject.error()) ? out.retrySoon : out.retryBackoff) = true;
    out.propagation = unreachable(nsObject.error()) ? propagation::kClusterNotReady : failed;
    out.message = "reading namespace " + ns + ": " + nsObject.error().message;
    return out;
  }
  if (!flotillaNamespace(*nsObject)) {
    out.retryBackoff = true;
    out.propagation = failed;
    const std::string label = std::string(kManagedByLabel) + "=" + kManagedByValue;
    out.message = create ? "namespace " + ns + " exists on " + cluster +
                               " and Flotilla did not create it; its owner there may let "
                               "Flotilla use it: kubectl label namespace " +
                               ns + " " + label
                         : "namespace " + ns + " on " + cluster +
                               " was not created by Flotilla and its owner has not allowed it "
                               "(kubectl label namespace " +
                               ns + " " + label + "); leaving " + what + " there untouched";
    return out;
  }
  out.ready = true;
  return out;
}

}  // namespace flotilla::controllers::sync
