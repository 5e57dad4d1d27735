#include "kube/leader/lease_lock.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <climits>

#include "kube/client/rest_client.h"
#include "kube/client/status_error.h"

namespace flotilla::kube {
namespace asio = boost::asio;
namespace json = boost::json;

namespace {

const ResourceId kLeases{"coordination.k8s.io", "v1", "leases", true, "Lease"};

std::string str(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}
int integer(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  // Outside data: clamped into int, so a huge count cannot wrap (nor overflow when incremented).
  if (!v || !v->is_int64()) return 0;
  return static_cast<int>(std::clamp<int64_t>(v->as_int64(), 0, INT32_MAX - 1));
}

ObservedLease fromObject(const json::object& lease) {
  ObservedLease out;
  const auto* spec = lease.if_contains("spec");
  if (spec && spec->is_object()) {
    const auto& s = spec->as_object();
    out.record.holderIdentity = str(s, "holderIdentity");
    out.record.leaseDurationSeconds = integer(s, "leaseDurationSeconds");
    out.record.acquireTime = str(s, "acquireTime");
    out.record.renewTime = str(s, "renewTime");
    out.record.leaseTransitions = integer(s, "leaseTransitions");
  }
  if (const auto* m = lease.if_contains("metadata"); m && m->is_object())
    out.resourceVersion = str(m->as_object(), "resourceVersion");
  return out;
}

json::object toObject(const std::string& ns, const std::string& name, const LeaderElectionRecord& r,
                      const std::string& resourceVersion) {
  json::object metadata{{"name", name}, {"namespace", ns}};
  if (!resourceVersion.empty()) metadata["resourceVersion"] = resourceVersion;
  json::object spec{{"holderIdentity", r.holderIdentity},
                    {"leaseDurationSeconds", r.leaseDurationSeconds},
                    {"leaseTransitions", r.leaseTransitions}};
  if (!r.acquireTime.empty()) spec["acquireTime"] = r.acquireTime;
  if (!r.renewTime.empty()) spec["renewTime"] = r.renewTime;
  return json::object{{"apiVersion", "coordination.k8s.io/v1"},
                      {"kind", "Lease"},
                      {"metadata", std::move(metadata)},
                      {"spec", std::move(spec)}};
}

template <class T>
T runOn(asio::any_io_executor executor, asio::awaitable<T> task) {
  return asio::co_spawn(executor, std::move(task), asio::use_future).get();
}

}  // namespace

RestLeaseLock::RestLeaseLock(RestClient& client, asio::any_io_executor executor, std::string ns,
                             std::string name)
    : client_(client), executor_(std::move(executor)), ns_(std::move(ns)), name_(std::move(name)) {}

api::Result<std::optional<ObservedLease>> RestLeaseLock::get() {
  auto lease = runOn(executor_, client_.get(kLeases, ns_, name_, ""));
  if (!lease) {
    if (isNotFound(lease.error())) return std::optional<ObservedLease>();
    return lease.error();
  }
  return std::optional<ObservedLease>(fromObject(*lease));
}

api::Result<ObservedLease> RestLeaseLock::create(const LeaderElectionRecord& record) {
  auto created =
      runOn(executor_, client_.create(kLeases, ns_, toObject(ns_, name_, record, ""), {}));
  if (!created) return created.error();
  return fromObject(*created);
}

api::Result<ObservedLease> RestLeaseLock::update(const LeaderElectionRecord& record,
                                                 const std::string& resourceVersion) {
  auto updated =
      runOn(executor_, client_.update(kLeases, toObject(ns_, name_, record, resourceVersion), {}));
  if (!updated) return updated.error();
  return fromObject(*updated);
}

}  // namespace flotilla::kube
