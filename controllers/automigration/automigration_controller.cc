#include "controllers/automigration/automigration_controller.h"

#include <set>

#include "api/conditions.h"
#include "api/duration.h"
#include "api/json_codec.h"
#include "controllers/automigration/estimate.h"
#include "controllers/common/log.h"
#include "controllers/common/managed.h"
#include "controllers/common/status_write.h"
#include "controllers/common/typed.h"
#include "scheduler/available_replicas.h"

namespace flotilla::controllers::automigration {

namespace json = boost::json;
using namespace std::chrono;

namespace {

constexpr const char* kName = "automigration";
constexpr const char* kHashIndex = "automigration-hash";
constexpr const char* kEstimateIndex = "automigration-estimate";
constexpr const char* kRevisionAnnotation = "deployment.kubernetes.io/revision";

const json::object* objectAt(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

std::string stringAt(const json::object* o, const char* key) {
  const auto* v = o ? o->if_contains(key) : nullptr;
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

// The uid of the object's controller (ownerReferences with controller: true).
std::string controllerUid(const json::object& o) {
  const auto* meta = objectAt(o, "metadata");
  const auto* refs = meta ? meta->if_contains("ownerReferences") : nullptr;
  if (!refs || !refs->is_array()) return "";
  for (const auto& r : refs->as_array()) {
    if (!r.is_object()) continue;
    const auto* c = r.as_object().if_contains("controller");
    if (c && c->is_bool() && c->as_bool()) return stringAt(&r.as_object(), "uid");
  }
  return "";
}

int64_t revisionOf(const json::object& rs) {
  const auto* meta = objectAt(rs, "metadata");
  const std::string text =
      stringAt(meta ? objectAt(*meta, "annotations") : nullptr, kRevisionAnnotation);
  try {
    return text.empty() ? 0 : std::stoll(text);
  } catch (const std::exception&) {
    return 0;  // not a number: treated as the oldest
  }
}

std::optional<Settings> settingsOf(const std::optional<api::AutoMigration>& spec) {
  if (!spec) return std::nullopt;
  Settings s;
  if (auto d = api::parseDuration(spec->podUnschedulableFor); d && *d > nanoseconds(0))
    s.podUnschedulableFor = *d;
  if (auto d = api::parseDuration(spec->capacityTTL); d && *d > nanoseconds(0)) s.capacityTTL = *d;
  return s;
}

}  // namespace

AutoMigrationController::AutoMigrationController(kube::RestClient& host,
                                                 boost::asio::any_io_executor executor,
                                                 Informers informers, MemberRegistry& members,
                                                 std::function<api::Clock::time_point()> wallClock)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      members_(members),
      wallClock_(std::move(wallClock)) {}

void AutoMigrationController::watch(kube::Controller& controller, kube::SharedInformer& bindings,
                                    kube::SharedInformer& clusters) {
  bindings.addIndex(kHashIndex, [](const json::object& o) {
    return std::vector<std::string>{bindingHash(kube::objectKey(o))};
  });
  // The clusters a binding has estimates for: their resources growing may lift them.
  bindings.addIndex(kEstimateIndex, [](const json::object& o) {
    std::vector<std::string> names;
    const auto* status = objectAt(o, "status");
    const auto* am = status ? objectAt(*status, "autoMigration") : nullptr;
    const auto* estimates = am ? objectAt(*am, "estimatedCapacity") : nullptr;
    if (estimates)
      for (const auto& [cluster, _] : *estimates) names.emplace_back(cluster);
    return names;
  });
  controller.watch(bindings, kube::mapToSelf(), kube::generationChanged());
  controller.watch(
      clusters,
      [&bindings](const kube::ObjectPtr& fc) {
        std::vector<std::string> keys;
        for (const auto& rb : bindings.store().byIndex(kEstimateIndex, kube::objectKey(*fc)))
          keys.push_back(kube::objectKey(*rb));
        return keys;
      },
      kube::Predicate{nullptr,
                      [](const kube::ObjectPtr& a, const kube::ObjectPtr& b) {
                        const auto* sa = objectAt(*a, "status");
                        const auto* sb = objectAt(*b, "status");
                        const auto* ra = sa ? sa->if_contains("resources") : nullptr;
                        const auto* rb = sb ? sb->if_contains("resources") : nullptr;
                        return (ra == nullptr) != (rb == nullptr) || (ra && *ra != *rb);
                      },
                      nullptr});
}

std::vector<std::string> AutoMigrationController::bindingsWithHash(const std::string& hash) const {
  std::vector<std::string> keys;
  for (const auto& rb : informers_.bindings.store().byIndex(kHashIndex, hash))
    keys.push_back(kube::objectKey(*rb));
  return keys;
}

api::Result<kube::ReconcileResult> AutoMigrationController::reconcile(const std::string& key) {
  const auto cached = informers_.bindings.store().get(key);
  if (!cached) return kube::ReconcileResult{};
  auto rb = fromObject<api::ResourceBinding>(cached);
  if (!rb) {
    log::error(kName, key, "cannot decode the ResourceBinding: " + rb.error().message);
    return kube::ReconcileResult{};
  }
  if (rb->metadata.deletionTimestamp) return kube::ReconcileResult{};

  std::optional<Settings> settings;
  const auto& ref = rb->spec.policy;
  if (ref.kind == "ClusterPropagationPolicy") {
    if (auto o = informers_.clusterPolicies.store().get(ref.name))
      if (auto p = fromObject<api::ClusterPropagationPolicy>(o))
        settings = settingsOf(p->spec.autoMigration);
  } else if (!ref.name.empty()) {
    const std::string ns = ref.namespace_.empty() ? rb->metadata.namespace_ : ref.namespace_;
    if (auto o = informers_.policies.store().get(ns + "/" + ref.name))
      if (auto p = fromObject<api::PropagationPolicy>(o))
        settings = settingsOf(p->spec.autoMigration);
  }

  const auto now = wallClock_();
  Decision decision;
  if (settings) {
    // The clusters to look at: those targeted, and those holding an estimate.
    std::map<std::string, int64_t> desired;
    for (const auto& c : rb->spec.clusters) desired[c.name] = c.replicas;
    if (rb->status.autoMigration)
      for (const auto& [c, _] : rb->status.autoMigration->estimatedCapacity) desired.emplace(c, 0);
    const std::string hash = bindingHash(key);
    std::vector<ClusterView> views;
    for (const auto& [name, count] : desired) {
      auto fc = informers_.clusters.store().get(name);
      if (!fc) continue;  // left the fleet: its estimate goes
      ClusterView view{name, count, false, {}, std::nullopt};
      auto decoded = decodedClusters_.get(fc);  // once per version of the cluster
      const api::FederatedCluster* cluster = decoded ? decoded->get() : nullptr;
      if (cluster && !cluster->status.resources.allocatable.empty())
        view.availableReplicas = flotilla::scheduler::availableReplicas(
            cluster->status.resources, rb->spec.replicaRequirements.resourceRequest);
      auto member = members_.get(name);
      const bool ready = cluster && api::findCondition(cluster->status.conditions, "Ready") &&
                         api::findCondition(cluster->status.conditions, "Ready")->status == "True";
      if (member && member->synced() && ready) {
        view.observed = true;
        // The newest ReplicaSet of the member Deployment Flotilla manages for this binding.
        std::string deploymentUid;
        if (auto d = member->deployments().store().get(key))
          deploymentUid = stringAt(objectAt(*d, "metadata"), "uid");
        std::string newest;
        int64_t newestRevision = -1;
        for (const auto& rs : member->replicaSets().store().byIndex(kBindingHashIndex, hash)) {
          if (deploymentUid.empty() || controllerUid(*rs) != deploymentUid) continue;
          const int64_t revision = revisionOf(*rs);
          if (revision > newestRevision) {
            newestRevision = revision;
            newest = stringAt(objectAt(*rs, "metadata"), "uid");
          }
        }
        int64_t waitingForNode = 0;
        for (const auto& o : member->pods().store().byIndex(kBindingHashIndex, hash)) {
          auto pod = fromObject<api::Pod>(o);
          if (!pod || pod->metadata.deletionTimestamp) continue;
          std::string owner;
          for (const auto& r : pod->metadata.ownerReferences)
            if (r.controller.value_or(false)) owner = r.uid;
          if (owner.empty() || owner != newest) continue;
          if (pod->spec.nodeName.empty()) ++waitingForNode;
          PodView pv;
          for (const auto& c : pod->status.conditions) {
            if (c.type != "PodScheduled" || c.status != "False" || c.reason != "Unschedulable")
              continue;
            if (auto since = api::parseRfc3339(c.lastTransitionTime)) {
              pv.unschedulable = true;
              pv.since = *since;
            }
          }
          view.pods.push_back(pv);
        }
        if (view.availableReplicas) *view.availableReplicas += waitingForNode;
      }
      views.push_back(std::move(view));
    }
    decision = decide(rb->status.autoMigration, views, *settings, now);
  }
  // Off (no policy autoMigration): whatever estimates there were go.
  const std::optional<api::AutoMigrationStatus>& want = decision.status;
  if (want != rb->status.autoMigration) {
    auto written = writeStatus(
        host_, executor_, resources::kResourceBindings, *cached,
        [&want](json::object& object) -> api::Result<bool> {
          auto& status = object["status"];
          if (!status.is_object()) status = json::object{};
          auto& s = status.as_object();
          if (!want) return s.erase("autoMigration") > 0;
          // Through the binding's codec (the one instantiated for nested types).
          api::ResourceBinding carrier;
          carrier.status.autoMigration = want;
          json::value next = api::encode(carrier).at("status").at("autoMigration");
          if (const auto* existing = s.if_contains("autoMigration"); existing && *existing == next)
            return false;
          s["autoMigration"] = std::move(next);
          return true;
        });
    if (!written) return written.error();
    std::string summary;
    if (want)
      for (const auto& [c, n] : want->estimatedCapacity)
        summary += (summary.empty() ? "" : " ") + c + "=" + std::to_string(n);
    log::info(kName, key,
              summary.empty() ? std::string("estimates lifted") : "estimated capacity " + summary);
  }
  kube::ReconcileResult result;
  // A little after the crossing, so the next look sees it crossed.
  if (decision.requeueAfter) result.requeueAfter = *decision.requeueAfter + milliseconds(200);
  return result;
}

}  // namespace flotilla::controllers::automigration
