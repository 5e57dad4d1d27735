#include "sim/server/table.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <set>

#include "api/time.h"
#include "sim/server/events.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

// One step of a path: a field name, an index, or a filter [?(@.key=="value")].
struct Step {
  enum class Kind { kField, kIndex, kFilter } kind;
  std::string field;
  size_t index = 0;
  std::string filterKey;
  std::string filterValue;
};

std::optional<std::vector<Step>> parsePath(std::string_view path) {
  std::vector<Step> steps;
  if (!path.empty() && path.front() == '{' && path.back() == '}')
    path = path.substr(1, path.size() - 2);
  size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
      size_t end = i;
      while (end < path.size() && path[end] != '.' && path[end] != '[') ++end;
      if (end == i) return std::nullopt;
      steps.push_back({Step::Kind::kField, std::string(path.substr(i, end - i))});
      i = end;
    } else if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inside = path.substr(i + 1, close - i - 1);
      if (inside.starts_with("?(@.") && inside.ends_with(")")) {
        std::string_view cond = inside.substr(4, inside.size() - 5);
        const size_t eq = cond.find("==");
        if (eq == std::string_view::npos) return std::nullopt;
        std::string_view value = cond.substr(eq + 2);
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
          value = value.substr(1, value.size() - 2);
        Step s{Step::Kind::kFilter};
        s.filterKey = std::string(cond.substr(0, eq));
        s.filterValue = std::string(value);
        steps.push_back(std::move(s));
      } else if (inside == "*") {
        // kube-apiserver's printer columns print the first of several results.
        Step s{Step::Kind::kIndex};
        s.index = 0;
        steps.push_back(std::move(s));
      } else {
        size_t n = 0;
        for (char c : inside) {
          if (c < '0' || c > '9') return std::nullopt;
          n = n * 10 + static_cast<size_t>(c - '0');
        }
        Step s{Step::Kind::kIndex};
        s.index = n;
        steps.push_back(std::move(s));
      }
      i = close + 1;
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

std::string cellText(const json::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_null()) return "";
  return json::serialize(v);
}

}  // namespace

std::optional<json::value> evalJsonPath(const json::value& root, std::string_view path) {
  auto steps = parsePath(path);
  if (!steps) return std::nullopt;
  const json::value* current = &root;
  for (const auto& step : *steps) {
    if (step.kind == Step::Kind::kField) {
      if (step.field == "length" && current->is_array())
        return json::value(static_cast<int64_t>(current->as_array().size()));
      const auto* o = current->if_object();
      const json::value* next = o ? o->if_contains(step.field) : nullptr;
      if (!next) return std::nullopt;
      current = next;
    } else if (step.kind == Step::Kind::kIndex) {
      const auto* a = current->if_array();
      if (!a || step.index >= a->size()) return std::nullopt;
      current = &(*a)[step.index];
    } else {
      const auto* a = current->if_array();
      if (!a) return std::nullopt;
      const json::value* match = nullptr;
      for (const auto& item : *a) {
        const auto* o = item.if_object();
        const auto* v = o ? o->if_contains(step.filterKey) : nullptr;
        if (v && cellText(*v) == step.filterValue) {
          match = &item;
          break;
        }
      }
      if (!match) return std::nullopt;
      current = match;
    }
  }
  return *current;
}

std::string humanDuration(std::chrono::seconds age) {
  // A clock a second ahead still reads as now; more is "<invalid>", as in kube.
  if (age.count() < -1) return "<invalid>";
  const int64_t s = std::max<int64_t>(age.count(), 0);
  if (s < 120) return std::to_string(s) + "s";
  const int64_t m = s / 60;
  if (m < 10) return std::to_string(m) + "m" + (s % 60 ? std::to_string(s % 60) + "s" : "");
  if (m < 180) return std::to_string(m) + "m";
  const int64_t h = m / 60;
  if (h < 8) return std::to_string(h) + "h" + (m % 60 ? std::to_string(m % 60) + "m" : "");
  if (h < 48) return std::to_string(h) + "h";
  const int64_t d = h / 24;
  if (d < 8) return std::to_string(d) + "d" + (h % 24 ? std::to_string(h % 24) + "h" : "");
  if (d < 730) return std::to_string(d) + "d";
  const int64_t y = d / 365;
  if (y < 8) return std::to_string(y) + "y" + (d % 365 ? std::to_string(d % 365) + "d" : "");
  return std::to_string(y) + "y";
}

