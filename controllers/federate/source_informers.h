// The host informers of the kinds policies name (docs/design.md §11): started when a policy names
// a kind, stopped when none does any more. A kind the host does not serve yet (a CRD not created)
// is looked up again until it is.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "controllers/common/object_key.h"
#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"

namespace flotilla::controllers::federate {

class SourceInformers {
 public:
  // `onEvent` is called (on the informers' I/O thread) with the ObjectKey text of every source
  // object added, changed or deleted.
  SourceInformers(kube::RestClient& host, boost::asio::any_io_executor executor,
                  std::function<void(const std::string& key)> onEvent,
                  kube::InformerOptions options = {});
  ~SourceInformers();

  struct SyncResult {
    std::vector<std::string> started, stopped;
    std::vector<std::string> unserved;  // "v1beta1 Widget: the server does not serve ..."
  };
  // Makes the running informers those of `wanted`. Blocking (discovery requests): call it from a
  // worker thread, never from the I/O thread.
  SyncResult sync(const std::set<KindKey>& wanted);
  // The informer of a kind, if one runs.
  std::shared_ptr<const kube::SharedInformer> get(const KindKey& kind) const;
  // Every running informer, with its kind.
  std::vector<std::pair<KindKey, std::shared_ptr<const kube::SharedInformer>>> all() const;
  bool synced() const;
  void stopAll();

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  std::function<void(const std::string&)> onEvent_;
  kube::InformerOptions options_;
  mutable std::mutex mutex_;
  std::map<KindKey, std::shared_ptr<kube::SharedInformer>> informers_;
};

}  // namespace flotilla::controllers::federate
