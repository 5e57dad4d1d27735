#include "controllers/common/member_registry.h"

#include "controllers/common/cache_transforms.h"
#include "controllers/common/managed.h"
#include "controllers/common/typed.h"

namespace flotilla::controllers {

namespace {

kube::InformerOptions managedOnly(kube::InformerOptions options) {
  options.labelSelector = managedSelector();
  return options;
}

kube::InformerOptions transformed(kube::InformerOptions options,
                                  void (*transform)(boost::json::object&)) {
  options.transform = transform;
  return options;
}

std::vector<std::string> bindingHashOf(const boost::json::object& o) {
  const auto* meta = o.if_contains("metadata");
  const auto* labels =
      meta && meta->is_object() ? meta->as_object().if_contains("labels") : nullptr;
  const auto* hash =
      labels && labels->is_object() ? labels->as_object().if_contains(kBindingLabel) : nullptr;
  if (!hash || !hash->is_string()) return {};
  return {std::string(hash->as_string())};
}

int64_t generationOf(const boost::json::object& o) {
  const auto* meta = o.if_contains("metadata");
  const auto* g = meta && meta->is_object() ? meta->as_object().if_contains("generation") : nullptr;
  return g && g->is_int64() ? g->as_int64() : 0;
}

}  // namespace

class AsioMemberConnection final : public MemberConnection {
 public:
  AsioMemberConnection(std::string name, std::string fingerprint,
                       boost::asio::any_io_executor executor,
                       std::unique_ptr<kube::RestClient> client,
                       const kube::InformerOptions& informerOptions, const MemberEvents& events,
                       const std::string& hostId)
      : name_(std::move(name)),
        fingerprint_(std::move(fingerprint)),
        executor_(std::move(executor)),
        client_(std::move(client)),
        informerOptions_(informerOptions),
        events_(events),
        hostId_(hostId),
        nodes_(*client_, resources::kNodes, informerOptions),
        pods_(*client_, resources::kPods, transformed(informerOptions, trimPod)),
        deployments_(*client_, resources::kDeployments, managedOnly(informerOptions)),
        replicaSets_(*client_, resources::kReplicaSets,
                     transformed(managedOnly(informerOptions), trimReplicaSet)) {
    // Every change of a node or pod can change what the member has available; the cluster
    // controller's queue de-duplicates bursts.
    kube::EventHandler handler;
    auto changed = [cluster = name_, f = events.nodesOrPodsChanged] {
      if (f) f(cluster);
    };
    handler.onAdd = [changed](const kube::ObjectPtr&) { changed(); };
    handler.onUpdate = [changed](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
      if (a != b) changed();
    };
    handler.onDelete = [changed](const kube::ObjectPtr&, bool) { changed(); };
    nodes_.addHandler(handler);
    pods_.addHandler(handler);
    pods_.addIndex(kBindingHashIndex, bindingHashOf);
    replicaSets_.addIndex(kBindingHashIndex, bindingHashOf);
    // Pods of Flotilla's workloads, for auto-migration (PodScheduled changes).
    kube::EventHandler ph;
    auto podChanged = [cluster = name_, f = events.workloadPodChanged](const kube::ObjectPtr& o) {
      if (!f) return;
      for (const auto& hash : bindingHashOf(*o)) f(cluster, hash);
    };
    ph.onAdd = podChanged;
    ph.onUpdate = [podChanged](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
      if (a != b) podChanged(b);
    };
    ph.onDelete = [podChanged](const kube::ObjectPtr& o, bool) { podChanged(o); };
    pods_.addHandler(ph);

    deployments_.addIndex(kBindingIndex, [hostId](const boost::json::object& o) {
      std::vector<std::string> keys;
      if (auto key = managingBinding(o, hostId); !key.empty()) keys.push_back(std::move(key));
      return keys;
    });
    kube::EventHandler dh;
    auto notify = [cluster = name_, f = events.deploymentChanged, hostId](const kube::ObjectPtr& o,
                                                                          bool specChanged) {
      if (!f) return;
      if (auto key = managingBinding(*o, hostId); !key.empty()) f(cluster, key, specChanged);
    };
    dh.onAdd = [notify](const kube::ObjectPtr& o) { notify(o, true); };
    dh.onUpdate = [notify](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
      notify(b, generationOf(*a) != generationOf(*b));
    };
    dh.onDelete = [notify](const kube::ObjectPtr& o, bool) { notify(o, true); };
    deployments_.addHandler(dh);

    nodes_.start(executor_);
    pods_.start(executor_);
    deployments_.start(executor_);
    replicaSets_.start(executor_);
  }
  ~AsioMemberConnection() override {
    signalStop();
    nodes_.join();
    pods_.join();
    deployments_.join();
    replicaSets_.join();
    for (auto& [_, informer] : objects_) informer->join();
  }

