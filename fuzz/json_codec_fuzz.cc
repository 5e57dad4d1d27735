// Every kind's JSON decoder, and what runs on a decoded object before Flotilla trusts it
// (defaults, validation): any bytes give a value or a field error, never a crash. A decoded
// object encodes to JSON that decodes again to the same encoding (no field lost or mangled).
#include <boost/json/serialize.hpp>

#include "api/core_types.h"
#include "api/flotilla_types.h"
#include "api/json_codec.h"
#include "api/object_validation.h"
#include "api/system_types.h"
#include "api/validation.h"
#include "fuzz/fuzz_check.h"

namespace api = flotilla::api;

namespace {

template <class T>
concept Validatable = requires(T t) {
  api::validate(t);
};
template <class T>
concept Defaultable = requires(T t) {
  api::setDefaults(t);
};

template <class T>
void roundTrip(const boost::json::value& json, const char* kind) {
  for (bool strict : {false, true}) {
    auto decoded = api::decode<T>(json, {.rejectUnknownFields = strict});
    if (!decoded) continue;
    const boost::json::value encoded = api::encode(*decoded);
    auto again = api::decode<T>(encoded, {.rejectUnknownFields = true});
    FUZZ_CHECK(again.has_value(), std::string(kind) + ": its own encoding does not decode: " +
                                      (again ? "" : again.error().message));
    FUZZ_CHECK(api::encode(*again) == encoded,
               std::string(kind) +
                   ": encoding changed on a round trip: " + boost::json::serialize(encoded));
    T copy = *decoded;
    if constexpr (Defaultable<T>) api::setDefaults(copy);
    if constexpr (Validatable<T>) (void)api::validate(copy);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto json = api::parseJson(flotilla::fuzz::text(data, size));
  if (!json) return 0;
  (void)api::validateObject(*json);
  roundTrip<api::ObjectMeta>(*json, "ObjectMeta");
  roundTrip<api::LabelSelector>(*json, "LabelSelector");
  roundTrip<api::Condition>(*json, "Condition");
  roundTrip<api::Status>(*json, "Status");
  roundTrip<api::Taint>(*json, "Taint");
  roundTrip<api::Toleration>(*json, "Toleration");
  roundTrip<api::ResourceList>(*json, "ResourceList");
  roundTrip<api::Pod>(*json, "Pod");
  roundTrip<api::Node>(*json, "Node");
  roundTrip<api::Secret>(*json, "Secret");
  roundTrip<api::Namespace>(*json, "Namespace");
  roundTrip<api::Event>(*json, "Event");
  roundTrip<api::Deployment>(*json, "Deployment");
  roundTrip<api::ReplicaSet>(*json, "ReplicaSet");
  roundTrip<api::Lease>(*json, "Lease");
  roundTrip<api::AdmissionReview>(*json, "AdmissionReview");
  roundTrip<api::CustomResourceDefinition>(*json, "CustomResourceDefinition");
  roundTrip<api::FederatedCluster>(*json, "FederatedCluster");
  roundTrip<api::PropagationPolicy>(*json, "PropagationPolicy");
  roundTrip<api::ClusterPropagationPolicy>(*json, "ClusterPropagationPolicy");
  roundTrip<api::FederatedDeployment>(*json, "FederatedDeployment");
  roundTrip<api::ResourceBinding>(*json, "ResourceBinding");
  roundTrip<api::FederatedObject>(*json, "FederatedObject");
  roundTrip<api::ClusterFederatedObject>(*json, "ClusterFederatedObject");
  roundTrip<api::ClusterResourceBinding>(*json, "ClusterResourceBinding");
  roundTrip<api::SchedulingProfile>(*json, "SchedulingProfile");
  roundTrip<api::SchedulerExtender>(*json, "SchedulerExtender");
  roundTrip<api::Placement>(*json, "Placement");
  return 0;
}
