// The lock behind leader election: a coordination.k8s.io/v1 Lease, read and written with
// optimistic concurrency (a stale resourceVersion is a 409, never a blind overwrite).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <optional>
#include <string>

#include "api/result.h"

namespace flotilla::kube {

class RestClient;

struct LeaderElectionRecord {
  std::string holderIdentity;
  int leaseDurationSeconds = 0;
  std::string acquireTime;  // metav1.MicroTime, informational: validity uses local observation
  std::string renewTime;
  int leaseTransitions = 0;
  bool operator==(const LeaderElectionRecord&) const = default;
};

struct ObservedLease {
  LeaderElectionRecord record;
  std::string resourceVersion;
};

class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  // nullopt when the Lease does not exist.
  virtual api::Result<std::optional<ObservedLease>> get() = 0;
  virtual api::Result<ObservedLease> create(const LeaderElectionRecord& record) = 0;
  // Conditional on `resourceVersion` (Conflict when someone else wrote first).
  virtual api::Result<ObservedLease> update(const LeaderElectionRecord& record,
                                            const std::string& resourceVersion) = 0;
  virtual std::string describe() const = 0;  // "flotilla-system/flotilla-controller-manager"
};

// A Lease through the REST client. Blocking: call from any thread except the client's I/O thread.
class RestLeaseLock final : public LeaseLock {
 public:
  RestLeaseLock(RestClient& client, boost::asio::any_io_executor executor, std::string ns,
                std::string name);
  api::Result<std::optional<ObservedLease>> get() override;
  api::Result<ObservedLease> create(const LeaderElectionRecord& record) override;
  api::Result<ObservedLease> update(const LeaderElectionRecord& record,
                                    const std::string& resourceVersion) override;
  std::string describe() const override { return ns_ + "/" + name_; }

 private:
  RestClient& client_;
  boost::asio::any_io_executor executor_;
  std::string ns_, name_;
};

}  // namespace flotilla::kube