  // Ends the watches without waiting; joining happens in the destructor. Stopping every member
  // first and joining afterwards keeps a shutdown from waiting out each member's backoff in turn.
  void signalStop() {
    nodes_.stop();
    pods_.stop();
    deployments_.stop();
    replicaSets_.stop();
    std::lock_guard lock(objectsMutex_);
    stopping_ = true;
    for (auto& [_, informer] : objects_) informer->stop();
  }

  std::shared_ptr<const kube::SharedInformer> watchedObjects(
      const kube::ResourceId& resource) const override {
    std::lock_guard lock(objectsMutex_);
    auto it = objects_.find(resource.apiVersion() + "/" + resource.resource);
    return it == objects_.end() ? nullptr : it->second;
  }

  std::shared_ptr<const kube::SharedInformer> objects(const kube::ResourceId& resource) override {
    const std::string id = resource.apiVersion() + "/" + resource.resource;
    std::lock_guard lock(objectsMutex_);
    if (auto it = objects_.find(id); it != objects_.end()) return it->second;
    if (stopping_) return nullptr;
    kube::InformerOptions options = managedOnly(informerOptions_);
    options.transform = [apiVersion = resource.apiVersion(),
                         kind = resource.kind](boost::json::object& o) {
      o["apiVersion"] = apiVersion;  // list items come without them; managingBinding needs both
      o["kind"] = kind;
    };
    auto informer = std::make_shared<kube::SharedInformer>(*client_, resource, options);
    informer->addIndex(kBindingIndex, [hostId = hostId_](const boost::json::object& o) {
      std::vector<std::string> keys;
      if (auto key = managingBinding(o, hostId); !key.empty()) keys.push_back(std::move(key));
      return keys;
    });
    kube::EventHandler handler;
    auto notify = [cluster = name_, f = events_.objectChanged,
                   hostId = hostId_](const kube::ObjectPtr& o) {
      if (!f) return;
      if (auto key = managingBinding(*o, hostId); !key.empty()) f(cluster, key);
    };
    handler.onAdd = notify;
    handler.onUpdate = [notify](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
      if (a != b) notify(b);
    };
    handler.onDelete = [notify](const kube::ObjectPtr& o, bool) { notify(o); };
    informer->addHandler(handler);
    informer->start(executor_);
    objects_[id] = informer;
    return informer;
  }

  const std::string& name() const override { return name_; }
  const std::string& fingerprint() const override { return fingerprint_; }
  kube::RestClient& client() override { return *client_; }
  const kube::SharedInformer& nodes() const override { return nodes_; }
  const kube::SharedInformer& pods() const override { return pods_; }
  const kube::SharedInformer& deployments() const override { return deployments_; }
  const kube::SharedInformer& replicaSets() const override { return replicaSets_; }
  bool synced() const override {
    return nodes_.hasSynced() && pods_.hasSynced() && deployments_.hasSynced() &&
           replicaSets_.hasSynced();
  }
  boost::asio::any_io_executor executor() override { return executor_; }

