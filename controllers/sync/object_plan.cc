#include "controllers/sync/object_plan.h"

#include "api/unstructured.h"
#include "controllers/common/managed.h"
#include "controllers/sync/member_object.h"

namespace flotilla::controllers::sync {

namespace json = boost::json;
namespace u = api::unstructured;

api::Result<json::object> desiredMemberObject(const api::FederatedObject& fo,
                                              const interpreter::Interpreter& interpreter,
                                              const std::string& bindingKey,
                                              const std::string& cluster,
                                              std::optional<int32_t> replicas,
                                              const std::string& hostId, bool adopted) {
  json::object object = fo.spec.template_;
  if (replicas && interpreter.divisible()) interpreter.reviseReplicas(object, *replicas);
  const std::string apiVersion = u::stringAt(object, {"apiVersion"});
  const std::string kind = u::stringAt(object, {"kind"});
  const std::string name = u::stringAt(object, {"metadata", "name"});
  const std::string ns = u::stringAt(object, {"metadata", "namespace"});
  auto overridden = applyOverrides(std::move(object), fo.spec.overrides, cluster);
  if (!overridden) return overridden.error();
  json::object result = std::move(*overridden);
  // What overrides must not change: the object's identity.
  result["apiVersion"] = apiVersion;
  result["kind"] = kind;
  auto& meta = u::ensureObject(result, {"metadata"});
  meta["name"] = name;
  if (ns.empty()) {
    meta.erase("namespace");
  } else {
    meta["namespace"] = ns;
  }
  if (adopted) u::ensureObject(meta, {"annotations"})[kAdoptedAnnotation] = "true";
  const auto generation = fo.metadata.annotations.find(kSourceGenerationAnnotation);
  markMemberObject(result, bindingKey, cluster, hostId,
                   generation == fo.metadata.annotations.end() ? "" : generation->second);
  return result;
}

bool adopted(const json::object& live) {
  return u::stringAt(live, {"metadata", "annotations", kAdoptedAnnotation}) == "true";
}

MemberPlan planMember(const MemberInput& in) {
  MemberPlan out;
  const bool ours = in.live && managedFor(*in.live, in.bindingKey, in.hostId);
  if (!in.targeted) {
    if (ours && !adopted(*in.live)) out.step = MemberStep::kDelete;
    return out;
  }
  if (!in.live) {
    out.step = MemberStep::kApply;
    return out;
  }
  if (!ours) {
    const std::string owner = managingBinding(*in.live, in.hostId);
    // Adopt takes over what no Flotilla manages, never another binding's or another host's copy.
    const bool anotherFlotilla =
        !owner.empty() || u::stringAt(*in.live, {"metadata", "labels", kManagedByLabel}) ==
                              kManagedByValue;
    if (in.adoptAllowed && !anotherFlotilla) {
      out.step = MemberStep::kApply;
      out.adopt = true;
      return out;
    }
    out.step = MemberStep::kConflict;
    out.message = anotherFlotilla
                      ? "an object of that name is managed by Flotilla for " +
                            (owner.empty() ? std::string("another host or binding")
                                           : "binding " + owner) +
                            "; leaving it untouched"
                      : "an object of that name exists and Flotilla does not manage it; leaving "
                        "it untouched (conflictResolution: Adopt in the policy takes it over)";
    return out;
  }
  if (in.desired && !difference(json::value(*in.live), json::value(*in.desired)).empty())
    out.step = MemberStep::kApply;
  return out;
}

}  // namespace flotilla::controllers::sync
