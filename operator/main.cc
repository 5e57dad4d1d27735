// flotilla-operator: one process hosting every controller (docs/operator.md). main only parses
// flags, checks that the host is usable (one clear line and a non-zero exit otherwise) and wires
// the manager, the informers, the member registry and the controllers together.
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "api/unstructured.h"
#include "controllers/automigration/automigration_controller.h"
#include "controllers/binding/binding_controller.h"
#include "controllers/cluster/cluster_controller.h"
#include "controllers/common/log.h"
#include "controllers/common/member_registry.h"
#include "controllers/common/typed.h"
#include "controllers/federate/federate_controller.h"
#include "controllers/federate/object_controller.h"
#include "controllers/scheduler/scheduler_controller.h"
#include "controllers/status/status_controller.h"
#include "controllers/sync/dependency_gate.h"
#include "controllers/sync/namespace_controller.h"
#include "controllers/sync/sync_controller.h"
#include "kube/events/rest_event_sink.h"
#include "kube/leader/leader_elector.h"
#include "kube/manager/manager.h"
#include "operator/options.h"
#include "webhooks/rest_access_reviewer.h"
#include "webhooks/webhook_server.h"

namespace {

using namespace flotilla;
namespace ctl = flotilla::controllers;

// How often at most a member's changing nodes and pods are re-summarized (see nodesOrPodsChanged).
constexpr std::chrono::milliseconds kResourcesCoalesce{1000};
// A new member Deployment's status moves in steps a few hundred milliseconds apart (observed,
// replicas created, pods ready); each step once aggregated is three host writes (the binding's,
// the FederatedDeployment's and the host Deployment's status). Aggregating once a second after
// the first change folds the steps into about one round: 30% fewer status writes per binding at
// 100 members, for at most a second more before `kubectl get` shows READY.
constexpr std::chrono::milliseconds kStatusCoalesce{1000};

api::Result<std::string> readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return api::Error{api::reason::kNotFound, 0, "cannot read " + path, {}};
  std::stringstream text;
  text << in.rdbuf();
  return api::okString(text.str());
}

api::Result<kube::RestConfig> hostConfig(const op::Options& options) {
  kube::KubeconfigOptions kc;
  kc.context = options.context;
  if (!options.kubeconfig.empty()) {
    kc.paths.push_back(options.kubeconfig);
    return kube::loadKubeconfig(kc);
  }
  const char* env = std::getenv("KUBECONFIG");
  const char* home = std::getenv("HOME");
  const bool haveDefault =
      home && std::filesystem::exists(std::filesystem::path(home) / ".kube" / "config");
  if ((env && *env) || haveDefault) return kube::loadKubeconfig(kc);
  return kube::inClusterConfig();
}