 private:
  std::string name_;
  std::string fingerprint_;
  boost::asio::any_io_executor executor_;
  std::unique_ptr<kube::RestClient> client_;
  kube::InformerOptions informerOptions_;
  MemberEvents events_;
  std::string hostId_;
  kube::SharedInformer nodes_;
  kube::SharedInformer pods_;
  kube::SharedInformer deployments_;
  kube::SharedInformer replicaSets_;
  mutable std::mutex objectsMutex_;
  bool stopping_ = false;
  std::map<std::string, std::shared_ptr<kube::SharedInformer>> objects_;  // by apiVersion/plural
};

AsioMemberRegistry::AsioMemberRegistry(boost::asio::any_io_executor executor,
                                       MemberRegistryOptions options)
    : executor_(std::move(executor)), options_(std::move(options)) {}

AsioMemberRegistry::~AsioMemberRegistry() { stopAll(); }

void AsioMemberRegistry::stopAll() {
  std::map<std::string, std::shared_ptr<AsioMemberConnection>> members;
  {
    std::lock_guard lock(mutex_);
    members.swap(members_);
  }
  for (auto& [_, m] : members) m->signalStop();
  members.clear();  // joins the informers (outside the lock: joining waits for the I/O thread)
}

api::Result<std::shared_ptr<MemberConnection>> AsioMemberRegistry::ensure(
    const std::string& name, const kube::RestConfig& config, const std::string& fingerprint) {
  std::shared_ptr<AsioMemberConnection> old;
  {
    std::lock_guard lock(mutex_);
    auto it = members_.find(name);
    if (it != members_.end()) {
      if (it->second->fingerprint() == fingerprint)
        return std::shared_ptr<MemberConnection>(it->second);
      old = std::move(it->second);
      members_.erase(it);
    }
  }
  old.reset();  // stops the stale connection's informers before the new one starts
  kube::RestConfig memberConfig = config;
  memberConfig.timeout = options_.requestTimeout;
  memberConfig.userAgent = options_.userAgent;
  kube::RestClientOptions clientOptions;
  // One retry at most: a member that does not answer is reported, not waited for; the cluster
  // controller probes again on its own schedule.
  clientOptions.maxRetries = 1;
  clientOptions.maxBackoff = std::chrono::milliseconds(500);
  // Nor does a member's Retry-After hold a request for long (the default cap is 60 s): removing
  // the member joins its informers, which waits for their requests in flight.
  clientOptions.maxRetryAfter = std::chrono::seconds(1);
  clientOptions.maxResponseBody = options_.maxResponseBody;
  clientOptions.maxWatchEvent = options_.maxWatchEvent;
  kube::InformerOptions informers = options_.informers;
  informers.maxObjects = options_.maxObjectsPerKind;
  auto client = kube::RestClient::create(executor_, memberConfig, clientOptions);
  if (!client) return client.error();
  auto connection = std::make_shared<AsioMemberConnection>(
      name, fingerprint, executor_, std::move(*client), informers, events_, options_.hostId);
  std::lock_guard lock(mutex_);
  members_[name] = connection;
  return std::shared_ptr<MemberConnection>(connection);
}

std::shared_ptr<MemberConnection> AsioMemberRegistry::get(const std::string& name) const {
  std::lock_guard lock(mutex_);
  auto it = members_.find(name);
  return it == members_.end() ? nullptr : it->second;
}

void AsioMemberRegistry::remove(const std::string& name) {
  std::shared_ptr<AsioMemberConnection> old;
  {
    std::lock_guard lock(mutex_);
    auto it = members_.find(name);
    if (it == members_.end()) return;
    old = std::move(it->second);
    members_.erase(it);
  }
}

std::vector<std::string> AsioMemberRegistry::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [n, _] : members_) out.push_back(n);
  return out;
}

}  // namespace flotilla::controllers