namespace {

// One column of a built-in resource's Table, as kube-apiserver defines it.
struct Column {
  const char* name;
  const char* type;
  const char* format;
  int priority;
  const char* description;
};

// Column definitions as kube-apiserver v1.24 returns them (names, types, formats, priorities,
// descriptions), taken from a real server's Table responses.
const char* const kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some "
    "resources may allow a client to request the generation of an appropriate name automatically. "
    "Name is primarily intended for creation idempotence and configuration definition. Cannot be "
    "updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names";
const char* const kD1 = "The status of the namespace";
const char* const kAgeDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was created. "
    "It is not guaranteed to be set in happens-before order across separate operations. Clients "
    "may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the "
    "system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const char* const kD3 =
    "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', "
    "'_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys "
    "stored in Data must not overlap with the keys in the BinaryData field, this is enforced "
    "during validation process.";
const char* const kD4 =
    "Used to facilitate programmatic handling of secret data. More info: "
    "https://kubernetes.io/docs/concepts/configuration/secret/#secret-types";
const char* const kD5 =
    "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or "
    "'.'. The serialized form of the secret data is a base64 encoded string, representing the "
    "arbitrary (possibly non-string) data value here. Described in "
    "https://tools.ietf.org/html/rfc4648#section-4";
const char* const kD6 =
    "type determines how the Service is exposed. Defaults to ClusterIP. Valid options are "
    "ExternalName, ClusterIP, NodePort, and LoadBalancer. \"ClusterIP\" allocates a "
    "cluster-internal IP address for load-balancing to endpoints. Endpoints are determined by the "
    "selector or if that is not specified, by manual construction of an Endpoints object or "
    "EndpointSlice objects. If clusterIP is \"None\", no virtual IP is allocated and the endpoints "
    "are published as a set of endpoints rather than a virtual IP. \"NodePort\" builds on "
    "ClusterIP and allocates a port on every node which routes to the same endpoints as the "
    "clusterIP. \"LoadBalancer\" builds on NodePort and creates an external load-balancer (if "
    "supported in the current cloud) which routes to the same endpoints as the clusterIP. "
    "\"ExternalName\" aliases this service to the specified externalName. Several other fields do "
    "not apply to ExternalName services. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/"
    "#publishing-services-service-types";
const char* const kD7 =
    "clusterIP is the IP address of the service and is usually assigned randomly. If an address is "
    "specified manually, is in-range (as per system configuration), and is not in use, it will be "
    "allocated to the service; otherwise creation of the service will fail. This field may not be "
    "changed through updates unless the type field is also being changed to ExternalName (which "
    "requires this field to be blank) or the type field is being changed from ExternalName (in "
    "which case this field may optionally be specified, as describe above).  Valid values are "
    "\"None\", empty string (\"\"), or a valid IP address. Setting this to \"None\" makes a "
    "\"headless service\" (no virtual IP), which is useful when direct endpoint connections are "
    "preferred and proxying is not required.  Only applies to types ClusterIP, NodePort, and "
    "LoadBalancer. If this field is specified when creating a Service of type ExternalName, "
    "creation will fail. This field will be wiped when updating a Service to type ExternalName. "
    "More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/"
    "#virtual-ips-and-service-proxies";
const char* const kD8 =
    "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic "
    "for this service.  These IPs are not managed by Kubernetes.  The user is responsible for "
    "ensuring that traffic arrives at a node with this IP.  A common example is external "
    "load-balancers that are not part of the Kubernetes system.";
const char* const kD9 =
    "The list of ports that are exposed by this service. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/"
    "#virtual-ips-and-service-proxies";
const char* const kD10 =
    "Route service traffic to pods with label keys and values matching this selector. If empty or "
    "not present, the service is assumed to have an external process managing its endpoints, which "
    "Kubernetes will not modify. Only applies to types ClusterIP, NodePort, and LoadBalancer. "
    "Ignored if type is ExternalName. More info: "
    "https://kubernetes.io/docs/concepts/services-networking/service/";
const char* const kD11 =
    "Secrets is the list of secrets allowed to be used by pods running using this ServiceAccount. "
    "More info: https://kubernetes.io/docs/concepts/configuration/secret";
const char* const kD12 = "The time at which the most recent occurrence of this event was recorded.";
const char* const kD13 =
    "Type of this event (Normal, Warning), new types could be added in the future";
const char* const kD14 =
    "This should be a short, machine understandable string that gives the reason for the "
    "transition into the object's current status.";
const char* const kD15 = "The object that this event is about.";
const char* const kD16 =
    "If referring to a piece of an object instead of an entire object, this string should contain "
    "a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For "
    "example, if the object reference is to a container within a pod, this would take on a value "
    "like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that "
    "triggered the event) or if no container name is specified \"spec.containers[2]\" (container "
    "with index 2 in this pod). This syntax is chosen only to have some well-defined way of "
    "referencing a part of an object.";
const char* const kD17 =
    "The component reporting this event. Should be a short machine understandable string.";
const char* const kD18 = "A human-readable description of the status of this operation.";
const char* const kD19 =
    "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)";
const char* const kD20 = "The number of times this event has occurred.";
const char* const kD21 = "The status of the node";
const char* const kD22 = "The roles of the node";
const char* const kD23 = "Kubelet Version reported by the node.";
const char* const kD24 =
    "List of addresses reachable to the node. Queried from cloud provider, if available. More "
    "info: https://kubernetes.io/docs/concepts/nodes/node/#addresses Note: This field is declared "
    "as mergeable, but the merge key is not sufficiently unique, which can cause data corruption "
    "when it is merged. Callers should instead use a full-replacement patch. See "
    "http://pr.k8s.io/79391 for an example.";
const char* const kD25 =
    "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).";
const char* const kD26 =
    "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).";
const char* const kD27 =
    "ContainerRuntime Version reported by the node through runtime remote API (e.g. "
    "docker://1.5.0).";
const char* const kD28 = "The aggregate readiness state of this pod for accepting traffic.";
const char* const kD29 = "The aggregate status of the containers in this pod.";
const char* const kD30 =
    "The number of times the containers in this pod have been restarted and when the last "
    "container in this pod has restarted.";
const char* const kD31 =
    "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet "
    "allocated.";
const char* const kD32 =
    "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the "
    "scheduler simply schedules this pod onto that node, assuming that it fits resource "
    "requirements.";
const char* const kD33 =
    "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be "
    "scheduled right away as preemption victims receive their graceful termination periods. This "
    "field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to "
    "place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to "
    "give the resources on this node to a higher priority pod that is created after preemption. As "
    "a result, this field may be different than PodSpec.nodeName when the pod is scheduled.";
const char* const kD34 =
    "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when "
    "all its containers are ready AND all conditions specified in the readiness gates have status "
    "equal to \"True\" More info: "
    "https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates";
const char* const kD35 = "Number of the pod with ready state";
const char* const kD36 =
    "Total number of non-terminated pods targeted by this deployment that have the desired "
    "template spec.";
const char* const kD37 =
    "Total number of available pods (ready for at least minReadySeconds) targeted by this "
    "deployment.";
const char* const kD38 = "Names of each container in the template.";
const char* const kD39 = "Images referenced by each container in the template.";
const char* const kD40 =
    "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the "
    "ones affected by this deployment.";
const char* const kD41 =
    "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit "
    "zero and unspecified. Defaults to 1. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
    "#what-is-a-replicationcontroller";
const char* const kD42 =
    "Replicas is the most recently oberved number of replicas. More info: "
    "https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller/"
    "#what-is-a-replicationcontroller";
const char* const kD43 = "The number of ready replicas for this replica set.";
const char* const kD44 =
    "Selector is a label query over pods that should match the replica count. If the selector is "
    "empty, it is defaulted to the labels present on the pod template. Label keys and values that "
    "must match in order to be controlled by this replica set. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors";
const char* const kD45 = "holderIdentity contains the identity of the holder of a current lease.";
const char* const kD46 =
    "Webhooks indicates the number of webhooks registered in this configuration";
const std::vector<Column> kNamespaceColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Status", "string", "", 0, kD1},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kConfigMapColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Data", "string", "", 0, kD3},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kSecretColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Type", "string", "", 0, kD4},
    {"Data", "string", "", 0, kD5},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kServiceColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Type", "string", "", 0, kD6},
    {"Cluster-IP", "string", "", 0, kD7},
    {"External-IP", "string", "", 0, kD8},
    {"Port(s)", "string", "", 0, kD9},
    {"Age", "string", "", 0, kAgeDescription},
    {"Selector", "string", "", 1, kD10},
};
const std::vector<Column> kServiceAccountColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Secrets", "string", "", 0, kD11},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kEventColumns = {
    {"Last Seen", "string", "", 0, kD12}, {"Type", "string", "", 0, kD13},
    {"Reason", "string", "", 0, kD14},    {"Object", "string", "", 0, kD15},
    {"Subobject", "string", "", 1, kD16}, {"Source", "string", "", 1, kD17},
    {"Message", "string", "", 0, kD18},   {"First Seen", "string", "", 1, kD19},
    {"Count", "string", "", 1, kD20},     {"Name", "string", "name", 1, kNameDescription},
};
const std::vector<Column> kNodeColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Status", "string", "", 0, kD21},
    {"Roles", "string", "", 0, kD22},
    {"Age", "string", "", 0, kAgeDescription},
    {"Version", "string", "", 0, kD23},
    {"Internal-IP", "string", "", 1, kD24},
    {"External-IP", "string", "", 1, kD24},
    {"OS-Image", "string", "", 1, kD25},
    {"Kernel-Version", "string", "", 1, kD26},
    {"Container-Runtime", "string", "", 1, kD27},
};
const std::vector<Column> kPodColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Ready", "string", "", 0, kD28},
    {"Status", "string", "", 0, kD29},
    {"Restarts", "string", "", 0, kD30},
    {"Age", "string", "", 0, kAgeDescription},
    {"IP", "string", "", 1, kD31},
    {"Node", "string", "", 1, kD32},
    {"Nominated Node", "string", "", 1, kD33},
    {"Readiness Gates", "string", "", 1, kD34},
};
const std::vector<Column> kDeploymentColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Ready", "string", "", 0, kD35},
    {"Up-to-date", "string", "", 0, kD36},
    {"Available", "string", "", 0, kD37},
    {"Age", "string", "", 0, kAgeDescription},
    {"Containers", "string", "", 1, kD38},
    {"Images", "string", "", 1, kD39},
    {"Selector", "string", "", 1, kD40},
};
const std::vector<Column> kReplicaSetColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Desired", "integer", "", 0, kD41},
    {"Current", "integer", "", 0, kD42},
    {"Ready", "integer", "", 0, kD43},
    {"Age", "string", "", 0, kAgeDescription},
    {"Containers", "string", "", 1, kD38},
    {"Images", "string", "", 1, kD39},
    {"Selector", "string", "", 1, kD44},
};
const char* const kContainersDescription = "Names of each container in the template.";
const char* const kImagesDescription = "Images referenced by each container in the template.";
const std::vector<Column> kStatefulSetColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Ready", "string", "", 0, "Number of the pod with ready state"},
    {"Age", "string", "", 0, kAgeDescription},
    {"Containers", "string", "", 1, kContainersDescription},
    {"Images", "string", "", 1, kImagesDescription},
};
const std::vector<Column> kDaemonSetColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Desired", "integer", "", 0,
     "The total number of nodes that should be running the daemon pod (including nodes correctly "
     "running the daemon pod)."},
    {"Current", "integer", "", 0,
     "The number of nodes that are running at least 1 daemon pod and are supposed to run the "
     "daemon pod."},
    {"Ready", "integer", "", 0,
     "The number of nodes that should be running the daemon pod and have one or more of the "
     "daemon pod running with a Ready Condition."},
    {"Up-to-date", "integer", "", 0,
     "The total number of nodes that are running updated daemon pod"},
    {"Available", "integer", "", 0,
     "The number of nodes that should be running the daemon pod and have one or more of the "
     "daemon pod running and available (ready for at least spec.minReadySeconds)"},
    {"Node Selector", "string", "", 0,
     "NodeSelector is a selector which must be true for the pod to fit on a node."},
    {"Age", "string", "", 0, kAgeDescription},
    {"Containers", "string", "", 1, kContainersDescription},
    {"Images", "string", "", 1, kImagesDescription},
    {"Selector", "string", "", 1, "A label query over pods that are managed by the daemon set."},
};
const std::vector<Column> kJobColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Status", "string", "", 0, "Status of the job."},
    {"Completions", "string", "", 0, "The number of pods which reached phase Succeeded."},
    {"Duration", "string", "", 0, "Time required to complete the job."},
    {"Age", "string", "", 0, kAgeDescription},
    {"Containers", "string", "", 1, kContainersDescription},
    {"Images", "string", "", 1, kImagesDescription},
    {"Selector", "string", "", 1, "A label query over pods that should match the pod count."},
};
const std::vector<Column> kCronJobColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Schedule", "string", "", 0, "The schedule in Cron format."},
    {"Timezone", "string", "", 0, "The time zone name for the given schedule."},
    {"Suspend", "boolean", "", 0,
     "This flag tells the controller to suspend subsequent executions."},
    {"Active", "integer", "", 0, "A list of pointers to currently running jobs."},
    {"Last Schedule", "string", "", 0,
     "Information when was the last time the job was successfully scheduled."},
    {"Age", "string", "", 0, kAgeDescription},
    {"Containers", "string", "", 1, kContainersDescription},
    {"Images", "string", "", 1, kImagesDescription},
    {"Selector", "string", "", 1, "A label query over pods that should match the pod count."},
};
const std::vector<Column> kHpaColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Reference", "string", "", 0,
     "scaleTargetRef points to the target resource to scale, and is used to the pods for which "
     "metrics should be collected, as well as to actually change the replica count."},
    {"Targets", "string", "", 0,
     "metrics contains the specifications for which to use to calculate the desired replica "
     "count."},
    {"MinPods", "string", "", 0,
     "minReplicas is the lower limit for the number of replicas to which the autoscaler can "
     "scale down."},
    {"MaxPods", "string", "", 0,
     "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale "
     "up."},
    {"Replicas", "string", "", 0,
     "currentReplicas is current number of replicas of pods managed by this autoscaler, as last "
     "seen by the autoscaler."},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kIngressColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Class", "string", "", 0,
     "The name of the IngressClass resource that should be used for this Ingress"},
    {"Hosts", "string", "", 0,
     "Hosts that incoming requests are matched against before the ingress rule"},
    {"Address", "string", "", 0,
     "Address is a list containing ingress points for the load-balancer"},
    {"Ports", "string", "", 0, "Ports of TLS configurations that open"},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kLeaseColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Holder", "string", "", 0, kD45},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kWebhookColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Webhooks", "integer", "", 0, kD46},
    {"Age", "string", "", 0, kAgeDescription},
};
const std::vector<Column> kCrdColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Created At", "date", "", 0, kAgeDescription},
};
const std::vector<Column> kRoleBindingColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Role", "string", "", 0,
     "RoleRef can reference a Role in the current namespace or a ClusterRole in the global "
     "namespace. If the RoleRef cannot be resolved, the Authorizer must return an error."},
    {"Age", "string", "", 0, kAgeDescription},
    {"Users", "string", "", 1, "Users in the roleBinding"},
    {"Groups", "string", "", 1, "Groups in the roleBinding"},
    {"ServiceAccounts", "string", "", 1, "ServiceAccounts in the roleBinding"},
};
const std::vector<Column> kClusterRoleBindingColumns = {
    {"Name", "string", "name", 0, kNameDescription},
    {"Role", "string", "", 0,
     "RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be "
     "resolved, the Authorizer must return an error."},
    {"Age", "string", "", 0, kAgeDescription},
    {"Users", "string", "", 1, "Users in the clusterRoleBinding"},
    {"Groups", "string", "", 1, "Groups in the clusterRoleBinding"},
    {"ServiceAccounts", "string", "", 1, "ServiceAccounts in the clusterRoleBinding"},
};