// The checks that turn a misconfiguration into one line instead of endless retries. Sets
// `hostId` to the host's identity: the UID of its kube-system namespace, which lives as long as
// the cluster (docs/security.md, M1: marked on every member object this host makes).
std::string preflight(kube::Manager& manager, const kube::RestConfig& config,
                      const op::Options& options, std::string& hostId) {
  kube::RestConfig quick = config;
  quick.timeout = std::chrono::seconds(10);
  kube::RestClientOptions once;
  once.maxRetries = 1;
  auto client = kube::RestClient::create(manager.executor(), quick, once);
  if (!client) return "host configuration (" + config.source + "): " + client.error().message;
  auto& c = **client;
  // An answer that may pass (no answer, 408, 429, 5xx) is asked again for up to a minute, so a
  // briefly overloaded or restarting API server does not stop the operator; 401, 403 and 404
  // are misconfigurations and end it at once.
  auto settled = [&](auto call) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    auto delay = std::chrono::milliseconds(200);
    while (true) {
      auto result = manager.sync(call());
      if (result) return result;
      const int code = result.error().code;
      const bool passing = code == 0 || code == 408 || code == 429 || code >= 500;
      if (!passing || std::chrono::steady_clock::now() + delay > deadline) return result;
      ctl::log::warn("preflight", "", "host API server: " + result.error().message + "; retrying");
      std::this_thread::sleep_for(delay);  // a start-up retry, nothing else runs yet
      delay = std::min(delay * 2, std::chrono::milliseconds(5000));
    }
  };
  // The calls' arguments are named, defaults included: a coroutine keeps references, not copies,
  // of them, and a temporary made inside the lambda dies when it returns.
  const std::string versionPath = "/version", gv = api::kGroupVersion, kind = "ResourceBinding",
                    none, electionNs = options.leaderElectionNamespace, system = "kube-system";
  auto version = settled([&] { return c.getPath(versionPath); });
  if (!version) {
    return "cannot reach the host API server " + config.server + ": " + version.error().message;
  }
  auto crd = settled([&] { return c.resourceFor(gv, kind); });
  if (!crd) {
    if (crd.error().code == 404)
      return "the flotilla.io CRDs are not installed on the host " + config.server +
             " (kubectl apply -f crds/)";
    return "discovery on the host " + config.server + " failed: " + crd.error().message;
  }
  if (options.leaderElect) {
    auto ns = settled([&] { return c.get(ctl::resources::kNamespaces, none, electionNs, none); });
    if (!ns) {
      if (ns.error().code == 404)
        return "namespace " + options.leaderElectionNamespace +
               " does not exist (--leader-election-namespace); create it or pass another";
      return "reading namespace " + options.leaderElectionNamespace + ": " + ns.error().message;
    }
  }
  auto systemNs = settled([&] { return c.get(ctl::resources::kNamespaces, none, system, none); });
  if (!systemNs) {
    return "reading namespace kube-system (its UID identifies this host on the members): " +
           systemNs.error().message;
  }
  const auto* meta = systemNs->if_contains("metadata");
  const auto* uid = meta && meta->is_object() ? meta->as_object().if_contains("uid") : nullptr;
  if (!uid || !uid->is_string() || uid->as_string().empty())
    return "namespace kube-system on the host has no metadata.uid";
  hostId = std::string(uid->as_string());
  return "";
}

// Admission reads SchedulingProfiles from the operator's cache (synced in every replica).
class InformerClusterView : public webhooks::ClusterView {
 public:
  explicit InformerClusterView(const kube::SharedInformer& profiles) : profiles_(profiles) {}
  std::optional<bool> schedulingProfileExists(const std::string& name) const override {
    if (!profiles_.hasSynced()) return std::nullopt;
    return profiles_.store().get(name) != nullptr;
  }

 private:
  const kube::SharedInformer& profiles_;
};

spdlog::level::level_enum levelOf(const std::string& name) {
  if (name == "debug") return spdlog::level::debug;
  if (name == "warn") return spdlog::level::warn;
  if (name == "error") return spdlog::level::err;
  return spdlog::level::info;
}

}  // namespace

