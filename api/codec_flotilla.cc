// Codec instantiations for the flotilla.io/v1alpha1 kinds.
#include "api/codec_impl.h"
#include "api/describe.h"

namespace api = flotilla::api;
FLOTILLA_CODEC_INSTANTIATE(api::FederatedCluster);
FLOTILLA_CODEC_INSTANTIATE(api::PropagationPolicy);
FLOTILLA_CODEC_INSTANTIATE(api::ClusterPropagationPolicy);
FLOTILLA_CODEC_INSTANTIATE(api::OverridePolicy);
FLOTILLA_CODEC_INSTANTIATE(api::ClusterOverridePolicy);
FLOTILLA_CODEC_INSTANTIATE(api::FederatedDeployment);
FLOTILLA_CODEC_INSTANTIATE(api::ResourceBinding);
FLOTILLA_CODEC_INSTANTIATE(api::FederatedObject);
FLOTILLA_CODEC_INSTANTIATE(api::ClusterFederatedObject);
FLOTILLA_CODEC_INSTANTIATE(api::ClusterResourceBinding);
FLOTILLA_CODEC_INSTANTIATE(api::SchedulingProfile);
FLOTILLA_CODEC_INSTANTIATE(api::SchedulerExtender);
FLOTILLA_CODEC_INSTANTIATE(api::Placement);
// Status subresources are written on their own (the controllers' status writes).
FLOTILLA_CODEC_INSTANTIATE(api::FederatedClusterStatus);
FLOTILLA_CODEC_INSTANTIATE(api::FederatedDeploymentStatus);
FLOTILLA_CODEC_INSTANTIATE(api::ResourceBindingStatus);
FLOTILLA_CODEC_INSTANTIATE(api::FederatedObjectStatus);