// ---- reading objects ----

const json::value* at(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::object* current = &o;
  const json::value* v = nullptr;
  for (auto key : path) {
    if (!current) return nullptr;
    v = current->if_contains(key);
    if (!v) return nullptr;
    current = v->if_object();
  }
  return v;
}

std::string str(const json::object& o, std::initializer_list<std::string_view> path) {
  const auto* v = at(o, path);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

int64_t integer(const json::object& o, std::initializer_list<std::string_view> path) {
  const auto* v = at(o, path);
  if (v && v->is_int64()) return v->as_int64();
  if (v && v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return 0;
}

const json::array& array(const json::object& o, std::initializer_list<std::string_view> path) {
  static const json::array kEmpty;
  const auto* v = at(o, path);
  return v && v->is_array() ? v->as_array() : kEmpty;
}

const json::object& object(const json::value& v) {
  static const json::object kEmpty;
  return v.is_object() ? v.as_object() : kEmpty;
}

size_t size(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v && v->is_object()) return v->as_object().size();
  if (v && v->is_array()) return v->as_array().size();
  return 0;
}

// translateTimestampSince: "<unknown>" for a missing time.
std::string since(const std::string& timestamp, std::chrono::system_clock::time_point now) {
  auto t = api::parseRfc3339(timestamp);
  if (!t) return "<unknown>";
  return humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string age(const json::object& o, std::chrono::system_clock::time_point now) {
  return since(str(o, {"metadata", "creationTimestamp"}), now);
}

std::string join(const std::vector<std::string>& parts, const char* separator = ",") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? separator : "") + parts[i];
  return out;
}