int main(int argc, char** argv) {
  // The process holds every member's credentials: no core dump of it, and no ptrace attach by
  // another process of the same user (docs/security.md, L6).
  ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
  // Connections, member clients and informers all take descriptors: the soft limit up to the
  // hard one, as Go programs do at start (a flood then meets the connection caps, not EMFILE).
  if (rlimit files{}; ::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    ::setrlimit(RLIMIT_NOFILE, &files);
  }
  const std::vector<std::string> args(argv + 1, argv + argc);
  auto parsed = op::parseOptions(args, readFile);
  if (!parsed) {
    std::cerr << "flotilla-operator: " << parsed.error().message << "\n";
    return 2;
  }
  const op::Options options = *parsed;
  if (options.help) {
    std::cout << op::kHelp;
    return 0;
  }
  ctl::log::setup(options.logFormat == "json" ? ctl::log::Format::kJson : ctl::log::Format::kText,
                  levelOf(options.logLevel));

  auto config = hostConfig(options);
  if (!config) {
    std::cerr << "flotilla-operator: cannot load the host configuration: " << config.error().message
              << "\n";
    return 1;
  }
  config->userAgent = "flotilla-operator/0.1";  // as kube-controller-manager names itself
  config->qps = options.kubeApiQps;
  config->burst = options.kubeApiBurst;

  kube::ManagerOptions mo;
  mo.healthAddress = options.health.host;
  mo.healthPort = options.health.port;
  if (!options.metrics.disabled && options.metrics.host == options.health.host &&
      options.metrics.port == options.health.port) {
    mo.metricsWithHealth = true;
  } else if (!options.metrics.disabled) {
    mo.metricsAddress = options.metrics.host;
    mo.metricsPort = options.metrics.port;
  }
  mo.leaderElection = options.leaderElect;
  mo.leaseNamespace = options.leaderElectionNamespace;
  mo.leaseName = options.leaderElectionId;
  mo.election.identity = kube::defaultIdentity();
  mo.election.leaseDuration = options.leaseDuration;
  mo.election.renewDeadline = options.renewDeadline;
  mo.election.retryPeriod = options.retryPeriod;

  std::unique_ptr<kube::Manager> manager;
  try {
    manager = std::make_unique<kube::Manager>(*config, mo);
  } catch (const std::exception& e) {
    std::cerr << "flotilla-operator: " << e.what() << "\n";
    return 1;
  }
  std::string hostId;
  if (auto problem = preflight(*manager, *config, options, hostId); !problem.empty()) {
    std::cerr << "flotilla-operator: " << problem << "\n";
    return 1;
  }

  auto& factory = manager->informers();
  namespace res = ctl::resources;
  auto clusters = factory.informerFor(res::kFederatedClusters);
  auto policies = factory.informerFor(res::kPropagationPolicies);
  auto clusterPolicies = factory.informerFor(res::kClusterPropagationPolicies);
  auto overridePolicies = factory.informerFor(res::kOverridePolicies);
  auto clusterOverridePolicies = factory.informerFor(res::kClusterOverridePolicies);
  auto federated = factory.informerFor(res::kFederatedDeployments);
  auto bindings = factory.informerFor(res::kResourceBindings);
  auto profiles = factory.informerFor(res::kSchedulingProfiles);
  auto extenders = factory.informerFor(res::kSchedulerExtenders);
  auto deployments = factory.informerFor(res::kDeployments);
  auto federatedObjects = factory.informerFor(res::kFederatedObjects);
  auto clusterFederatedObjects = factory.informerFor(res::kClusterFederatedObjects);
  auto clusterBindings = factory.informerFor(res::kClusterResourceBindings);

  kube::RestEventSink sink(manager->client(), manager->executor());
  kube::EventRecorderOptions ro;
  ro.component = "flotilla-operator";
  char hostname[256] = {};
  if (gethostname(hostname, sizeof(hostname) - 1) == 0) ro.host = hostname;
  auto recorderOwner = std::make_unique<kube::AggregatingEventRecorder>(sink, ro);
  kube::AggregatingEventRecorder& recorder = *recorderOwner;

  auto controllerOptions = [&options] {
    kube::ControllerOptions o;
    o.workers = options.workers;
    return o;
  };

  ctl::MemberRegistryOptions registryOptions;
  registryOptions.requestTimeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(options.clusterProbeTimeout);
  registryOptions.hostId = hostId;
  ctl::AsioMemberRegistry members(manager->executor(), registryOptions);
  ctl::cluster::ClusterControllerOptions clusterOptions;
  clusterOptions.probePeriod = options.clusterProbePeriod;
  clusterOptions.probeThreshold = options.clusterProbeThreshold;
  clusterOptions.failoverGrace = options.clusterFailoverGrace;
  clusterOptions.hostId = hostId;
  ctl::cluster::ClusterController clusterController(manager->client(), manager->executor(),
                                                    *clusters, members, recorder, clusterOptions);
  auto& clusterLoop = manager->addController("cluster", clusterController, controllerOptions());
  // Its own status writes (heartbeats, resource summaries) bring no reconcile: the next one is
  // the probe period's requeue or a member's nodes/pods event (docs/performance.md, round 2).
  clusterLoop.watch(*clusters, kube::mapToSelf(),
                    kube::anyOf({kube::generationChanged(), kube::labelsChanged(),
                                 kube::annotationsChanged(), kube::deletionChanged()}));

  // Reserved namespaces (docs/security.md, M5): a ClusterPropagationPolicy never federates the
  // operator's own namespace, and kube-* and default only when it names them.
  const ctl::policy::ReservedNamespaces reserved{.operatorNamespace =
                                                     options.leaderElectionNamespace};
  ctl::federate::FederateController federate(
      manager->client(), manager->executor(),
      {*deployments, *federated, *policies, *clusterPolicies}, recorder, reserved);
  auto& federateLoop = manager->addController("federate", federate, controllerOptions());
  federate.watch(federateLoop, *deployments, *federated, *policies, *clusterPolicies);

  // Any other kind a policy names (docs/design.md §11): host informers per kind, started and
  // stopped as policies change, feeding the object federate controller's queue.
  kube::Controller* federateObjectsLoop = nullptr;
  kube::Controller* syncLoopPtr = nullptr;
  const auto leadersOfFollower = ctl::sync::mapFollowerToLeaders();
  ctl::federate::SourceInformers sources(
      manager->client(), manager->executor(),
      [&federateObjectsLoop, &syncLoopPtr, &bindings, &clusterBindings,
       &leadersOfFollower](const std::string& key) {
        if (federateObjectsLoop) federateObjectsLoop->queue().add(key);
        for (const auto& federated : ctl::dependencies::federatedKeys({key})) {
          // A follower deleted or made on the host: its workloads' DependenciesReady.
          const bool clusterScoped = federated.find('/') == std::string::npos;
          if (syncLoopPtr)
            if (auto rb = (clusterScoped ? clusterBindings : bindings)->store().get(federated))
              for (const auto& leader : leadersOfFollower(rb)) syncLoopPtr->queue().add(leader);
        }
      });
  // What workloads use follows them (docs/design.md §12): worked out from the caches on demand.
  sources.addIndex({"v1", "Service"}, ctl::dependencies::kSelectorIndex,
                   ctl::dependencies::selectorIndexValues);
  const ctl::KindKey crdKind{ctl::dependencies::kCrdKind.first, ctl::dependencies::kCrdKind.second};
  sources.addIndex(crdKind, ctl::dependencies::kCrdIndex, ctl::dependencies::crdIndexValues);
  for (const auto& [apiVersion, kind] : ctl::dependencies::kNamingKinds)
    sources.addIndex({apiVersion, kind}, ctl::dependencies::kFollowsIndex,
                     [apiVersion = std::string(apiVersion),
                      kind = std::string(kind)](const boost::json::object& o) {
                       return ctl::dependencies::followsIndexValues(apiVersion, kind, o);
                     });
  ctl::dependencies::FollowerIndex followers(
      {*bindings, *federated, *federatedObjects, clusterBindings.get()},
      {.named = [&sources](const std::string& ns, const std::string& name) -> kube::ObjectPtr {
         auto informer = sources.get({"v1", "Service"}, ns);
         return informer ? informer->store().get(ns + "/" + name) : nullptr;
       },
       .selecting =
           [&sources](const std::string& ns, const std::string& value) {
             auto informer = sources.get({"v1", "Service"}, ns);
             return informer ? informer->store().byIndex(ctl::dependencies::kSelectorIndex, value)
                             : std::vector<kube::ObjectPtr>{};
           }},
      [&sources, crdKind](const std::string& ns) {
        // (A kind not watched in `ns` has no followers there: no policy that follows selects.)
        if (!sources.configured()) return false;
        for (const auto& [apiVersion, kind] : ctl::dependencies::kFollowerKinds) {
          auto informer = sources.get({apiVersion, kind}, ns);
          if (informer && !informer->hasSynced()) return false;
        }
        // A CRD follows custom resources of every namespace (a custom resource leader's wait
        // for this cache is FollowerIndex::readyFor).
        if (!ns.empty()) return true;
        auto crds = sources.get(crdKind, "");
        return !crds || crds->hasSynced();
      },
      {.serving = [&sources, crdKind](const std::string& group,
                                      const std::string& kind) -> kube::ObjectPtr {
         auto informer = sources.get(crdKind, "");
         if (!informer) return nullptr;
         auto found = informer->store().byIndex(ctl::dependencies::kCrdIndex, group + "/" + kind);
         return found.empty() ? nullptr : found.front();
       },
       .named = [&sources, crdKind](const std::string& name) -> kube::ObjectPtr {
         auto informer = sources.get(crdKind, "");
         return informer ? informer->store().get(name) : nullptr;
       },
       .synced =
           [&sources, crdKind] {
             auto informer = sources.get(crdKind, "");
             return !informer || informer->hasSynced();
           }},
      {.named = [&sources](const ctl::dependencies::Dependency& d) -> kube::ObjectPtr {
         auto informer = sources.get({d.apiVersion, d.kind}, d.ns);
         return informer ? informer->store().get(d.ns + "/" + d.name) : nullptr;
       },
       .naming =
           [&sources](const std::string& ns, const std::string& target) {
             std::vector<ctl::dependencies::Dependency> out;
             for (const auto& [apiVersion, kind] : ctl::dependencies::kNamingKinds)
               if (auto informer = sources.get({apiVersion, kind}, ns))
                 for (const auto& o :
                      informer->store().byIndex(ctl::dependencies::kFollowsIndex, target))
                   out.push_back(ctl::dependencies::Dependency{
                       apiVersion, kind, ns,
                       flotilla::api::unstructured::stringAt(*o, {"metadata", "name"}), false});
             return out;
           }});
  ctl::federate::FederateObjectController federateObjects(
      manager->client(), manager->executor(),
      {*federatedObjects, *clusterFederatedObjects, *policies, *clusterPolicies}, sources, recorder,
      {.reserved = reserved, .followers = &followers});
  federateObjectsLoop =
      &manager->addController("federate-object", federateObjects, controllerOptions());
  federateObjects.watch(*federateObjectsLoop, *federatedObjects, *clusterFederatedObjects,
                        *policies, *clusterPolicies);
  federateObjects.watchLeaders(*federateObjectsLoop, *bindings, *federated, *federatedObjects);
  // The kinds are worked out once at the start, then on every policy change.
  manager->addRunnable(
      [&federateObjectsLoop] { federateObjectsLoop->queue().add(ctl::federate::kKindsKey); },
      [&sources] { sources.stopAll(); });

  ctl::binding::BindingController binding(
      manager->client(), manager->executor(),
      {*federated, *bindings, *policies, *clusterPolicies, federatedObjects.get(),
       clusterFederatedObjects.get(), clusterBindings.get(), &followers},
      recorder, api::Clock::now, reserved);
  auto& bindingLoop = manager->addController("binding", binding, controllerOptions());
  binding.watch(bindingLoop, *federated, *bindings, *policies, *clusterPolicies);
  binding.watchObjects(bindingLoop, *federatedObjects, *bindings, *policies, *clusterPolicies);
  binding.watchFollowers(bindingLoop, *bindings, *federated, *federatedObjects);
  binding.watchClusterObjects(bindingLoop, *clusterFederatedObjects, *clusterBindings,
                              *clusterPolicies);

  ctl::sync::SyncControllerOptions syncOptions;
  syncOptions.gracefulMoveTimeout = options.gracefulMoveTimeout;
  syncOptions.failoverGrace = options.clusterFailoverGrace;
  syncOptions.hostId = hostId;
  syncOptions.followers = &followers;
  ctl::override::CachedOverridePolicies overrides(*overridePolicies, *clusterOverridePolicies);
  syncOptions.overrides = &overrides;
  syncOptions.sourceOf = [&sources](const ctl::ObjectKey& key) -> kube::ObjectPtr {
    auto informer = sources.get({key.apiVersion, key.kind}, key.ns);
    return informer ? informer->store().get(key.cacheKey()) : nullptr;
  };
  syncOptions.sourceWatched = [&sources](const ctl::ObjectKey& key) {
    auto informer = sources.get({key.apiVersion, key.kind}, key.ns);
    return informer && informer->hasSynced();
  };
  ctl::sync::SyncController sync(manager->client(), manager->executor(),
                                 {*federated, *bindings, *clusters, federatedObjects.get(),
                                  clusterFederatedObjects.get(), clusterBindings.get()},
                                 members, recorder, syncOptions);
  auto& syncLoop = manager->addController("sync", sync, controllerOptions());
  syncLoopPtr = &syncLoop;
  sync.watch(syncLoop, *federated, *bindings, *clusters);
  sync.watchObjects(syncLoop, *federatedObjects);
  sync.watchClusterObjects(syncLoop, *clusterFederatedObjects, *clusterBindings, *clusters);
  sync.watchOverrides(syncLoop, *overridePolicies, *clusterOverridePolicies, *clusters);

  // Namespaces leave a member with the last object Flotilla put there (docs/design.md §12).
  ctl::sync::NamespaceController namespaces(*bindings, members);
  auto& namespacesLoop = manager->addController("namespaces", namespaces, controllerOptions());
  namespaces.watch(namespacesLoop, *bindings);

  ctl::status::StatusController status(manager->client(), manager->executor(),
                                       {*federated, *bindings, *deployments, *clusters}, members);
  auto& statusLoop = manager->addController("status", status, controllerOptions());
  status.watch(statusLoop, *federated, *bindings, *deployments, *clusters, kStatusCoalesce);

  ctl::automigration::AutoMigrationController autoMigration(
      manager->client(), manager->executor(), {*bindings, *policies, *clusterPolicies, *clusters},
      members);
  auto& autoMigrationLoop =
      manager->addController("automigration", autoMigration, controllerOptions());
  autoMigration.watch(autoMigrationLoop, *bindings, *clusters);

  // What happens on members reaches the controllers through their queues. Member status churn
  // is coalesced: a burst of updates for one workload within kStatusCoalesce is one status
  // reconcile (within 200 ms for sync, which waits for it only during a move).
  ctl::MemberEvents memberEvents;
  // A member's nodes and pods change in bursts (a rollout is hundreds of pod events): they bring
  // its resources to be re-summarized once per kResourcesCoalesce, not once per event (Karmada
  // refreshes cluster status every 10 s): under constant churn a cluster is summarized about once
  // a second.
  memberEvents.nodesOrPodsChanged = [&clusterLoop](const std::string& cluster) {
    clusterLoop.queue().addAfter(cluster, kResourcesCoalesce);
  };
  // Status-only changes matter to sync while a binding is not fully applied (a make-before-break
  // move waits for new replicas to become available).
  memberEvents.deploymentChanged = [&syncLoop, &statusLoop, &bindings](const std::string&,
                                                                       const std::string& binding,
                                                                       bool specChanged) {
    if (specChanged) {
      syncLoop.queue().add(binding);
    } else if (auto rb = bindings->store().get(binding); rb && !ctl::sync::fullyApplied(*rb)) {
      syncLoop.queue().addAfter(binding, std::chrono::milliseconds(200));
    }
    statusLoop.queue().addAfter(binding, kStatusCoalesce);
  };
  // A member copy of any other kind changed (a user's edit, its status, its deletion): its
  // object is synced again, which repairs drift and takes the new status.
  memberEvents.objectChanged = [&syncLoop](const std::string&, const std::string& binding) {
    syncLoop.queue().add(binding);
  };
  // A workload's pods (scheduled, unschedulable, gone): coalesced like status churn.
  memberEvents.workloadPodChanged = [&autoMigration, &autoMigrationLoop](const std::string&,
                                                                         const std::string& hash) {
    for (const auto& key : autoMigration.bindingsWithHash(hash))
      autoMigrationLoop.queue().addAfter(key, std::chrono::milliseconds(200));
  };
  members.setEvents(std::move(memberEvents));

  ctl::scheduler::SchedulerControllerOptions schedulerOptions;
  schedulerOptions.workers = options.workers;
  ctl::scheduler::SchedulerController scheduler(manager->client(), manager->executor(),
                                                {*bindings, *clusters, *policies, *clusterPolicies,
                                                 *profiles, *extenders, clusterBindings.get()},
                                                recorder, schedulerOptions);
  scheduler.watch();
  manager->addRunnable([&scheduler] { scheduler.start(); }, [&scheduler] { scheduler.stop(); });
  // Member informers stop with the controllers; they use the manager's I/O thread.
  manager->addRunnable([] {}, [&members] { members.stopAll(); });

  manager->metrics().add([&](kube::MetricsWriter& w) {
    clusterController.collectMetrics(w);
    scheduler.collectMetrics(w);
  });

  // Admission is served from the start, in every replica: the API server may call any of them.
  InformerClusterView clusterView(*profiles);
  // A FederatedCluster's author must be able to read the Secret it names (docs/security.md, H1).
  webhooks::RestAccessReviewer accessReviewer(manager->client(), manager->executor());
  std::unique_ptr<webhooks::WebhookServer> webhookServer;
  if (options.enableWebhooks) {
    webhooks::WebhookServerOptions wo;
    wo.address = options.webhookHost;
    wo.port = static_cast<uint16_t>(options.webhookPort);
    wo.certDir = options.certDir;
    // The federate-object controller writes federated objects of kinds it may only read (what
    // the policies select); the template access reviews are for their other authors.
    wo.trustedUsers = {options.operatorUser()};
    webhookServer = std::make_unique<webhooks::WebhookServer>(wo, clusterView, &accessReviewer,
                                                              &accessReviewer);
    if (auto started = webhookServer->start(); !started) {
      std::cerr << "flotilla-operator: " << started.error().message
                << " (--enable-webhooks=false runs without admission webhooks)\n";
      return 1;
    }
    manager->metrics().add(
        [server = webhookServer.get()](kube::MetricsWriter& w) { server->collectMetrics(w); });
  }

  spdlog::info("flotilla-operator starting against {} ({}; leader election {})", config->server,
               config->source, options.leaderElect ? "on" : "off");
  int code = 1;
  try {
    code = manager->run();
  } catch (const std::exception& e) {
    std::cerr << "flotilla-operator: " << e.what() << "\n";
  }
  // Shutdown order: nothing may call into a controller once it is gone. The scheduler and the
  // member informers stop, pending events are written, then the manager stops its I/O thread
  // (informer handlers and /metrics collectors reference the controllers) before the
  // controllers, declared after it, are destroyed.
  if (webhookServer) webhookServer->stop();
  scheduler.stop();
  members.stopAll();
  recorderOwner.reset();  // writes what is pending while the client still exists
  // The informers are the manager's (its factory holds them): drop ours so that they go with it,
  // while its I/O context still exists.
  sources.stopAll();
  for (auto* informer : {&clusters, &policies, &clusterPolicies, &federated, &bindings, &profiles,
                         &extenders, &deployments, &federatedObjects, &clusterFederatedObjects,
                         &clusterBindings, &overridePolicies, &clusterOverridePolicies})
    informer->reset();
  manager.reset();
  spdlog::info("flotilla-operator stopped (exit {})", code);
  return code;
}
