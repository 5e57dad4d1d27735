// Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), which kubectl's
// typed commands send (`kubectl create namespace|configmap|secret|deployment|token|role...`,
// `kubectl auth can-i`): the "k8s\0"
// envelope (runtime.Unknown) and the wire format of the few types those commands create, decoded
// to the JSON the rest of the server works with. Fields with their zero value are dropped, as the
// JSON encoding's omitempty would. Unknown fields are skipped.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

#include "api/result.h"

namespace flotilla::sim {

inline constexpr std::string_view kProtobufContentType = "application/vnd.kubernetes.protobuf";

// Namespace, ConfigMap, Secret, ServiceAccount (core/v1), Deployment (apps/v1), TokenRequest,
// SelfSubjectAccessReview and the rbac.authorization.k8s.io/v1 kinds. Other kinds: 415 with a
// message that says to use JSON or YAML (kubectl apply / create -f).
api::Result<boost::json::object> decodeKubernetesProtobuf(std::string_view body);

}  // namespace flotilla::sim