// labels.FormatLabels: "a=b,c=d" by key, "<none>" when empty.
std::string formatLabels(const json::object& o, std::initializer_list<std::string_view> path) {
  const auto* v = at(o, path);
  std::vector<std::string> parts;
  if (v && v->is_object()) {
    std::map<std::string, std::string> sorted;
    for (const auto& [k, value] : v->as_object())
      sorted[std::string(k)] = value.is_string() ? std::string(value.as_string()) : "";
    for (const auto& [k, value] : sorted) parts.push_back(k + "=" + value);
  }
  return parts.empty() ? "<none>" : join(parts);
}

// metav1.LabelSelectorAsSelector(...).String(): requirements sorted by key; matchLabels as
// "k=v", expressions as "k in (a,b)", "k notin (a)", "k", "!k".
std::string formatSelector(const json::object& o, std::initializer_list<std::string_view> path) {
  const auto* v = at(o, path);
  if (!v || !v->is_object()) return "";
  std::vector<std::pair<std::string, std::string>> requirements;
  if (const auto* labels = v->as_object().if_contains("matchLabels"); labels && labels->is_object())
    for (const auto& [k, value] : labels->as_object())
      requirements.emplace_back(
          std::string(k),
          std::string(k) + "=" + (value.is_string() ? std::string(value.as_string()) : ""));
  for (const auto& e : array(v->as_object(), {"matchExpressions"})) {
    const auto& expr = object(e);
    const std::string key = str(expr, {"key"});
    const std::string op = str(expr, {"operator"});
    std::vector<std::string> values;
    for (const auto& value : array(expr, {"values"}))
      if (value.is_string()) values.emplace_back(value.as_string());
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (op == "In") requirements.emplace_back(key, key + " in (" + join(values) + ")");
    if (op == "NotIn") requirements.emplace_back(key, key + " notin (" + join(values) + ")");
    if (op == "Exists") requirements.emplace_back(key, key);
    if (op == "DoesNotExist") requirements.emplace_back(key, "!" + key);
  }
  std::stable_sort(requirements.begin(), requirements.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> parts;
  parts.reserve(requirements.size());
  for (auto& [key, text] : requirements) parts.push_back(std::move(text));
  return join(parts);
}

// layoutContainerCells: names and images of the template's containers.
std::pair<std::string, std::string> containerCells(const json::object& spec) {
  std::vector<std::string> names, images;
  for (const auto& c : array(spec, {"containers"})) {
    names.push_back(str(object(c), {"name"}));
    images.push_back(str(object(c), {"image"}));
  }
  return {join(names), join(images)};
}

// ---- one printer per built-in kind (k8s.io/kubernetes/pkg/printers/internalversion) ----

using Clock = std::chrono::system_clock;
using Cells = json::array;

Cells namespaceCells(const json::object& o, Clock::time_point now) {
  return {json::value(str(o, {"status", "phase"})), json::value(age(o, now))};
}

Cells configMapCells(const json::object& o, Clock::time_point now) {
  return {json::value(static_cast<int64_t>(size(o, "data") + size(o, "binaryData"))),
          json::value(age(o, now))};
}

Cells secretCells(const json::object& o, Clock::time_point now) {
  return {json::value(str(o, {"type"})), json::value(static_cast<int64_t>(size(o, "data"))),
          json::value(age(o, now))};
}

Cells serviceAccountCells(const json::object& o, Clock::time_point now) {
  return {json::value(static_cast<int64_t>(size(o, "secrets"))), json::value(age(o, now))};
}

Cells leaseCells(const json::object& o, Clock::time_point now) {
  return {json::value(str(o, {"spec", "holderIdentity"})), json::value(age(o, now))};
}

Cells webhookCells(const json::object& o, Clock::time_point now) {
  return {json::value(static_cast<int64_t>(size(o, "webhooks"))), json::value(age(o, now))};
}

Cells crdCells(const json::object& o, Clock::time_point) {
  return {json::value(str(o, {"metadata", "creationTimestamp"}))};
}

// Role: kind/name; then users, groups and service accounts (namespace/name), each ", "-joined.
Cells bindingCells(const json::object& o, Clock::time_point now) {
  std::vector<std::string> users, groups, accounts;
  if (const auto* subjects = o.if_contains("subjects"); subjects && subjects->is_array()) {
    for (const auto& s : subjects->as_array()) {
      if (!s.is_object()) continue;
      const auto& subject = s.as_object();
      const std::string kind = str(subject, {"kind"});
      if (kind == "User") users.push_back(str(subject, {"name"}));
      if (kind == "Group") groups.push_back(str(subject, {"name"}));
      if (kind == "ServiceAccount")
        accounts.push_back(str(subject, {"namespace"}) + "/" + str(subject, {"name"}));
    }
  }
  return {json::value(str(o, {"roleRef", "kind"}) + "/" + str(o, {"roleRef", "name"})),
          json::value(age(o, now)), json::value(join(users, ", ")), json::value(join(groups, ", ")),
          json::value(join(accounts, ", "))};
}

// loadBalancerStatusStringer (wide: the server always prints wide).
std::string loadBalancerIngress(const json::object& service) {
  std::vector<std::string> parts;
  for (const auto& i : array(service, {"status", "loadBalancer", "ingress"})) {
    const std::string ip = str(object(i), {"ip"});
    const std::string hostname = str(object(i), {"hostname"});
    if (!ip.empty())
      parts.push_back(ip);
    else if (!hostname.empty())
      parts.push_back(hostname);
  }
  return join(parts);
}

Cells serviceCells(const json::object& o, Clock::time_point now) {
  const std::string type = str(o, {"spec", "type"});
  std::string clusterIP = "<none>";
  if (const auto& ips = array(o, {"spec", "clusterIPs"}); !ips.empty() && ips[0].is_string())
    clusterIP = ips[0].as_string();
  else if (const std::string ip = str(o, {"spec", "clusterIP"}); !ip.empty())
    clusterIP = ip;  // clusterIPs is the v1 conversion of clusterIP
  std::vector<std::string> externalIPs;
  for (const auto& ip : array(o, {"spec", "externalIPs"}))
    if (ip.is_string()) externalIPs.emplace_back(ip.as_string());
  std::string external;
  if (type == "ClusterIP" || type == "NodePort") {
    external = externalIPs.empty() ? "<none>" : join(externalIPs);
  } else if (type == "LoadBalancer") {
    const std::string lb = loadBalancerIngress(o);
    std::vector<std::string> all;
    if (!lb.empty()) all.push_back(lb);
    all.insert(all.end(), externalIPs.begin(), externalIPs.end());
    external = all.empty() ? "<pending>" : join(all);
  } else if (type == "ExternalName") {
    external = str(o, {"spec", "externalName"});
  } else {
    external = "<unknown>";
  }
  std::vector<std::string> ports;
  for (const auto& p : array(o, {"spec", "ports"})) {
    const auto& port = object(p);
    const int64_t nodePort = integer(port, {"nodePort"});
    ports.push_back(std::to_string(integer(port, {"port"})) +
                    (nodePort > 0 ? ":" + std::to_string(nodePort) : "") + "/" +
                    str(port, {"protocol"}));
  }
  return {json::value(type),        json::value(clusterIP),
          json::value(external),    json::value(ports.empty() ? "<none>" : join(ports)),
          json::value(age(o, now)), json::value(formatLabels(o, {"spec", "selector"}))};
}

// printEvent: the times fall back to eventTime and series, the source to reportingController.
Cells eventCells(const json::object& served, Clock::time_point now) {
  const json::object e = eventToCore(served);  // the printer reads the core/v1 fields
  std::string first = since(str(e, {"firstTimestamp"}), now);
  if (str(e, {"firstTimestamp"}).empty()) first = since(str(e, {"eventTime"}), now);
  std::string last = since(str(e, {"lastTimestamp"}), now);
  if (str(e, {"lastTimestamp"}).empty()) last = first;
  int64_t count = integer(e, {"count"});
  if (const auto* series = at(e, {"series"}); series && series->is_object()) {
    last = since(str(e, {"series", "lastObservedTime"}), now);
    count = integer(e, {"series", "count"});
  } else if (count == 0) {
    count = 1;  // singleton events of the new API carry no count
  }
  std::string kind = str(e, {"involvedObject", "kind"});
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::string name = str(e, {"involvedObject", "name"});
  std::string component = str(e, {"source", "component"});
  if (component.empty()) component = str(e, {"reportingComponent"});
  std::string instance = str(e, {"source", "host"});
  if (instance.empty()) instance = str(e, {"reportingInstance"});
  std::string message = str(e, {"message"});
  const auto notSpace = [](unsigned char c) { return !std::isspace(c); };
  message.erase(message.begin(), std::find_if(message.begin(), message.end(), notSpace));
  message.erase(std::find_if(message.rbegin(), message.rend(), notSpace).base(), message.end());
  return {json::value(last),
          json::value(str(e, {"type"})),
          json::value(str(e, {"reason"})),
          json::value(name.empty() ? kind : kind + "/" + name),
          json::value(str(e, {"involvedObject", "fieldPath"})),
          json::value(instance.empty() ? component : component + ", " + instance),
          json::value(message),
          json::value(first),
          json::value(count),
          json::value(str(e, {"metadata", "name"}))};
}

std::string nodeAddress(const json::object& node, std::string_view type) {
  for (const auto& a : array(node, {"status", "addresses"}))
    if (str(object(a), {"type"}) == type) return str(object(a), {"address"});
  return "<none>";
}

Cells nodeCells(const json::object& o, Clock::time_point now) {
  std::vector<std::string> status;
  for (const auto& c : array(o, {"status", "conditions"})) {
    const auto& condition = object(c);
    if (str(condition, {"type"}) != "Ready") continue;
    status = {str(condition, {"status"}) == "True" ? "Ready" : "NotReady"};
  }
  if (status.empty()) status.push_back("Unknown");
  if (const auto* u = at(o, {"spec", "unschedulable"}); u && u->is_bool() && u->as_bool())
    status.push_back("SchedulingDisabled");
  // findNodeRoles: node-role.kubernetes.io/<role> keys and the kubernetes.io/role value.
  std::set<std::string> roles;
  if (const auto* labels = at(o, {"metadata", "labels"}); labels && labels->is_object()) {
    constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
    for (const auto& [k, v] : labels->as_object()) {
      const std::string_view key = k;
      if (key.starts_with(kPrefix) && key.size() > kPrefix.size())
        roles.insert(std::string(key.substr(kPrefix.size())));
      if (key == "kubernetes.io/role" && v.is_string() && !v.as_string().empty())
        roles.insert(std::string(v.as_string()));
    }
  }
  const std::vector<std::string> roleList(roles.begin(), roles.end());
  auto orUnknown = [](const std::string& s) { return s.empty() ? std::string("<unknown>") : s; };
  return {json::value(join(status)),
          json::value(roleList.empty() ? "<none>" : join(roleList)),
          json::value(age(o, now)),
          json::value(str(o, {"status", "nodeInfo", "kubeletVersion"})),
          json::value(nodeAddress(o, "InternalIP")),
          json::value(nodeAddress(o, "ExternalIP")),
          json::value(orUnknown(str(o, {"status", "nodeInfo", "osImage"}))),
          json::value(orUnknown(str(o, {"status", "nodeInfo", "kernelVersion"}))),
          json::value(orUnknown(str(o, {"status", "nodeInfo", "containerRuntimeVersion"})))};
}

Cells deploymentCells(const json::object& o, Clock::time_point now) {
  const auto* podSpec = at(o, {"spec", "template", "spec"});
  const auto [names, images] = containerCells(object(podSpec ? *podSpec : json::value()));
  return {json::value(std::to_string(integer(o, {"status", "readyReplicas"})) + "/" +
                      std::to_string(integer(o, {"spec", "replicas"}))),
          json::value(integer(o, {"status", "updatedReplicas"})),
          json::value(integer(o, {"status", "availableReplicas"})),
          json::value(age(o, now)),
          json::value(names),
          json::value(images),
          json::value(formatSelector(o, {"spec", "selector"}))};
}

Cells replicaSetCells(const json::object& o, Clock::time_point now) {
  const auto* podSpec = at(o, {"spec", "template", "spec"});
  const auto [names, images] = containerCells(object(podSpec ? *podSpec : json::value()));
  std::string selector = formatSelector(o, {"spec", "selector"});
  return {json::value(integer(o, {"spec", "replicas"})),
          json::value(integer(o, {"status", "replicas"})),
          json::value(integer(o, {"status", "readyReplicas"})),
          json::value(age(o, now)),
          json::value(names),
          json::value(images),
          json::value(selector.empty() ? "<none>" : selector)};
}

Cells statefulSetCells(const json::object& o, Clock::time_point now) {
  const auto* podSpec = at(o, {"spec", "template", "spec"});
  const auto [names, images] = containerCells(object(podSpec ? *podSpec : json::value()));
  return {json::value(std::to_string(integer(o, {"status", "readyReplicas"})) + "/" +
                      std::to_string(integer(o, {"spec", "replicas"}))),
          json::value(age(o, now)), json::value(names), json::value(images)};
}

Cells daemonSetCells(const json::object& o, Clock::time_point now) {
  const auto* podSpec = at(o, {"spec", "template", "spec"});
  const auto [names, images] = containerCells(object(podSpec ? *podSpec : json::value()));
  std::string selector = formatSelector(o, {"spec", "selector"});
  return {json::value(integer(o, {"status", "desiredNumberScheduled"})),
          json::value(integer(o, {"status", "currentNumberScheduled"})),
          json::value(integer(o, {"status", "numberReady"})),
          json::value(integer(o, {"status", "updatedNumberScheduled"})),
          json::value(integer(o, {"status", "numberAvailable"})),
          json::value(formatLabels(o, {"spec", "template", "spec", "nodeSelector"})),
          json::value(age(o, now)),
          json::value(names),
          json::value(images),
          json::value(selector.empty() ? "<none>" : selector)};
}

bool hasTrueCondition(const json::object& o, std::string_view type) {
  for (const auto& c : array(o, {"status", "conditions"}))
    if (str(object(c), {"type"}) == type && str(object(c), {"status"}) == "True") return true;
  return false;
}

// printJob: COMPLETIONS "succeeded/completions" ("n/1 of p" for a parallel work queue), DURATION
// from startTime to completionTime (or now), STATUS from the conditions.
Cells jobCells(const json::object& o, Clock::time_point now) {
  const auto* podSpec = at(o, {"spec", "template", "spec"});
  const auto [names, images] = containerCells(object(podSpec ? *podSpec : json::value()));
  const int64_t succeeded = integer(o, {"status", "succeeded"});
  std::string completions;
  if (const auto* c = at(o, {"spec", "completions"}); c && c->is_number()) {
    completions =
        std::to_string(succeeded) + "/" + std::to_string(integer(o, {"spec", "completions"}));
  } else {
    const int64_t parallelism = integer(o, {"spec", "parallelism"});
    completions = std::to_string(succeeded) + "/1" +
                  (parallelism > 1 ? " of " + std::to_string(parallelism) : "");
  }
  std::string duration;
  const auto start = api::parseRfc3339(str(o, {"status", "startTime"}));
  const auto end = api::parseRfc3339(str(o, {"status", "completionTime"}));
  if (start)
    duration = humanDuration(
        std::chrono::duration_cast<std::chrono::seconds>((end ? *end : now) - *start));
  std::string status = "Running";
  if (hasTrueCondition(o, "Complete"))
    status = "Complete";
  else if (hasTrueCondition(o, "Failed"))
    status = "Failed";
  else if (!str(o, {"metadata", "deletionTimestamp"}).empty())
    status = "Terminating";
  else if (hasTrueCondition(o, "SuccessCriteriaMet"))
    status = "SuccessCriteriaMet";
  else if (hasTrueCondition(o, "Suspended"))
    status = "Suspended";
  else if (hasTrueCondition(o, "FailureTarget"))
    status = "FailureTarget";
  std::string selector = formatSelector(o, {"spec", "selector"});
  return {json::value(status),
          json::value(completions),
          json::value(duration),
          json::value(age(o, now)),
          json::value(names),
          json::value(images),
          json::value(selector.empty() ? "<none>" : selector)};
}

Cells cronJobCells(const json::object& o, Clock::time_point now) {
  const auto* podSpec = at(o, {"spec", "jobTemplate", "spec", "template", "spec"});
  const auto [names, images] = containerCells(object(podSpec ? *podSpec : json::value()));
  const auto* suspend = at(o, {"spec", "suspend"});
  const std::string timeZone = str(o, {"spec", "timeZone"});
  const std::string last = str(o, {"status", "lastScheduleTime"});
  std::string selector = formatSelector(o, {"spec", "jobTemplate", "spec", "selector"});
  return {json::value(str(o, {"spec", "schedule"})),
          json::value(timeZone.empty() ? "<none>" : timeZone),
          json::value(!suspend || !suspend->is_bool() ? "<unset>"
                      : suspend->as_bool()            ? "True"
                                                      : "False"),
          json::value(static_cast<int64_t>(array(o, {"status", "active"}).size())),
          json::value(last.empty() ? "<none>" : since(last, now)),
          json::value(age(o, now)),
          json::value(names),
          json::value(images),
          json::value(selector.empty() ? "<none>" : selector)};
}

// formatHPAMetrics: "<current>/<target>" per metric ("cpu: <unknown>/80%"), at most two and
// "+ N more...", "<none>" without metrics.
std::string hpaTargets(const json::object& o) {
  static const json::object kNone;
  auto objectOrNone = [](const json::value* v) -> const json::object& {
    return v && v->is_object() ? v->as_object() : kNone;
  };
  auto quantity = [](const json::object& target, const char* key) {
    const auto* v = target.if_contains(key);
    if (!v) return std::string("<unknown>");
    return v->is_string() ? std::string(v->as_string()) : json::serialize(*v);
  };
  const auto& specs = array(o, {"spec", "metrics"});
  if (specs.empty()) return "<none>";
  const auto& current = array(o, {"status", "currentMetrics"});
  std::vector<std::string> parts;
  for (size_t i = 0; i < specs.size(); ++i) {
    const json::object& spec = objectOrNone(&specs[i]);
    const std::string type = str(spec, {"type"});
    const json::object& cur = objectOrNone(i < current.size() ? &current[i] : nullptr);
    if (type == "Resource" || type == "ContainerResource") {
      const char* key = type == "Resource" ? "resource" : "containerResource";
      const json::object& source = objectOrNone(at(spec, {key}));
      const json::object& target = objectOrNone(source.if_contains("target"));
      const json::object& now = objectOrNone(at(cur, {key, "current"}));
      const std::string name = str(source, {"name"});
      if (str(target, {"type"}) == "Utilization" || target.contains("averageUtilization")) {
        const std::string value = now.contains("averageUtilization")
                                      ? std::to_string(integer(now, {"averageUtilization"})) + "%"
                                      : "<unknown>";
        parts.push_back(name + ": " + value + "/" +
                        std::to_string(integer(target, {"averageUtilization"})) + "%");
      } else {
        parts.push_back(name + ": " + quantity(now, "averageValue") + "/" +
                        quantity(target, "averageValue"));
      }
    } else {
      const char* key = type == "Pods"       ? "pods"
                        : type == "Object"   ? "object"
                        : type == "External" ? "external"
                                             : "";
      const json::object& target = objectOrNone(at(spec, {key, "target"}));
      const char* field = target.contains("averageValue") ? "averageValue" : "value";
      parts.push_back("<unknown>/" + quantity(target, field));
    }
  }
  std::string out = parts.size() > 2 ? parts[0] + ", " + parts[1] : join(parts, ", ");
  if (parts.size() > 2) out += " + " + std::to_string(parts.size() - 2) + " more...";
  return out;
}

Cells hpaCells(const json::object& o, Clock::time_point now) {
  const auto* minReplicas = at(o, {"spec", "minReplicas"});
  return {json::value(str(o, {"spec", "scaleTargetRef", "kind"}) + "/" +
                      str(o, {"spec", "scaleTargetRef", "name"})),
          json::value(hpaTargets(o)),
          json::value(minReplicas && minReplicas->is_number()
                          ? std::to_string(integer(o, {"spec", "minReplicas"}))
                          : std::string("<unset>")),
          json::value(integer(o, {"spec", "maxReplicas"})),
          json::value(integer(o, {"status", "currentReplicas"})),
          json::value(age(o, now))};
}

// printIngress: HOSTS (the first three, "+ N more..."), ADDRESS as a Service's, PORTS 80 and
// 443 when TLS is configured.
Cells ingressCells(const json::object& o, Clock::time_point now) {
  const std::string className = str(o, {"spec", "ingressClassName"});
  const auto& rules = array(o, {"spec", "rules"});
  std::vector<std::string> hosts;
  bool more = false;
  for (const auto& rule : rules) {
    if (hosts.size() == 3) more = true;
    if (!more && !str(object(rule), {"host"}).empty()) hosts.push_back(str(object(rule), {"host"}));
  }
  std::string hostsCell = hosts.empty() ? "*" : join(hosts);
  if (more) hostsCell += " + " + std::to_string(rules.size() - 3) + " more...";
  return {json::value(className.empty() ? "<none>" : className), json::value(hostsCell),
          json::value(loadBalancerIngress(o)),
          json::value(array(o, {"spec", "tls"}).empty() ? "80" : "80, 443"),
          json::value(age(o, now))};
}

// printPod: kubectl's STATUS logic (phase or status.reason, init containers, the last waiting or
// terminated reason, Terminating) and RESTARTS with the time of the last restart.
Cells podCells(const json::object& pod, Clock::time_point now) {
  int64_t restarts = 0;
  int64_t ready = 0;
  const int64_t total = static_cast<int64_t>(array(pod, {"spec", "containers"}).size());
  std::optional<Clock::time_point> lastRestart;
  auto noteRestart = [&](const json::object& status) {
    restarts += integer(status, {"restartCount"});
    if (auto t = api::parseRfc3339(str(status, {"lastState", "terminated", "finishedAt"})))
      if (!lastRestart || *lastRestart < *t) lastRestart = *t;
  };
  std::string reason = str(pod, {"status", "phase"});
  if (const std::string r = str(pod, {"status", "reason"}); !r.empty()) reason = r;
  bool initializing = false;
  const auto& initStatuses = array(pod, {"status", "initContainerStatuses"});
  const size_t initCount = array(pod, {"spec", "initContainers"}).size();
  for (size_t i = 0; i < initStatuses.size(); ++i) {
    const auto& c = object(initStatuses[i]);
    noteRestart(c);
    const auto* terminated = at(c, {"state", "terminated"});
    const std::string waiting = str(c, {"state", "waiting", "reason"});
    if (terminated && terminated->is_object() &&
        integer(c, {"state", "terminated", "exitCode"}) == 0)
      continue;
    if (terminated && terminated->is_object()) {
      const std::string r = str(c, {"state", "terminated", "reason"});
      if (!r.empty()) {
        reason = "Init:" + r;
      } else if (const int64_t signal = integer(c, {"state", "terminated", "signal"}); signal) {
        reason = "Init:Signal:" + std::to_string(signal);
      } else {
        reason = "Init:ExitCode:" + std::to_string(integer(c, {"state", "terminated", "exitCode"}));
      }
    } else if (!waiting.empty() && waiting != "PodInitializing") {
      reason = "Init:" + waiting;
    } else {
      reason = "Init:" + std::to_string(i) + "/" + std::to_string(initCount);
    }
    initializing = true;
    break;
  }
  if (!initializing) {
    restarts = 0;
    bool hasRunning = false;
    const auto& statuses = array(pod, {"status", "containerStatuses"});
    for (size_t i = statuses.size(); i-- > 0;) {
      const auto& c = object(statuses[i]);
      noteRestart(c);
      const auto* terminated = at(c, {"state", "terminated"});
      const std::string waiting = str(c, {"state", "waiting", "reason"});
      const std::string terminatedReason = str(c, {"state", "terminated", "reason"});
      const auto* readyFlag = c.if_contains("ready");
      const bool isReady = readyFlag && readyFlag->is_bool() && readyFlag->as_bool();
      const auto* running = at(c, {"state", "running"});
      if (!waiting.empty()) {
        reason = waiting;
      } else if (terminated && terminated->is_object() && !terminatedReason.empty()) {
        reason = terminatedReason;
      } else if (terminated && terminated->is_object()) {
        const int64_t signal = integer(c, {"state", "terminated", "signal"});
        reason =
            signal ? "Signal:" + std::to_string(signal)
                   : "ExitCode:" + std::to_string(integer(c, {"state", "terminated", "exitCode"}));
      } else if (isReady && running && running->is_object()) {
        hasRunning = true;
        ++ready;
      }
    }
    if (reason == "Completed" && hasRunning) {
      bool podReady = false;
      for (const auto& condition : array(pod, {"status", "conditions"}))
        podReady = podReady || (str(object(condition), {"type"}) == "Ready" &&
                                str(object(condition), {"status"}) == "True");
      reason = podReady ? "Running" : "NotReady";
    }
  }
  if (!str(pod, {"metadata", "deletionTimestamp"}).empty())
    reason = str(pod, {"status", "reason"}) == "NodeLost" ? "Unknown" : "Terminating";
  std::string restartText = std::to_string(restarts);
  if (lastRestart)
    restartText +=
        " (" + humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *lastRestart)) +
        " ago)";
  // status.podIPs, which the v1 conversion fills from podIP when only that is set.
  std::string ip;
  if (const auto& ips = array(pod, {"status", "podIPs"}); !ips.empty())
    ip = str(object(ips[0]), {"ip"});
  else
    ip = str(pod, {"status", "podIP"});
  std::string node = str(pod, {"spec", "nodeName"});
  std::string nominated = str(pod, {"status", "nominatedNodeName"});
  std::string gates = "<none>";
  if (const auto& readinessGates = array(pod, {"spec", "readinessGates"});
      !readinessGates.empty()) {
    int64_t trueConditions = 0;
    for (const auto& gate : readinessGates) {
      const std::string type = str(object(gate), {"conditionType"});
      for (const auto& condition : array(pod, {"status", "conditions"})) {
        if (str(object(condition), {"type"}) != type) continue;
        if (str(object(condition), {"status"}) == "True") ++trueConditions;
        break;
      }
    }
    gates = std::to_string(trueConditions) + "/" + std::to_string(readinessGates.size());
  }
  auto orNone = [](const std::string& s) { return s.empty() ? std::string("<none>") : s; };
  return {json::value(std::to_string(ready) + "/" + std::to_string(total)),
          json::value(reason),
          json::value(restartText),
          json::value(age(pod, now)),
          json::value(orNone(ip)),
          json::value(orNone(node)),
          json::value(orNone(nominated)),
          json::value(gates)};
}

