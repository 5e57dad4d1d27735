// Kubernetes name rules (k8s.io/apimachinery/pkg/util/validation).
#pragma once

#include <string>
#include <string_view>

namespace flotilla::api {

// RFC 1123 label: <=63 chars, [a-z0-9-], alphanumeric at both ends.
bool isDns1123Label(std::string_view s);
// Whether an API group is one Kubernetes itself serves (core, apps, batch, policy, autoscaling,
// *.k8s.io), as opposed to a custom resource's.
bool kubernetesGroup(std::string_view group);
// Whether kube-apiserver itself serves the group (core, apps, batch, rbac.authorization.k8s.io,
// networking.k8s.io, ...), as opposed to a CustomResourceDefinition or an aggregated API: a
// CRD-defined group may end in .k8s.io too (gateway.networking.k8s.io, snapshot.storage.k8s.io).
bool builtInGroup(std::string_view group);
// RFC 1123 subdomain: <=253 chars, dot-separated labels of [a-z0-9-] (the rule for most names).
bool isDns1123Subdomain(std::string_view s);
// The message Kubernetes prints for a bad subdomain / label name.
std::string dns1123SubdomainMessage(std::string_view s);
std::string dns1123LabelMessage(std::string_view s);

}  // namespace flotilla::api
