#include "controllers/cluster/cluster_controller.h"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <functional>

#include "api/conditions.h"
#include "api/time.h"
#include "controllers/cluster/credentials.h"
#include "controllers/common/await.h"
#include "controllers/common/finalizers.h"
#include "controllers/common/log.h"
#include "controllers/common/typed.h"

namespace flotilla::controllers::cluster {

namespace json = boost::json;
using namespace std::chrono;

namespace {

constexpr const char* kName = "cluster";

std::string fingerprintOf(const json::object& secret, const api::FederatedCluster& fc) {
  std::string text = fc.spec.apiEndpoint + (fc.spec.insecureSkipTLSVerify ? "|insecure|" : "|");
  if (const auto* data = secret.if_contains("data")) text += json::serialize(*data);
  return std::to_string(std::hash<std::string>{}(text));
}

// Transport failures that are about trust, not reachability: the TCP connection was made but
// the TLS handshake (or its set-up: a bad CA bundle) failed — wrong CA, wrong server name, a
// client certificate refused. These are Ready=False with the precise reason. Timeouts, even in
// the middle of a handshake, are unreachability. Classified by what failed (the client's error
// prefix), never by words that could appear in an endpoint's host name.
bool isTrustFailure(const api::Error& e) {
  if (e.reason != api::reason::kTransport) return false;
  return e.message.rfind("TLS handshake with ", 0) == 0 ||
         e.message.rfind("TLS setup for ", 0) == 0;
}

// The member answered, but not as an API server does: too big, or not HTTP at all.
bool isProtocolFailure(const api::Error& e) {
  if (e.reason != api::reason::kTransport) return false;
  return e.message.find(" is not valid HTTP (") != std::string::npos ||
         e.message.find("-byte limit") != std::string::npos;
}

}  // namespace

ClusterController::ClusterController(kube::RestClient& host,
                                     boost::asio::any_io_executor hostExecutor,
                                     const kube::SharedInformer& clusters, MemberRegistry& members,
                                     kube::EventRecorder& events, ClusterControllerOptions options)
    : host_(host),
      hostExecutor_(std::move(hostExecutor)),
      clusters_(clusters),
      members_(members),
      events_(events),
      options_(std::move(options)),
      clock_(options_.clock ? options_.clock : &realClock_) {}

void ClusterController::readCredentials(const api::FederatedCluster& fc, Memory& memory) {
  const auto& ref = fc.spec.secretRef;
  const std::string ns = ref.namespace_.empty() ? "flotilla-system" : ref.namespace_;
  auto secret = await(hostExecutor_, host_.get(resources::kSecrets, ns, ref.name));
  memory.lastSecretRead = clock_->now();
  if (!secret) {
    memory.configError =
        "credentials Secret " + ns + "/" + ref.name + ": " + secret.error().message;
    memory.fingerprint.clear();
    return;
  }
  if (auto unbound = credentialsBindingError(*secret, fc.metadata.name)) {
    memory.configError = "credentials Secret " + ns + "/" + ref.name + ": " + *unbound;
    memory.fingerprint.clear();
    return;
  }
  auto config = kube::configFromSecret(*secret, fc.spec.apiEndpoint, fc.spec.insecureSkipTLSVerify);
  if (!config) {
    memory.configError =
        "credentials Secret " + ns + "/" + ref.name + ": " + config.error().message;
    memory.fingerprint.clear();
    return;
  }
  memory.configError.clear();
  memory.config = std::move(*config);
  memory.fingerprint = fingerprintOf(*secret, fc);
}

ProbeResult ClusterController::probe(MemberConnection& member) {
  auto& client = member.client();
  auto answer = await(member.executor(), client.getRaw("/readyz"));
  if (!answer && answer.error().code == 404) {
    answer = await(member.executor(), client.getRaw("/healthz"));  // older API servers
  }
  if (answer) {
    // kube-apiserver answers exactly "ok" (a verbose answer ends with "readyz check passed"):
    // any other 200, such as a web server's page that happens to contain "ok", is not a ready API
    // server.
    std::string_view body(*answer);
    while (!body.empty() && std::isspace(static_cast<unsigned char>(body.back())))
      body.remove_suffix(1);
    const std::string_view passed = "check passed";
    if (body == "ok" ||
        (body.size() >= passed.size() && body.substr(body.size() - passed.size()) == passed)) {
      // /readyz is open to anonymous users (system:public-info-viewer): the credentials are
      // proven by a request that needs them, the core discovery document.
      auto discovery = await(member.executor(), client.getPath("/api"));
      if (!discovery && (discovery.error().code == 401 || discovery.error().code == 403)) {
        return {ProbeOutcome::kUnhealthy, "the member rejected Flotilla's credentials (HTTP " +
                                              std::to_string(discovery.error().code) +
                                              "): " + discovery.error().message};
      }
      return {ProbeOutcome::kHealthy, ""};
    }
    return {ProbeOutcome::kUnhealthy,
            "/readyz answered 200 but not \"ok\" (not a ready Kubernetes API server): " +
                answer->substr(0, 120)};
  }
  const auto& e = answer.error();
  if (e.code == 401 || e.code == 403) {
    return {ProbeOutcome::kUnhealthy, "the member rejected Flotilla's credentials (HTTP " +
                                          std::to_string(e.code) + "): " + e.message};
  }
  if (e.code != 0) {
    return {ProbeOutcome::kUnhealthy,
            "/readyz answered HTTP " + std::to_string(e.code) + ": " + e.message};
  }
  if (isTrustFailure(e)) {
    return {ProbeOutcome::kUnhealthy, "TLS with the member failed: " + e.message};
  }
  if (isProtocolFailure(e)) {
    return {ProbeOutcome::kUnhealthy,
            "the member answered, but not as a Kubernetes API server: " + e.message};
  }
  return {ProbeOutcome::kUnreachable, "the member's API server did not answer: " + e.message};
}

std::optional<std::vector<api::APIEnablement>> ClusterController::discover(
    MemberConnection& member) {
  auto& client = member.client();
  std::vector<std::string> groupVersions;
  auto core = await(member.executor(), client.getPath("/api"));
  if (!core) return std::nullopt;
  if (const auto* v = core->is_object() ? core->as_object().if_contains("versions") : nullptr;
      v && v->is_array()) {
    for (const auto& gv : v->as_array())
      if (gv.is_string()) groupVersions.emplace_back(gv.as_string());
  }
  auto groups = await(member.executor(), client.getPath("/apis"));
  if (!groups) return std::nullopt;
  if (const auto* list = groups->is_object() ? groups->as_object().if_contains("groups") : nullptr;
      list && list->is_array()) {
    for (const auto& g : list->as_array()) {
      const auto* versions = g.is_object() ? g.as_object().if_contains("versions") : nullptr;
      if (!versions || !versions->is_array()) continue;
      for (const auto& v : versions->as_array()) {
        const auto* gv = v.is_object() ? v.as_object().if_contains("groupVersion") : nullptr;
        if (gv && gv->is_string()) groupVersions.emplace_back(gv->as_string());
      }
    }
  }
  // Bounded (docs/security.md, M4): a member advertising thousands of group-versions, or
  // answering each slowly, cannot keep a cluster worker (of the two shared by the fleet) busy.
  constexpr size_t kMaxGroupVersions = 500;
  const auto budget = std::chrono::seconds(20);
  if (groupVersions.size() > kMaxGroupVersions) {
    log::warn("cluster", member.name(),
              "the member advertises " + std::to_string(groupVersions.size()) +
                  " API group-versions; reading the first " + std::to_string(kMaxGroupVersions));
    groupVersions.resize(kMaxGroupVersions);
  }
  const auto started = clock_->now();
  std::vector<api::APIEnablement> out;
  for (const auto& gv : groupVersions) {
    if (clock_->now() - started > budget) {
      log::warn("cluster", member.name(),
                "discovery took longer than 20 s; the API enablements list " +
                    std::to_string(out.size()) + " of " + std::to_string(groupVersions.size()) +
                    " group-versions");
      break;
    }
    const std::string path = gv.find('/') == std::string::npos ? "/api/" + gv : "/apis/" + gv;
    auto doc = await(member.executor(), client.getPath(path));
    // One group-version that does not answer (an aggregated API whose backend is down, as
    // metrics.k8s.io often is) must not hide the others: it is left out until it answers.
    if (!doc) continue;
    api::APIEnablement e;
    e.groupVersion = gv;
    if (const auto* rs = doc->is_object() ? doc->as_object().if_contains("resources") : nullptr;
        rs && rs->is_array()) {
      for (const auto& r : rs->as_array()) {
        if (!r.is_object()) continue;
        const auto* n = r.as_object().if_contains("name");
        const auto* k = r.as_object().if_contains("kind");
        if (!n || !n->is_string() || !k || !k->is_string()) continue;
        const std::string name(n->as_string());
        if (name.find('/') != std::string::npos) continue;  // subresources
        e.resources.push_back({name, std::string(k->as_string())});
      }
    }
    std::sort(e.resources.begin(), e.resources.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    out.push_back(std::move(e));
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.groupVersion < b.groupVersion; });
  return out;
}

api::Result<kube::ReconcileResult> ClusterController::finalize(const api::FederatedCluster& fc) {
  const std::string& name = fc.metadata.name;
  if (hasFinalizer(fc.metadata, kCleanupFinalizer)) {
    const auto* ready = api::findCondition(fc.status.conditions, "Ready");
    const bool skip = fc.metadata.annotations.count(kSkipMemberCleanupAnnotation) &&
                      fc.metadata.annotations.at(kSkipMemberCleanupAnnotation) == "true";
    auto member = members_.get(name);
    if (!member && !skip) {
      // After a restart (or a leader change) the connection may not exist yet.
      Memory fresh;
      readCredentials(fc, fresh);
      if (fresh.configError.empty()) {
        if (auto ensured = members_.ensure(name, fresh.config, fresh.fingerprint))
          member = *ensured;
      }
    }
    bool cleaned = skip;
    // Probe now: the stored Ready condition stops moving once deletion starts.
    if (!cleaned && member && probe(*member).outcome == ProbeOutcome::kHealthy) {
      // Remove what Flotilla put on the member: the objects this host made through this entry
      // (not another host's, not another entry's for the same member).
      kube::ListOptions selector;
      selector.labelSelector = madeThroughSelector(options_.hostId, name);
      auto list =
          await(member->executor(), member->client().list(resources::kDeployments, "", selector));
      if (list) {
        cleaned = true;
        for (const auto& item : list->items) {
          // What a member answers is outside data: an item without a name is skipped, never
          // an exception out of the reconcile.
          const auto* meta = item.if_contains("metadata");
          const auto* nsv =
              meta && meta->is_object() ? meta->as_object().if_contains("namespace") : nullptr;
          const auto* nv =
              meta && meta->is_object() ? meta->as_object().if_contains("name") : nullptr;
          if (!nsv || !nsv->is_string() || !nv || !nv->is_string()) continue;
          const std::string ns(nsv->as_string());
          const std::string n(nv->as_string());
          auto gone = await(member->executor(),
                            member->client().remove(resources::kDeployments, ns, n, {}));
          if (!gone && gone.error().code != 404) cleaned = false;
        }
      }
    }
    if (!cleaned) {
      // An unreachable member must not block the deletion forever: after the failover grace
      // (counted from the first failed attempt, or from when it stopped being Ready) Flotilla
      // gives up on cleaning it (docs/operator.md).
      const auto now = clock_->now();
      api::SteadyClockInterface::time_point firstFailure;
      {
        std::lock_guard lock(mutex_);
        auto& m = memory_[name];
        if (!m.cleanupFailingSince) m.cleanupFailingSince = now;
        firstFailure = *m.cleanupFailingSince;
      }
      const auto since = ready ? api::parseRfc3339(ready->lastTransitionTime) : std::nullopt;
      const bool longGone = now - firstFailure >= options_.failoverGrace ||
                            (ready && ready->status != "True" && since &&
                             options_.wallClock() - *since >= options_.failoverGrace);
      if (!longGone) {
        log::info(kName, name, "waiting to clean up the member before deletion");
        return kube::ReconcileResult{false, duration_cast<nanoseconds>(options_.probePeriod)};
      }
      events_.event(involved(fc), "Warning", "CleanupSkipped",
                    "member unreachable for longer than the failover grace; objects Flotilla "
                    "created there are left behind");
    }
    auto updated =
        await(hostExecutor_,
              host_.updateWithRetry(resources::kFederatedClusters, "", name, [](json::object& o) {
                return removeFinalizer(o, kCleanupFinalizer);
              }));
    if (!updated && updated.error().code != 404) return updated.error();
  }
  members_.remove(name);
  std::lock_guard lock(mutex_);
  memory_.erase(name);
  podUsage_.erase(name);
  return kube::ReconcileResult{};
}

api::Result<kube::ReconcileResult> ClusterController::reconcile(const std::string& key) {
  auto cached = clusters_.store().get(key);
  if (!cached) {
    members_.remove(key);
    std::lock_guard lock(mutex_);
    memory_.erase(key);
    podUsage_.erase(key);
    return kube::ReconcileResult{};
  }
  auto decoded = fromObject<api::FederatedCluster>(cached);
  if (!decoded) {
    log::error(kName, key, "cannot decode: " + decoded.error().message);
    return kube::ReconcileResult{};  // a schema drift; retrying will not help
  }
  api::FederatedCluster fc = std::move(*decoded);
  if (fc.metadata.deletionTimestamp) return finalize(fc);
  if (!hasFinalizer(fc.metadata, kCleanupFinalizer)) {
    auto updated = await(
        hostExecutor_,
        host_.updateWithRetry(resources::kFederatedClusters, "", key,
                              [](json::object& o) { return addFinalizer(o, kCleanupFinalizer); }));
    if (!updated) return retryOnConflict(updated.error());
    return kube::ReconcileResult{};  // the update event brings us back with the new version
  }

  const auto now = clock_->now();
  Memory memory;
  {
    std::lock_guard lock(mutex_);
    auto& m = memory_[key];
    if (!m.seeded) {
      m.readiness = readinessFromStatus(fc.status);
      m.seeded = true;
    }
    memory = m;
  }

  ClusterObservation observed;
  const bool probeDue = !memory.lastProbe || now - *memory.lastProbe >= options_.probePeriod;
  if (probeDue) {
    if (!memory.lastSecretRead || now - *memory.lastSecretRead >= options_.secretRefresh ||
        !memory.configError.empty()) {
      readCredentials(fc, memory);
    }
    ProbeResult result;
    std::shared_ptr<MemberConnection> member;
    if (!memory.configError.empty()) {
      result = {ProbeOutcome::kUnhealthy, memory.configError};
    } else {
      auto ensured = members_.ensure(key, memory.config, memory.fingerprint);
      if (!ensured) {
        result = {ProbeOutcome::kUnhealthy, "cannot connect: " + ensured.error().message};
      } else {
        member = *ensured;
        result = probe(*member);
        if (result.outcome == ProbeOutcome::kUnhealthy &&
            result.message.find("credentials") != std::string::npos) {
          memory.lastSecretRead.reset();  // re-read a rotated Secret at the next probe
        }
      }
    }
    memory.lastProbe = now;
    memory.readiness = observeProbe(memory.readiness, result, options_.probeThreshold);
    observed.probedNow = true;
    if (member && result.outcome == ProbeOutcome::kHealthy) {
      if (memory.version.empty() || !memory.lastDiscovery ||
          now - *memory.lastDiscovery >= options_.discoveryPeriod) {
        auto version = await(member->executor(), member->client().getPath("/version"));
        if (version && version->is_object()) {
          if (const auto* g = version->as_object().if_contains("gitVersion"); g && g->is_string())
            memory.version = std::string(g->as_string());
        }
        if (auto enablements = discover(*member)) {
          memory.enablements = std::move(enablements);
          memory.lastDiscovery = now;
        }
      }
    }
  }
  observed.readiness = memory.readiness.settled;
  if (!memory.version.empty()) observed.kubernetesVersion = memory.version;
  observed.apiEnablements = memory.enablements;
  if (auto member = members_.get(key); member && member->synced()) {
    std::vector<api::Node> nodes;
    for (const auto& o : member->nodes().store().list()) {
      if (auto n = fromObject<api::Node>(o)) nodes.push_back(std::move(*n));
    }
    std::shared_ptr<PodUsageCache> usage;
    {
      std::lock_guard lock(mutex_);
      auto& cache = podUsage_[key];
      if (!cache) cache = std::make_shared<PodUsageCache>();
      usage = cache;  // only this key's reconcile uses it, and never two at once (work queue)
    }
    observed.resources = summarizeWithUsage(nodes, usage->update(member->pods().store().list()));
  } else {
    std::lock_guard lock(mutex_);
    podUsage_.erase(key);  // its pods would be held until the member syncs again
  }
  {
    std::lock_guard lock(mutex_);
    memory_[key] = memory;
  }

  const auto decision = decideCluster(fc, observed, options_.wallClock(), options_.failoverGrace);
  json::object latest = *cached;
  if (decision.taintsChanged) {
    api::FederatedCluster withTaints = fc;
    withTaints.spec.taints = decision.taints;
    auto obj = toObject(withTaints);
    obj.erase("status");
    auto updated = await(hostExecutor_, host_.update(resources::kFederatedClusters, obj));
    if (!updated) return retryOnConflict(updated.error());
    latest = std::move(*updated);
    std::string added, removed;
    for (const auto& t : decision.taints)
      if (std::find(fc.spec.taints.begin(), fc.spec.taints.end(), t) == fc.spec.taints.end())
        added += (added.empty() ? "" : ", ") + t.str();
    for (const auto& t : fc.spec.taints)
      if (std::find(decision.taints.begin(), decision.taints.end(), t) == decision.taints.end())
        removed += (removed.empty() ? "" : ", ") + t.str();
    if (!added.empty()) events_.event(involved(fc), "Warning", "TaintAdded", "added " + added);
    if (!removed.empty())
      events_.event(involved(fc), "Normal", "TaintRemoved", "removed " + removed);
  }
  if (decision.statusChanged || decision.taintsChanged) {
    auto status = decision.status;
    // The spec write above moved the generation; the conditions describe this new generation.
    int64_t generation = fc.metadata.generation;
    if (const auto* m = latest.if_contains("metadata"); m && m->is_object()) {
      if (const auto* g = m->as_object().if_contains("generation"); g && g->is_int64())
        generation = g->as_int64();
    }
    for (auto& c : status.conditions) c.observedGeneration = generation;
    if (decision.statusChanged || generation != fc.metadata.generation) {
      latest["status"] = api::encode(status);
      auto written =
          await(hostExecutor_, host_.updateStatus(resources::kFederatedClusters, latest));
      if (!written) return retryOnConflict(written.error());
    }
  }
  if (!decision.readyTransition.empty()) {
    const auto* ready = api::findCondition(decision.status.conditions, "Ready");
    const std::string message = ready ? ready->message : "";
    if (decision.readyTransition == "True") {
      events_.event(involved(fc), "Normal", "ClusterReady", "cluster is ready");
    } else {
      events_.event(
          involved(fc), "Warning",
          decision.readyTransition == "Unknown" ? "ClusterUnreachable" : "ClusterNotReady",
          message);
    }
    log::info(kName, key,
              "Ready is now " + decision.readyTransition + (message.empty() ? "" : ": " + message));
  }

  // Next probe when due, or earlier when the unreachable taint comes due.
  nanoseconds next = options_.probePeriod;
  if (memory.lastProbe) {
    next = std::max<nanoseconds>(nanoseconds(1'000'000),
                                 options_.probePeriod - (clock_->now() - *memory.lastProbe));
  }
  if (decision.recheckAfter) next = std::min(next, *decision.recheckAfter);
  return kube::ReconcileResult{false, next};
}

void ClusterController::collectMetrics(kube::MetricsWriter& w) const {
  for (const auto& o : clusters_.store().list()) {
    auto fc = fromObject<api::FederatedCluster>(o);
    if (!fc) continue;
    const auto* ready = api::findCondition(fc->status.conditions, "Ready");
    const std::string status = ready ? ready->status : "Unknown";
    for (const char* s : {"True", "False", "Unknown"}) {
      w.gauge("flotilla_member_cluster_ready",
              "Ready condition of each member cluster (1 for the current status).",
              {{"cluster", fc->metadata.name}, {"status", s}}, status == s ? 1 : 0);
    }
  }
}

}  // namespace flotilla::controllers::cluster