struct Printer {
  const std::vector<Column>* columns;
  Cells (*cells)(const json::object&, Clock::time_point);  // every column but a leading Name
};

// The printer of a built-in resource; nullptr for custom resources.
const Printer* builtinPrinter(const ResourceInfo& r) {
  static const std::map<std::pair<std::string, std::string>, Printer> kPrinters = {
      {{"", "namespaces"}, {&kNamespaceColumns, namespaceCells}},
      {{"", "configmaps"}, {&kConfigMapColumns, configMapCells}},
      {{"", "secrets"}, {&kSecretColumns, secretCells}},
      {{"", "services"}, {&kServiceColumns, serviceCells}},
      {{"", "serviceaccounts"}, {&kServiceAccountColumns, serviceAccountCells}},
      {{"", "events"}, {&kEventColumns, eventCells}},
      {{"events.k8s.io", "events"}, {&kEventColumns, eventCells}},
      {{"", "nodes"}, {&kNodeColumns, nodeCells}},
      {{"", "pods"}, {&kPodColumns, podCells}},
      {{"apps", "deployments"}, {&kDeploymentColumns, deploymentCells}},
      {{"apps", "replicasets"}, {&kReplicaSetColumns, replicaSetCells}},
      {{"apps", "statefulsets"}, {&kStatefulSetColumns, statefulSetCells}},
      {{"apps", "daemonsets"}, {&kDaemonSetColumns, daemonSetCells}},
      {{"batch", "jobs"}, {&kJobColumns, jobCells}},
      {{"batch", "cronjobs"}, {&kCronJobColumns, cronJobCells}},
      {{"autoscaling", "horizontalpodautoscalers"}, {&kHpaColumns, hpaCells}},
      {{"networking.k8s.io", "ingresses"}, {&kIngressColumns, ingressCells}},
      {{"coordination.k8s.io", "leases"}, {&kLeaseColumns, leaseCells}},
      {{"admissionregistration.k8s.io", "validatingwebhookconfigurations"},
       {&kWebhookColumns, webhookCells}},
      {{"admissionregistration.k8s.io", "mutatingwebhookconfigurations"},
       {&kWebhookColumns, webhookCells}},
      {{"apiextensions.k8s.io", "customresourcedefinitions"}, {&kCrdColumns, crdCells}},
      {{"rbac.authorization.k8s.io", "roles"}, {&kCrdColumns, crdCells}},
      {{"rbac.authorization.k8s.io", "clusterroles"}, {&kCrdColumns, crdCells}},
      {{"rbac.authorization.k8s.io", "rolebindings"}, {&kRoleBindingColumns, bindingCells}},
      {{"rbac.authorization.k8s.io", "clusterrolebindings"},
       {&kClusterRoleBindingColumns, bindingCells}},
  };
  if (r.custom) return nullptr;
  auto it = kPrinters.find({r.group, r.resource});
  return it == kPrinters.end() ? nullptr : &it->second;
}

