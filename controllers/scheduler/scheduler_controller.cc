#include "controllers/scheduler/scheduler_controller.h"

#include <boost/json/serialize.hpp>

#include "api/conditions.h"
#include "api/duration.h"
#include "api/json_codec.h"
#include "controllers/common/await.h"
#include "controllers/common/cluster_events.h"
#include "controllers/common/log.h"
#include "controllers/common/status_write.h"
#include "controllers/common/typed.h"
#include "controllers/scheduler/placement_status.h"
#include "controllers/scheduler/triggers.h"
#include "interpreter/interpreter.h"
#include "scheduler/extender/http_extender_client.h"
#include "scheduler/scheduler.h"

namespace flotilla::controllers::scheduler {

namespace fs = flotilla::scheduler;
namespace json = boost::json;
using namespace std::chrono;

namespace {

constexpr const char* kName = "scheduler";

struct PolicyView {
  std::string profile;
  bool keepUnschedulable = false;
  nanoseconds clusterNotReadyFor{0};
  bool failbackRebalance = true;
};

template <class T>
void readPolicy(const T& policy, PolicyView& view) {
  view.profile = policy.spec.schedulingProfile;
  if (policy.spec.autoMigration)
    view.keepUnschedulable = policy.spec.autoMigration->keepUnschedulableReplicas;
  if (policy.spec.failover && !policy.spec.failover->clusterNotReadyFor.empty()) {
    if (auto d = api::parseDuration(policy.spec.failover->clusterNotReadyFor))
      view.clusterNotReadyFor = *d;
  }
  if (policy.spec.failover) view.failbackRebalance = policy.spec.failover->failback != "Never";
}

// Sets the fields the scheduler owns (the Scheduled condition, schedulerObservedGeneration,
// lastScheduledTime, lastScheduleType, placementSummary, diagnosis) from `mine` on the binding
// object, leaving the other controllers' fields; false when nothing changes.
api::Result<bool> applySchedulerStatus(json::object& object,
                                       const api::ResourceBindingStatus& mine) {
  auto current = fromObject<api::ResourceBinding>(object);
  if (!current) return current.error();
  api::ResourceBindingStatus next = current->status;
  mergeSchedulerStatus(next, mine);
  const json::value status = api::encode(next);
  if (sameStatus(object, status)) return false;
  object["status"] = status;
  return true;
}

}  // namespace

struct SchedulerController::Fleet {
  std::vector<api::FederatedCluster> clusters;
  std::unique_ptr<fs::ClusterSnapshot> snapshot;
};

SchedulerController::SchedulerController(kube::RestClient& host,
                                         boost::asio::any_io_executor executor, Informers informers,
                                         kube::EventRecorder& events,
                                         SchedulerControllerOptions options)
    : host_(host),
      executor_(std::move(executor)),
      informers_(informers),
      events_(events),
      options_(std::move(options)),
      queue_(options_.clock ? *options_.clock : realClock_),
      latency_({0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}) {}

SchedulerController::~SchedulerController() { stop(); }

void SchedulerController::watch() {
  for (auto* informer : {&informers_.bindings, informers_.clusterBindings}) {
    if (!informer) continue;
    addBindingsByClusterIndex(*informer);
    kube::EventHandler bindings;
    // Every binding seen for the first time (created, or listed after a restart) gets one look:
    // decideSchedule finds nothing to do for those already scheduled (no write), and catches
    // those whose clusters failed while no operator was watching.
    // Read in place, not decoded: every binding event of the fleet comes through here.
    bindings.onAdd = [this](const kube::ObjectPtr& o) {
      if (api::unstructured::find(*o, {"metadata", "deletionTimestamp"})) return;
      const auto priority = api::unstructured::intAt(*o, {"spec", "priority"});
      queue_.add(kube::objectKey(*o), static_cast<int32_t>(priority.value_or(0)));
    };
    bindings.onUpdate = [this](const kube::ObjectPtr& before, const kube::ObjectPtr& after) {
      // Most updates are status writes (the sync's, the status controller's, this scheduler's
      // own): with the spec (generation), the deletion and the auto-migration estimates as they
      // were, no scheduling input changed (triggers.h), and nothing needs decoding.
      if (!schedulingInputsMayDiffer(*before, *after)) return;
      auto a = fromObject<api::ResourceBinding>(before);
      auto b = fromObject<api::ResourceBinding>(after);
      if (a && b && (schedulingInputsChanged(*a, *b) || observedGenerationLeftBehind(*a, *b)))
        queue_.add(kube::objectKey(*after), b->spec.priority);
    };
    bindings.onDelete = [this](const kube::ObjectPtr& o, bool) {
      queue_.remove(kube::objectKey(*o));
    };
    informer->addHandler(std::move(bindings));
  }

  kube::EventHandler clusters;
  clusters.onAdd = [this](const kube::ObjectPtr&) {
    ++fleetVersion_;
    queue_.moveAllToActiveOrBackoff();
  };
  clusters.onUpdate = [this](const kube::ObjectPtr& before, const kube::ObjectPtr& after) {
    ++fleetVersion_;
    // Decoded once per version (the next fleet() reuses them).
    auto a = decodedClusters_.get(before);
    auto b = decodedClusters_.get(after);
    if (!a || !b) return;
    if (clusterChangeMatters(**a, **b)) queue_.moveAllToActiveOrBackoff();
    if (placedBindingsAffected(**a, **b)) enqueueBindingsOn((*b)->metadata.name);
  };
  clusters.onDelete = [this](const kube::ObjectPtr& o, bool) {
    ++fleetVersion_;
    enqueueBindingsOn(kube::objectKey(*o));
  };
  informers_.clusters.addHandler(std::move(clusters));

  kube::EventHandler extenders;
  extenders.onAdd = [this](const kube::ObjectPtr&) { ++extenderVersion_; };
  extenders.onUpdate = [this](const kube::ObjectPtr&, const kube::ObjectPtr&) {
    ++extenderVersion_;
  };
  extenders.onDelete = [this](const kube::ObjectPtr&, bool) { ++extenderVersion_; };
  informers_.extenders.addHandler(std::move(extenders));
}

void SchedulerController::enqueueBindingsOn(const std::string& cluster) {
  for (const auto* informer : {&informers_.bindings, informers_.clusterBindings}) {
    if (!informer) continue;
    for (const auto& o : informer->store().byIndex(kBindingsByClusterIndex, cluster)) {
      int32_t priority = 0;
      if (auto rb = fromObject<api::ResourceBinding>(o)) priority = rb->spec.priority;
      queue_.add(kube::objectKey(*o), priority);
    }
  }
}

const kube::SharedInformer& SchedulerController::bindingsOf(const std::string& key) const {
  return clusterScopedKey(key) && informers_.clusterBindings ? *informers_.clusterBindings
                                                             : informers_.bindings;
}

void SchedulerController::addAfter(const std::string& key, int32_t priority,
                                   std::chrono::nanoseconds delay) {
  std::lock_guard lock(delayedMutex_);
  delayed_.emplace(steady_clock::now() + delay, std::make_pair(key, priority));
}

void SchedulerController::addDue() {
  std::vector<std::pair<std::string, int32_t>> due;
  {
    std::lock_guard lock(delayedMutex_);
    const auto now = steady_clock::now();
    while (!delayed_.empty() && delayed_.begin()->first <= now) {
      due.push_back(std::move(delayed_.begin()->second));
      delayed_.erase(delayed_.begin());
    }
  }
  for (const auto& [key, priority] : due) queue_.add(key, priority);
}

void SchedulerController::start() {
  std::lock_guard lock(stopMutex_);
  if (started_) return;
  started_ = true;
  for (int i = 0; i < std::max(1, options_.workers); ++i)
    threads_.emplace_back([this] { worker(); });
  threads_.emplace_back([this] { ticker(); });
}

void SchedulerController::stop() {
  {
    std::lock_guard lock(stopMutex_);
    if (stopping_) return;
    stopping_ = true;
  }
  stopWake_.notify_all();
  queue_.close();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void SchedulerController::ticker() {
  std::unique_lock lock(stopMutex_);
  while (!stopping_) {
    stopWake_.wait_for(lock, seconds(1));
    if (stopping_) break;
    lock.unlock();
    queue_.tick();
    addDue();
    lock.lock();
  }
}

void SchedulerController::worker() {
  while (auto item = queue_.pop()) {
    Outcome outcome = Outcome::kError;
    try {
      outcome = scheduleOne(item->key);
    } catch (const std::exception& e) {
      log::error(kName, item->key, std::string("scheduling threw: ") + e.what());
    }
    if (outcome == Outcome::kNothing || outcome == Outcome::kScheduled) {
      queue_.done(*item);
    } else if (outcome == Outcome::kError) {
      queue_.addBackoff(*item);
    } else {
      queue_.addUnschedulable(*item);
    }
  }
}

std::shared_ptr<const SchedulerController::Fleet> SchedulerController::fleet() {
  const uint64_t version = fleetVersion_.load();
  std::lock_guard lock(cacheMutex_);
  if (fleet_ && builtFleetVersion_ == version) return fleet_;
  auto built = std::make_shared<Fleet>();
  for (const auto& o : informers_.clusters.store().list()) {
    // Rebuilt whenever any cluster changes (its status, every few seconds per cluster at 100
    // members): only the changed ones are decoded again.
    if (auto c = decodedClusters_.get(o)) built->clusters.push_back(**c);
  }
  built->snapshot = std::make_unique<fs::ClusterSnapshot>(built->clusters);
  fleet_ = std::move(built);
  builtFleetVersion_ = version;
  return fleet_;
}

api::Result<fs::Profile> SchedulerController::profileFor(const std::string& name) {
  if (name.empty()) return fs::defaultProfile();
  auto object = informers_.profiles.store().get(name);
  if (!object) {
    return api::Error{
        api::reason::kNotFound, 404, "SchedulingProfile \"" + name + "\" does not exist", {}};
  }
  auto profile = fromObject<api::SchedulingProfile>(object);
  if (!profile) return profile.error();
  auto built = fs::buildProfile(*profile);
  if (!built) {
    return api::Error{built.error().reason, built.error().code,
                      "SchedulingProfile \"" + name + "\" is invalid: " + built.error().message,
                      built.error().causes};
  }
  return built;
}

std::shared_ptr<fs::ExtenderClient> SchedulerController::extenders(std::string* error) {
  const uint64_t version = extenderVersion_.load();
  std::lock_guard lock(cacheMutex_);
  if (builtExtenderVersion_ != version) {
    builtExtenderVersion_ = version;
    extenderClient_.reset();
    extenderError_.clear();
    std::vector<api::SchedulerExtender> list;
    for (const auto& o : informers_.extenders.store().list()) {
      if (auto e = fromObject<api::SchedulerExtender>(o)) list.push_back(std::move(*e));
    }
    if (!list.empty()) {
      auto configs = fs::extenderConfigs(list);
      if (!configs) {
        extenderError_ = configs.error().message;
      } else {
        auto client = fs::HttpExtenderClient::create(std::move(*configs));
        if (!client)
          extenderError_ = client.error().message;
        else
          extenderClient_ = std::shared_ptr<fs::ExtenderClient>(std::move(*client));
      }
    }
  }
  *error = extenderError_;
  return extenderClient_;
}

SchedulerController::Outcome SchedulerController::scheduleOne(const std::string& key) {
  const auto cached = bindingsOf(key).store().get(key);
  if (!cached) return Outcome::kNothing;
  const kube::ResourceId& bindingResource = bindingResourceOf(key);
  auto decoded = fromObject<api::ResourceBinding>(cached);
  if (!decoded) {
    log::error(kName, key, "cannot decode: " + decoded.error().message);
    return Outcome::kNothing;
  }
  const api::ResourceBinding& rb = *decoded;
  if (rb.metadata.deletionTimestamp) return Outcome::kNothing;
  // A binding without a policy is a follower's (docs/design.md §12): it goes where its workloads
  // are (spec.requiredBy), or nowhere once none needs it. It is never placed by the scheduler,
  // which would place it everywhere (no affinity).
  if (rb.spec.policy.name.empty()) return Outcome::kNothing;
  const auto started = steady_clock::now();
  const auto now = options_.wallClock();

  PolicyView policy;
  policy.clusterNotReadyFor = options_.defaultClusterNotReadyFor;
  const auto& ref = rb.spec.policy;
  if (ref.kind == "ClusterPropagationPolicy") {
    if (auto o = informers_.clusterPolicies.store().get(ref.name))
      if (auto p = fromObject<api::ClusterPropagationPolicy>(o)) readPolicy(*p, policy);
  } else if (!ref.name.empty()) {
    const std::string ns = ref.namespace_.empty() ? rb.metadata.namespace_ : ref.namespace_;
    if (auto o = informers_.policies.store().get(ns + "/" + ref.name))
      if (auto p = fromObject<api::PropagationPolicy>(o)) readPolicy(*p, policy);
  }
  if (policy.clusterNotReadyFor <= nanoseconds(0))
    policy.clusterNotReadyFor = options_.defaultClusterNotReadyFor;
  fs::FailoverPolicy failover{policy.clusterNotReadyFor, policy.failbackRebalance, {}};
  // A kind whose copies finish (a Job): a cluster whose part finished is not failed over.
  if (interpreter::Registry::builtIn()
          .of(rb.spec.resource.apiVersion, rb.spec.resource.kind)
          .finishes())
    for (const auto& item : rb.status.aggregatedStatus)
      if (item.health == "Healthy") failover.finished.insert(item.clusterName);

  const auto fleetNow = fleet();
  std::optional<fs::ScheduleRecord> last;
  if (auto it = rb.metadata.annotations.find(fs::kScheduleRecordAnnotation);
      it != rb.metadata.annotations.end())
    last = fs::decodeRecord(it->second);
  const auto decision = fs::decideSchedule(rb, last, fleetNow->clusters, now, failover);
  if (decision.type == fs::ScheduleType::kNone) {
    // The placement is current but its status may not be (placement_status.h).
    if (repairedStatus(rb, last, now)) {
      // Decided again on the object being written: after a 409 the fresh binding may already
      // carry the status (the sync's pass, placement_status.h), which is then left as it is.
      auto written = writeStatus(host_, executor_, bindingResource, *cached,
                                 [&](json::object& object) -> api::Result<bool> {
                                   auto current = fromObject<api::ResourceBinding>(object);
                                   if (!current) return current.error();
                                   const auto repaired = repairedStatus(*current, last, now);
                                   if (!repaired) return false;
                                   return applySchedulerStatus(object, *repaired);
                                 });
      if (!written) return Outcome::kError;
    }
    // A target cluster that is not ready yet, within the policy's grace: look again when the
    // grace runs out.
    const auto soonest = graceLeft(rb, fleetNow->clusters, policy.clusterNotReadyFor, now);
    if (soonest) addAfter(key, rb.spec.priority, *soonest + milliseconds(500));
    return Outcome::kNothing;
  }
  const std::string type = fs::scheduleTypeName(decision.type);

  fs::ScheduleResult result;
  auto profile = profileFor(policy.profile);
  std::string extenderError;
  auto extenderClient = extenders(&extenderError);
  if (!profile) {
    result.outcome = fs::ScheduleResult::Outcome::kError;
    result.message = profile.error().message;
  } else if (!extenderError.empty()) {
    result.outcome = fs::ScheduleResult::Outcome::kError;
    result.message = "scheduler extenders: " + extenderError;
  } else {
    auto unit = fs::unitFromBinding(rb, policy.keepUnschedulable);
    for (const auto& failed : decision.failedClusters) unit.currentReplicas.erase(failed);
    unit.rebalance = decision.rebalance;
    fs::ScheduleOptions scheduleOptions;
    scheduleOptions.extenders = extenderClient.get();
    result = fs::scheduleUnit(*profile, unit, *fleetNow->snapshot, scheduleOptions);
  }

  api::ResourceBinding updated = fs::applyScheduleResult(rb, result, decision, now);
  json::object latest = *cached;
  const bool specChanged = updated.spec.clusters != rb.spec.clusters ||
                           updated.metadata.annotations != rb.metadata.annotations;
  if (specChanged) {
    auto object = toObject(updated);
    object.erase("status");
    object["kind"] = bindingResource.kind;
    auto written = await(executor_, host_.update(bindingResource, object));
    if (!written) {
      log::warn(kName, key, "writing the placement failed: " + written.error().message);
      return Outcome::kError;
    }
    latest = std::move(*written);
    // Our own write moved the generation; the result describes that generation.
    int64_t generation = updated.metadata.generation;
    if (const auto* m = latest.if_contains("metadata"); m && m->is_object())
      if (const auto* g = m->as_object().if_contains("generation"); g && g->is_int64())
        generation = g->as_int64();
    if (result.ok()) {
      updated.status.schedulerObservedGeneration = generation;
      for (auto& c : updated.status.conditions)
        if (c.type == "Scheduled") c.observedGeneration = generation;
    }
  }
  // (Not when a status was ever written, a Scheduled=False of an earlier attempt included: only
  // the scheduler replaces it; nor with a diagnosis, which only this result knows.)
  if (result.ok() && specChanged && decision.type == fs::ScheduleType::kFirst &&
      !api::findCondition(rb.status.conditions, "Scheduled") && updated.status.diagnosis.empty() &&
      options_.firstStatusGrace.count() > 0) {
    // A first placement: the sync controller's status pass, which this write brings at once,
    // carries its status (firstPlacementStatus); if none did within the grace, the look then
    // writes it (repairedStatus above).
    addAfter(key, rb.spec.priority, options_.firstStatusGrace);
  } else {
    // The scheduler's status fields, applied to a fresh binding if the sync or status controller
    // wrote in between (the spec above is already written: losing this write would leave a
    // placed binding without its Scheduled condition).
    const api::ResourceBindingStatus mine = updated.status;
    auto written = writeStatus(host_, executor_, bindingResource, latest,
                               [&mine](json::object& object) -> api::Result<bool> {
                                 return applySchedulerStatus(object, mine);
                               });
    if (!written) {
      log::warn(kName, key, "writing the status failed: " + written.error().message);
      return Outcome::kError;
    }
  }
  const double seconds = duration<double>(steady_clock::now() - started).count();
  latency_.observe(seconds);
  {
    std::lock_guard lock(metricsMutex_);
    ++attempts_[{
        result.ok()
            ? "scheduled"
            : (result.outcome == fs::ScheduleResult::Outcome::kError ? "error" : "unschedulable"),
        type}];
  }
  if (result.ok()) {
    const std::string summary = fs::placementSummary(result.placement);
    events_.event(involved(rb), "Normal", "Scheduled", type + ": " + summary);
    log::info(kName, key, type + ": " + summary);
    return Outcome::kScheduled;
  }
  events_.event(involved(rb), "Warning", "FailedScheduling", result.message);
  log::info(kName, key, type + " failed: " + result.message);
  return Outcome::kFailed;
}

void SchedulerController::collectMetrics(kube::MetricsWriter& w) const {
  const auto depths = queue_.depths();
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, size_t>>{{"active", depths.active},
                                                   {"backoff", depths.backoff},
                                                   {"unschedulable", depths.unschedulable},
                                                   {"inflight", depths.inFlight}}) {
    w.gauge("flotilla_scheduler_queue_depth", "Bindings in each scheduling sub-queue.",
            {{"queue", name}}, static_cast<double>(value));
  }
  {
    std::lock_guard lock(metricsMutex_);
    for (const auto& [k, v] : attempts_) {
      w.counter("flotilla_scheduler_schedule_attempts_total",
                "Scheduling attempts by result and schedule type.",
                {{"result", k.first}, {"type", k.second}}, static_cast<double>(v));
    }
  }
  latency_.write(w, "flotilla_scheduler_scheduling_duration_seconds",
                 "Time from taking a binding off the queue to its result written.", {});
}

}  // namespace flotilla::controllers::scheduler
