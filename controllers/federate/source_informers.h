// The host informers of the kinds policies name (docs/design.md §11): started when a policy names
// a kind, stopped when none does any more. A kind the host does not serve yet (a CRD not created)
// is looked up again until it is. A namespaced kind that only PropagationPolicies name is watched
// in their namespaces only, one informer per namespace (source_kinds.h); one a
// ClusterPropagationPolicy names, and every cluster-scoped kind, in one informer for the whole
// host.
#pragma once

#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "controllers/common/object_key.h"
#include "controllers/federate/source_kinds.h"
#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"

namespace flotilla::controllers::federate {

// A kind named by PropagationPolicies in more namespaces than this is watched host-wide: each
// informer is its own list and watch, and past a few dozen the relists cost more than the
// objects of other namespaces the one cache would hold.
inline constexpr size_t kMaxNamespaceInformers = 16;

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
  // worker thread, never from the I/O thread. A kind whose discovery fails keeps the informers it
  // has.
  SyncResult sync(const std::map<KindKey, SourceScope>& wanted);
  // Every informer of `kind` started from now on keeps index `name` (before the first sync: one
  // already running does not get it).
  void addIndex(const KindKey& kind, const std::string& name, kube::IndexFunc func);
  // The informer that holds the objects of a kind in namespace `ns` ("" for a cluster-scoped
  // object), if one runs.
  std::shared_ptr<const kube::SharedInformer> get(const KindKey& kind, const std::string& ns) const;
  // Whether any informer of the kind runs, and in which namespaces ("" = all).
  std::set<std::string> watchedIn(const KindKey& kind) const;
  // Every running informer, with its kind (a kind watched per namespace has several).
  std::vector<std::pair<KindKey, std::shared_ptr<const kube::SharedInformer>>> all() const;
  bool synced() const;
  // Whether sync() has run once: before, no kind is watched because none was asked for yet.
  bool configured() const { return configured_; }
  void stopAll();

 private:
  kube::RestClient& host_;
  boost::asio::any_io_executor executor_;
  std::function<void(const std::string&)> onEvent_;
  kube::InformerOptions options_;
  mutable std::mutex mutex_;
  std::multimap<KindKey, std::pair<std::string, kube::IndexFunc>> indexes_;
  // (kind, namespace): "" is every namespace, or a cluster-scoped kind.
  using SourceId = std::pair<KindKey, std::string>;
  std::map<SourceId, std::shared_ptr<kube::SharedInformer>> informers_;
  std::atomic<bool> configured_{false};
};

}  // namespace flotilla::controllers::federate
