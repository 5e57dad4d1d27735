// Defaulting of built-in objects as kube-apiserver applies it on every write, before admission
// (the SetDefaults_* functions of k8s.io/kubernetes/pkg/apis/*/v1 and what decoding always
// serializes), and the built-in admission plugins that mutate pods (DefaultTolerationSeconds,
// Priority, ServiceAccount). Checked rule by rule against kube-apiserver v1.24; the list is in
// docs/sim.md ("Defaulting").
//
// Defaults are pure and idempotent: defaulting a defaulted object changes nothing, so a client
// that writes back what it wants (without the defaults) makes no change and no new
// resourceVersion.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <string_view>

namespace flotilla::sim {

// The defaults of one built-in resource ("apps"/"deployments", "apps"/"replicasets", ""/"pods",
// ""/"secrets", ""/"services"), in place. Other resources are left alone.
void applyDefaults(std::string_view group, std::string_view resource, boost::json::object& object);
// The labels of a Job's selector and pods (v1.27+ sets both the prefixed and the legacy ones).
inline constexpr const char* kJobNameLabel = "batch.kubernetes.io/job-name";
inline constexpr const char* kLegacyJobNameLabel = "job-name";
inline constexpr const char* kControllerUidLabel = "batch.kubernetes.io/controller-uid";
inline constexpr const char* kLegacyControllerUidLabel = "controller-uid";

// The Job strategy's generated selector (create, unless spec.manualSelector): the pod template
// gets the job-name and controller-uid labels (both forms, those the user set are kept) and
// spec.selector.matchLabels the prefixed controller-uid. Needs metadata.name and uid.
void generateJobSelector(boost::json::object& job);
// An update that leaves out the generated selector or template labels keeps the old ones (both
// are immutable on a real server, which rejects such an update instead).
void keepJobSelector(boost::json::object& job, const boost::json::object& old);

// The minor version of a gitVersion ("v1.26.3" -> 26); 0 when it cannot be read.
int minorVersionOf(std::string_view gitVersion);
// What an API server of that minor version drops because its feature gate is off: a StatefulSet's
// spec.ordinals before v1.27 (StatefulSetStartOrdinal).
void dropDisabledFields(std::string_view group, std::string_view resource,
                        boost::json::object& object, int minorVersion);

// What kube-apiserver allocates for a Service: clusterIP(s) and ipFamilies (not for
// ExternalName), nodePorts (NodePort; LoadBalancer unless allocateLoadBalancerNodePorts is
// false), healthCheckNodePort (LoadBalancer with externalTrafficPolicy Local). An update that
// leaves them out keeps the old object's (`old`: null on create). `salt` varies the values
// between API servers.
void allocateService(boost::json::object& service, const boost::json::object* old,
                     uint32_t salt = 0);

// The parts shared by every pod template and pod (SetDefaults_PodSpec and what it reaches:
// containers, ports, probes, env, volumes).
void defaultPodSpec(boost::json::object& spec);

// What the built-in mutating admission plugins do to a pod on create (`old` null) and update:
// the not-ready/unreachable NoExecute tolerations (300 s), priority 0 and preemptionPolicy
// PreemptLowerPriority (no PriorityClass), serviceAccountName "default". On update, values the
// new pod leaves out are kept from the old one, as the plugins keep them.
void admitPod(boost::json::object& pod, const boost::json::object* old);

// status.qosClass from the containers' cpu and memory requests and limits: Guaranteed,
// Burstable or BestEffort (k8s.io/kubernetes/pkg/apis/core/helper/qos).
std::string podQosClass(const boost::json::object& pod);

}  // namespace flotilla::sim
