// Codec instantiations for the Kubernetes objects Flotilla touches.
#include "api/codec_impl.h"
#include "api/describe.h"

namespace api = flotilla::api;
FLOTILLA_CODEC_INSTANTIATE(api::ObjectMeta);
FLOTILLA_CODEC_INSTANTIATE(api::LabelSelector);
FLOTILLA_CODEC_INSTANTIATE(api::Condition);
FLOTILLA_CODEC_INSTANTIATE(api::Status);
FLOTILLA_CODEC_INSTANTIATE(api::Taint);
FLOTILLA_CODEC_INSTANTIATE(api::Toleration);
FLOTILLA_CODEC_INSTANTIATE(api::ResourceList);
FLOTILLA_CODEC_INSTANTIATE(api::Pod);
FLOTILLA_CODEC_INSTANTIATE(api::PodTemplateSpec);
FLOTILLA_CODEC_INSTANTIATE(api::Node);
FLOTILLA_CODEC_INSTANTIATE(api::Secret);
FLOTILLA_CODEC_INSTANTIATE(api::Namespace);
FLOTILLA_CODEC_INSTANTIATE(api::Event);
FLOTILLA_CODEC_INSTANTIATE(api::Deployment);
FLOTILLA_CODEC_INSTANTIATE(api::DeploymentStatus);  // (the status controller reads only it)
FLOTILLA_CODEC_INSTANTIATE(api::ReplicaSet);
FLOTILLA_CODEC_INSTANTIATE(api::Lease);
FLOTILLA_CODEC_INSTANTIATE(api::AdmissionReview);
FLOTILLA_CODEC_INSTANTIATE(api::CustomResourceDefinition);