json::object columnDefinition(const char* name, const char* type, const char* format,
                              const std::string& description, int priority) {
  return json::object{{"name", name},
                      {"type", type},
                      {"format", format},
                      {"description", description},
                      {"priority", priority}};
}

json::value rowObject(const json::object& object, IncludeObject include) {
  if (include == IncludeObject::kObject) return object;
  json::object partial{{"kind", "PartialObjectMetadata"}, {"apiVersion", "meta.k8s.io/v1"}};
  if (const auto* meta = object.if_contains("metadata")) partial["metadata"] = *meta;
  return partial;
}

// Cells of a custom resource from its printer columns.
Cells customCells(const std::vector<PrinterColumn>& columns, const json::object& object,
                  Clock::time_point now) {
  const json::value root(object);
  Cells cells;
  for (const auto& c : columns) {
    auto v = evalJsonPath(root, c.jsonPath);
    if (!v) {
      cells.push_back(c.type == "string" || c.type == "date" ? json::value("<none>")
                                                             : json::value(nullptr));
      continue;
    }
    if (c.type == "date" && v->is_string()) {
      auto t = api::parseRfc3339(v->as_string());
      cells.push_back(
          t ? json::value(humanDuration(std::chrono::duration_cast<std::chrono::seconds>(now - *t)))
            : *v);
    } else if (c.type == "string" && !v->is_string()) {
      cells.push_back(json::value(cellText(*v)));
    } else {
      cells.push_back(*v);
    }
  }
  return cells;
}

}  // namespace

