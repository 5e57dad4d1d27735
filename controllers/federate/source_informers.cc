#include "controllers/federate/source_informers.h"

#include "controllers/common/await.h"

namespace flotilla::controllers::federate {

SourceInformers::SourceInformers(kube::RestClient& host, boost::asio::any_io_executor executor,
                                 std::function<void(const std::string& key)> onEvent,
                                 kube::InformerOptions options)
    : host_(host),
      executor_(std::move(executor)),
      onEvent_(std::move(onEvent)),
      options_(std::move(options)) {
  // A Service's managedFields tell a nodePort its author wrote from one the server allocated
  // (interpreter: Service prune): source caches keep them.
  options_.dropManagedFields = false;
}

SourceInformers::~SourceInformers() { stopAll(); }

namespace {

std::string describe(const KindKey& kind, const std::string& ns) {
  return kind.kind + " " + kind.apiVersion + (ns.empty() ? "" : " in namespace " + ns);
}

}  // namespace

void SourceInformers::addIndex(const KindKey& kind, const std::string& name, kube::IndexFunc func) {
  std::lock_guard lock(mutex_);
  indexes_.emplace(kind, std::make_pair(name, std::move(func)));
}

SourceInformers::SyncResult SourceInformers::sync(const std::map<KindKey, SourceScope>& wanted) {
  SyncResult out;
  // The informers wanted: discovery tells a namespaced kind from a cluster-scoped one.
  std::map<SourceId, kube::ResourceId> desired;
  for (const auto& [kind, scope] : wanted) {
    auto resource = await(executor_, host_.resourceFor(kind.apiVersion, kind.kind));
    if (!resource) {
      out.unserved.push_back(kind.kind + " " + kind.apiVersion + ": " + resource.error().message);
      std::lock_guard lock(mutex_);
      for (const auto& [id, informer] : informers_)
        if (id.first == kind) desired.emplace(id, kube::ResourceId{});  // kept as it is
      continue;
    }
    if (!resource->namespaced) {
      // Only a ClusterPropagationPolicy selects a cluster-scoped object: a tenant's policy naming
      // ClusterRoles starts no host-wide cache.
      if (scope.allNamespaces) desired.emplace(SourceId{kind, ""}, *resource);
    } else if (scope.allNamespaces || scope.namespaces.size() > kMaxNamespaceInformers) {
      desired.emplace(SourceId{kind, ""}, *resource);
    } else {
      for (const auto& ns : scope.namespaces) desired.emplace(SourceId{kind, ns}, *resource);
    }
  }
  for (const auto& [id, resource] : desired) {
    const auto& [kind, ns] = id;
    // (A kept informer whose discovery failed, gone since — stopAll() at shutdown — is not
    // started again without its resource.)
    if (resource.resource.empty()) continue;
    {
      std::lock_guard lock(mutex_);
      if (informers_.count(id)) continue;
    }
    auto options = options_;
    options.ns = ns;
    auto informer = std::make_shared<kube::SharedInformer>(host_, resource, options);
    {
      std::lock_guard lock(mutex_);
      for (auto [it, end] = indexes_.equal_range(kind); it != end; ++it)
        informer->addIndex(it->second.first, it->second.second);
    }
    // List items come without apiVersion and kind: keys are made from the informer's kind.
    auto keyOf = [kind](const kube::ObjectPtr& o) {
      ObjectKey key = ObjectKey::of(*o);
      key.apiVersion = kind.apiVersion;
      key.kind = kind.kind;
      return key.str();
    };
    kube::EventHandler handler;
    handler.onAdd = [this, keyOf](const kube::ObjectPtr& o) { onEvent_(keyOf(o)); };
    handler.onUpdate = [this, keyOf](const kube::ObjectPtr&, const kube::ObjectPtr& o) {
      onEvent_(keyOf(o));
    };
    handler.onDelete = [this, keyOf](const kube::ObjectPtr& o, bool) { onEvent_(keyOf(o)); };
    informer->addHandler(std::move(handler));
    {
      // In the map before it starts: a reconcile of one of its first events finds it.
      std::lock_guard lock(mutex_);
      informers_[id] = informer;
    }
    informer->start(executor_);
    out.started.push_back(describe(kind, ns));
  }
  // The informers no longer wanted stop only now: one replaced by a host-wide informer keeps
  // answering until its successor is in the map (unsynced, it says "not known yet" rather than
  // "nothing there": docs/decisions.md, issue #30).
  std::vector<std::shared_ptr<kube::SharedInformer>> stopping;
  {
    std::lock_guard lock(mutex_);
    for (auto it = informers_.begin(); it != informers_.end();) {
      if (desired.count(it->first)) {
        ++it;
        continue;
      }
      out.stopped.push_back(describe(it->first.first, it->first.second));
      stopping.push_back(std::move(it->second));
      it = informers_.erase(it);
    }
  }
  for (auto& informer : stopping) {
    informer->stop();
    informer->join();
  }
  configured_ = true;
  return out;
}

std::shared_ptr<const kube::SharedInformer> SourceInformers::get(const KindKey& kind,
                                                                 const std::string& ns) const {
  std::lock_guard lock(mutex_);
  if (auto all = informers_.find({kind, ""}); all != informers_.end()) return all->second;
  if (ns.empty()) return nullptr;
  auto it = informers_.find({kind, ns});
  return it == informers_.end() ? nullptr : it->second;
}

std::set<std::string> SourceInformers::watchedIn(const KindKey& kind) const {
  std::lock_guard lock(mutex_);
  std::set<std::string> out;
  for (const auto& [id, informer] : informers_)
    if (id.first == kind) out.insert(id.second);
  return out;
}

std::vector<std::pair<KindKey, std::shared_ptr<const kube::SharedInformer>>> SourceInformers::all()
    const {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<KindKey, std::shared_ptr<const kube::SharedInformer>>> out;
  for (const auto& [id, informer] : informers_) out.emplace_back(id.first, informer);
  return out;
}

bool SourceInformers::synced() const {
  std::lock_guard lock(mutex_);
  for (const auto& [kind, informer] : informers_)
    if (!informer->hasSynced()) return false;
  return true;
}

void SourceInformers::stopAll() {
  std::map<SourceId, std::shared_ptr<kube::SharedInformer>> informers;
  {
    std::lock_guard lock(mutex_);
    informers.swap(informers_);
  }
  for (auto& [kind, informer] : informers) informer->stop();
  for (auto& [kind, informer] : informers) informer->join();
}

}  // namespace flotilla::controllers::federate
