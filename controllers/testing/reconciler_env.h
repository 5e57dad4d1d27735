// Reconciler tests (docs/development.md, "Testing a reconciler"): a reconciler's read → decide →
// write loop run against a real API server, flotilla-sim by default, with the flotilla.io CRDs
// installed. Each test gets a fresh namespace, informers it starts on demand, and clients whose
// writes the server answers with an injected fault (flotilla-sim's --faults rules, keyed by the
// client's User-Agent):
//   - conflictClient(): every write is answered 409 Conflict and not done;
//   - droppingClient(): every write is done and committed, then its connection is closed before
//     the answer (a write lost mid-way, as when the operator dies right after it).
// A test runs reconcile() on its own thread, as a controller worker does, and asserts what the
// server holds afterwards.
#pragma once

#include <gtest/gtest.h>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <memory>
#include <string>

#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/events/event_recorder.h"
#include "kube/net/test_server.h"
#include "kube/testing/sim_process.h"

namespace flotilla::controllers::testing {

// One flotilla-sim host per test process (and a member cluster, started on first use), with the
// CRDs of crds/ applied and established.
class ReconcilerEnv {
 public:
  static ReconcilerEnv& get();
  const kube::RestConfig& host() const { return host_->config(); }
  const kube::RestConfig& member();

 private:
  ReconcilerEnv();
  std::unique_ptr<kube::testing::SimProcess> host_;
  std::unique_ptr<kube::testing::SimProcess> member_;
};

// Events a reconciler recorded, for assertions (reason → count, and the last message of each).
class RecordingEvents final : public kube::EventRecorder {
 public:
  void event(const boost::json::object& involved, const std::string& type,
             const std::string& reason, const std::string& message) override;
  int count(const std::string& reason) const;
  std::string message(const std::string& reason) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::pair<int, std::string>> byReason_;
};

class ReconcilerTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A started informer over the whole host (or `client`'s cluster), synced before it returns.
  kube::SharedInformer& informer(const kube::ResourceId& resource);
  kube::SharedInformer& informerOn(kube::RestClient& client, const kube::ResourceId& resource);
  kube::RestClient& conflictClient();
  kube::RestClient& droppingClient();
  // A client of the member cluster (ReconcilerEnv::member()).
  kube::RestClient& memberClient();

  // Parses `json`, sets metadata.namespace to ns (for namespaced resources) and creates it.
  boost::json::object create(const kube::ResourceId& resource, std::string_view json);
  boost::json::object create(kube::RestClient& client, const kube::ResourceId& resource,
                             boost::json::object object);
  // The object as the server holds it; empty when it does not exist.
  boost::json::object get(const kube::ResourceId& resource, const std::string& name);
  boost::json::object get(kube::RestClient& client, const kube::ResourceId& resource,
                          const std::string& ns, const std::string& name);
  // Waits until `informer` holds what the server holds for `name` (or that it is gone): a
  // reconcile that follows reads what a controller would read once its watch caught up.
  void caughtUp(const kube::SharedInformer& informer, const std::string& name);
  void caughtUpOn(kube::RestClient& client, const kube::SharedInformer& informer,
                  const std::string& ns, const std::string& name);
  // Writes the server has answered (POST, PUT, PATCH, DELETE), Events and Leases excluded, as
  // kube-apiserver's apiserver_request_total counts them.
  uint64_t writes(kube::RestClient& client);
  uint64_t hostWrites() { return writes(*client); }

  net::testing::IoThread io;
  std::unique_ptr<kube::RestClient> client;
  std::string ns;
  RecordingEvents events;

 private:
  std::unique_ptr<kube::RestClient> conflict_, dropping_, member_;
  std::vector<std::unique_ptr<kube::SharedInformer>> informers_;
};

boost::json::object parseObject(std::string_view json);

}  // namespace flotilla::controllers::testing