json::object makeTable(const ResourceInfo& resource, const std::vector<json::object>& objects,
                       std::chrono::system_clock::time_point now, IncludeObject include,
                       bool withHeaders, const std::string& resourceVersion) {
  const Printer* printer = builtinPrinter(resource);
  std::vector<PrinterColumn> columns = resource.columns;
  if (!printer) {
    bool hasDate = false;
    for (const auto& c : columns) hasDate = hasDate || c.type == "date";
    if (!hasDate) columns.push_back({"Age", "date", ".metadata.creationTimestamp", "", 0});
  }
  // Events print their name last; every other kind first.
  const bool nameFirst = !printer || std::string_view(printer->columns->front().name) == "Name";

  json::object table{{"kind", "Table"},
                     {"apiVersion", "meta.k8s.io/v1"},
                     {"metadata", json::object{{"resourceVersion", resourceVersion}}}};
  json::array definitions;
  if (withHeaders && printer) {
    for (const auto& c : *printer->columns)
      definitions.push_back(columnDefinition(c.name, c.type, c.format, c.description, c.priority));
  } else if (withHeaders) {
    definitions.push_back(columnDefinition("Name", "string", "name", kNameDescription, 0));
    for (const auto& c : columns) {
      const bool age = c.name == "Age" && c.jsonPath == ".metadata.creationTimestamp";
      definitions.push_back(columnDefinition(c.name.c_str(), c.type.c_str(), "",
                                             age ? kAgeDescription : c.description, c.priority));
    }
  }
  table["columnDefinitions"] = std::move(definitions);
  json::array rows;
  for (const auto& object : objects) {
    Cells cells;
    if (nameFirst) cells.push_back(json::value(str(object, {"metadata", "name"})));
    Cells rest = printer ? printer->cells(object, now) : customCells(columns, object, now);
    for (auto& c : rest) cells.push_back(std::move(c));
    json::object row{{"cells", std::move(cells)}};
    // Finished pods carry the row condition kubectl uses to tell them apart.
    if (printer && printer->cells == podCells) {
      const std::string phase = str(object, {"status", "phase"});
      if (phase == "Succeeded" || phase == "Failed")
        row["conditions"] = json::array{
            json::object{{"type", "Completed"},
                         {"status", "True"},
                         {"reason", phase},
                         {"message", phase == "Succeeded" ? "The pod has completed successfully."
                                                          : "The pod failed."}}};
    }
    if (include != IncludeObject::kNone) row["object"] = rowObject(object, include);
    rows.push_back(std::move(row));
  }
  table["rows"] = std::move(rows);
  return table;
}

}  // namespace flotilla::sim
