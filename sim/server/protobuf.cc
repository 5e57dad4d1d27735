#include "sim/server/protobuf.h"

#include <boost/json.hpp>
#include <map>
#include <optional>
#include <set>

#include "api/base64.h"
#include "api/time.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

// --- Wire format -------------------------------------------------------------------------------

struct Reader {
  std::string_view data;
  bool ok = true;

  bool done() const { return data.empty() || !ok; }
  uint64_t varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (data.empty()) break;
      const auto byte = static_cast<uint8_t>(data.front());
      data.remove_prefix(1);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return value;
    }
    ok = false;
    return 0;
  }
  std::string_view bytes() {
    const uint64_t n = varint();
    if (!ok || n > data.size()) {
      ok = false;
      return {};
    }
    auto out = data.substr(0, n);
    data.remove_prefix(n);
    return out;
  }
  void skip(int wireType) {
    switch (wireType) {
      case 0:
        varint();
        break;
      case 1:
        data.remove_prefix(std::min<size_t>(8, data.size()));
        break;
      case 2:
        bytes();
        break;
      case 5:
        data.remove_prefix(std::min<size_t>(4, data.size()));
        break;
      default:
        ok = false;
    }
  }
};

// --- Schemas of the messages kubectl's typed create commands send
// ---------------------------------

enum class Kind {
  kString,
  kBytes,    // base64 in JSON
  kInt,      // varint, int32/int64
  kKeepInt,  // a pointer field: kept even when 0
  kBool,
  kMessage,
  kStrings,      // repeated string
  kMessages,     // repeated message
  kStringMap,    // map<string, string>
  kBytesMap,     // map<string, bytes>
  kQuantityMap,  // map<string, resource.Quantity>
  kTime,         // metav1.Time {seconds, nanos}
  kIntOrString,
  kSkip,  // known, not needed (status of a create)
};

struct Field {
  int number;
  const char* name;
  Kind kind;
  const char* message = nullptr;  // kMessage / kMessages
};

const std::map<std::string, std::vector<Field>>& schemas() {
  static const std::map<std::string, std::vector<Field>> kSchemas = {
      {"ObjectMeta",
       {{1, "name", Kind::kString},
        {2, "generateName", Kind::kString},
        {3, "namespace", Kind::kString},
        {5, "uid", Kind::kString},
        {6, "resourceVersion", Kind::kString},
        {7, "generation", Kind::kInt},
        {8, "creationTimestamp", Kind::kTime},
        {11, "labels", Kind::kStringMap},
        {12, "annotations", Kind::kStringMap},
        {13, "ownerReferences", Kind::kMessages, "OwnerReference"},
        {14, "finalizers", Kind::kStrings}}},
      {"OwnerReference",
       {{1, "kind", Kind::kString},
        {3, "name", Kind::kString},
        {4, "uid", Kind::kString},
        {5, "apiVersion", Kind::kString},
        {6, "controller", Kind::kBool},
        {7, "blockOwnerDeletion", Kind::kBool}}},
      {"Namespace",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "spec", Kind::kMessage, "NamespaceSpec"},
        {3, "status", Kind::kSkip}}},
      {"NamespaceSpec", {{1, "finalizers", Kind::kStrings}}},
      {"ConfigMap",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "data", Kind::kStringMap},
        {3, "binaryData", Kind::kBytesMap},
        {4, "immutable", Kind::kBool}}},
      {"Secret",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "data", Kind::kBytesMap},
        {3, "type", Kind::kString},
        {4, "stringData", Kind::kStringMap},
        {5, "immutable", Kind::kBool}}},
      {"Deployment",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "spec", Kind::kMessage, "DeploymentSpec"},
        {3, "status", Kind::kSkip}}},
      {"DeploymentSpec",
       {{1, "replicas", Kind::kKeepInt},
        {2, "selector", Kind::kMessage, "LabelSelector"},
        {3, "template", Kind::kMessage, "PodTemplateSpec"},
        {4, "strategy", Kind::kMessage, "DeploymentStrategy"},
        {5, "minReadySeconds", Kind::kInt},
        {6, "revisionHistoryLimit", Kind::kKeepInt},
        {7, "paused", Kind::kBool},
        {9, "progressDeadlineSeconds", Kind::kKeepInt}}},
      {"LabelSelector",
       {{1, "matchLabels", Kind::kStringMap},
        {2, "matchExpressions", Kind::kMessages, "LabelSelectorRequirement"}}},
      {"LabelSelectorRequirement",
       {{1, "key", Kind::kString}, {2, "operator", Kind::kString}, {3, "values", Kind::kStrings}}},
      {"DeploymentStrategy",
       {{1, "type", Kind::kString},
        {2, "rollingUpdate", Kind::kMessage, "RollingUpdateDeployment"}}},
      {"RollingUpdateDeployment",
       {{1, "maxUnavailable", Kind::kIntOrString}, {2, "maxSurge", Kind::kIntOrString}}},
      {"PodTemplateSpec",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"}, {2, "spec", Kind::kMessage, "PodSpec"}}},
      {"PodSpec",
       {{2, "containers", Kind::kMessages, "Container"},
        {3, "restartPolicy", Kind::kString},
        {4, "terminationGracePeriodSeconds", Kind::kKeepInt},
        {6, "dnsPolicy", Kind::kString},
        {7, "nodeSelector", Kind::kStringMap},
        {8, "serviceAccountName", Kind::kString},
        {10, "nodeName", Kind::kString},
        {19, "schedulerName", Kind::kString},
        {20, "initContainers", Kind::kMessages, "Container"}}},
      {"Container",
       {{1, "name", Kind::kString},
        {2, "image", Kind::kString},
        {3, "command", Kind::kStrings},
        {4, "args", Kind::kStrings},
        {5, "workingDir", Kind::kString},
        {6, "ports", Kind::kMessages, "ContainerPort"},
        {7, "env", Kind::kMessages, "EnvVar"},
        {8, "resources", Kind::kMessage, "ResourceRequirements"},
        {13, "terminationMessagePath", Kind::kString},
        {14, "imagePullPolicy", Kind::kString},
        {20, "terminationMessagePolicy", Kind::kString}}},
      {"ContainerPort",
       {{1, "name", Kind::kString},
        {2, "hostPort", Kind::kInt},
        {3, "containerPort", Kind::kKeepInt},
        {4, "protocol", Kind::kString},
        {5, "hostIP", Kind::kString}}},
      {"EnvVar", {{1, "name", Kind::kString}, {2, "value", Kind::kString}}},
      {"ServiceAccount",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {4, "automountServiceAccountToken", Kind::kBool}}},
      {"TokenRequest",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "spec", Kind::kMessage, "TokenRequestSpec"},
        {3, "status", Kind::kSkip}}},
      {"TokenRequestSpec",
       {{1, "audiences", Kind::kStrings},
        {3, "boundObjectRef", Kind::kMessage, "BoundObjectReference"},
        {4, "expirationSeconds", Kind::kKeepInt}}},
      {"BoundObjectReference",
       {{1, "kind", Kind::kString},
        {2, "apiVersion", Kind::kString},
        {3, "name", Kind::kString},
        {4, "uid", Kind::kString}}},
      {"PolicyRule",
       {{1, "verbs", Kind::kStrings},
        {2, "apiGroups", Kind::kStrings},
        {3, "resources", Kind::kStrings},
        {4, "resourceNames", Kind::kStrings},
        {5, "nonResourceURLs", Kind::kStrings}}},
      {"Role",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "rules", Kind::kMessages, "PolicyRule"}}},
      {"ClusterRole",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "rules", Kind::kMessages, "PolicyRule"},
        {3, "aggregationRule", Kind::kMessage, "AggregationRule"}}},
      {"AggregationRule", {{1, "clusterRoleSelectors", Kind::kMessages, "LabelSelector"}}},
      {"Subject",
       {{1, "kind", Kind::kString},
        {2, "apiGroup", Kind::kString},
        {3, "name", Kind::kString},
        {4, "namespace", Kind::kString}}},
      {"RoleRef",
       {{1, "apiGroup", Kind::kString}, {2, "kind", Kind::kString}, {3, "name", Kind::kString}}},
      {"RoleBinding",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "subjects", Kind::kMessages, "Subject"},
        {3, "roleRef", Kind::kMessage, "RoleRef"}}},
      {"ClusterRoleBinding",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "subjects", Kind::kMessages, "Subject"},
        {3, "roleRef", Kind::kMessage, "RoleRef"}}},
      {"SelfSubjectAccessReview",
       {{1, "metadata", Kind::kMessage, "ObjectMeta"},
        {2, "spec", Kind::kMessage, "SelfSubjectAccessReviewSpec"},
        {3, "status", Kind::kSkip}}},
      {"SelfSubjectAccessReviewSpec",
       {{1, "resourceAttributes", Kind::kMessage, "ResourceAttributes"},
        {2, "nonResourceAttributes", Kind::kMessage, "NonResourceAttributes"}}},
      {"ResourceAttributes",
       {{1, "namespace", Kind::kString},
        {2, "verb", Kind::kString},
        {3, "group", Kind::kString},
        {4, "version", Kind::kString},
        {5, "resource", Kind::kString},
        {6, "subresource", Kind::kString},
        {7, "name", Kind::kString}}},
      {"NonResourceAttributes", {{1, "path", Kind::kString}, {2, "verb", Kind::kString}}},
      {"ResourceRequirements",
       {{1, "limits", Kind::kQuantityMap}, {2, "requests", Kind::kQuantityMap}}},
  };
  return kSchemas;
}

api::Error malformed(const std::string& what) {
  return api::Error{
      api::reason::kBadRequest, 400, "the protobuf body could not be decoded: " + what, {}};
}

// A map entry: key = 1, value = 2.
std::pair<std::string, std::string_view> mapEntry(std::string_view bytes, bool& ok) {
  Reader r{bytes};
  std::string key;
  std::string_view value;
  while (!r.done()) {
    const uint64_t tag = r.varint();
    if ((tag & 7) != 2) {
      r.skip(static_cast<int>(tag & 7));
      continue;
    }
    auto b = r.bytes();
    if ((tag >> 3) == 1) key = std::string(b);
    if ((tag >> 3) == 2) value = b;
  }
  ok = ok && r.ok;
  return {key, value};
}

api::Result<json::object> decodeMessage(std::string_view bytes, const std::string& type);

api::Result<json::value> decodeTime(std::string_view bytes) {
  Reader r{bytes};
  int64_t seconds = 0;
  while (!r.done()) {
    const uint64_t tag = r.varint();
    if ((tag >> 3) == 1 && (tag & 7) == 0) {
      seconds = static_cast<int64_t>(r.varint());
    } else {
      r.skip(static_cast<int>(tag & 7));
    }
  }
  if (!r.ok) return malformed("bad Time");
  if (seconds == 0) return json::value();  // the zero time: omitted
  return json::value(api::formatRfc3339(api::Clock::time_point(std::chrono::seconds(seconds))));
}

api::Result<json::value> decodeIntOrString(std::string_view bytes) {
  Reader r{bytes};
  int64_t type = 0, intVal = 0;
  std::string strVal;
  while (!r.done()) {
    const uint64_t tag = r.varint();
    const int number = static_cast<int>(tag >> 3);
    if (number == 1 && (tag & 7) == 0)
      type = static_cast<int64_t>(r.varint());
    else if (number == 2 && (tag & 7) == 0)
      intVal = static_cast<int32_t>(r.varint());
    else if (number == 3 && (tag & 7) == 2)
      strVal = std::string(r.bytes());
    else
      r.skip(static_cast<int>(tag & 7));
  }
  if (!r.ok) return malformed("bad IntOrString");
  return type == 1 ? json::value(strVal) : json::value(intVal);
}

api::Result<json::object> decodeMessage(std::string_view bytes, const std::string& type) {
  const auto& all = schemas();
  const auto& fields = all.at(type);
  json::object out;
  Reader r{bytes};
  while (!r.done()) {
    const uint64_t tag = r.varint();
    const int number = static_cast<int>(tag >> 3);
    const int wire = static_cast<int>(tag & 7);
    const Field* field = nullptr;
    for (const auto& f : fields)
      if (f.number == number) field = &f;
    if (!field || field->kind == Kind::kSkip) {
      r.skip(wire);
      continue;
    }
    const bool varintKind =
        field->kind == Kind::kInt || field->kind == Kind::kKeepInt || field->kind == Kind::kBool;
    if (varintKind != (wire == 0) || (!varintKind && wire != 2))
      return malformed(type + "." + field->name + " has wire type " + std::to_string(wire));
    switch (field->kind) {
      case Kind::kString: {
        auto s = r.bytes();
        if (!s.empty()) out[field->name] = std::string(s);
        break;
      }
      case Kind::kBytes: {
        auto s = r.bytes();
        if (!s.empty()) out[field->name] = api::base64Encode(s);
        break;
      }
      case Kind::kInt:
      case Kind::kKeepInt: {
        const auto v = static_cast<int64_t>(r.varint());
        if (v != 0 || field->kind == Kind::kKeepInt) out[field->name] = v;
        break;
      }
      case Kind::kBool:
        if (r.varint() != 0) out[field->name] = true;
        break;
      case Kind::kMessage: {
        auto sub = decodeMessage(r.bytes(), field->message);
        if (!sub) return sub.error();
        out[field->name] = std::move(*sub);  // kept even when empty ("resources: {}")
        break;
      }
      case Kind::kStrings: {
        auto& list = out[field->name];
        if (!list.is_array()) list = json::array();
        list.as_array().emplace_back(std::string(r.bytes()));
        break;
      }
      case Kind::kMessages: {
        auto sub = decodeMessage(r.bytes(), field->message);
        if (!sub) return sub.error();
        auto& list = out[field->name];
        if (!list.is_array()) list = json::array();
        list.as_array().emplace_back(std::move(*sub));
        break;
      }
      case Kind::kStringMap:
      case Kind::kBytesMap:
      case Kind::kQuantityMap: {
        bool ok = true;
        auto [key, value] = mapEntry(r.bytes(), ok);
        if (!ok) return malformed(type + "." + field->name + " has a bad map entry");
        auto& map = out[field->name];
        if (!map.is_object()) map = json::object();
        if (field->kind == Kind::kStringMap) {
          map.as_object()[key] = std::string(value);
        } else if (field->kind == Kind::kBytesMap) {
          map.as_object()[key] = api::base64Encode(value);
        } else {
          // resource.Quantity is {1: string}: its field 1 reads like a map entry's key.
          bool entryOk = true;
          map.as_object()[key] = mapEntry(value, entryOk).first;
        }
        break;
      }
      case Kind::kTime: {
        auto time = decodeTime(r.bytes());
        if (!time) return time.error();
        if (!time->is_null()) out[field->name] = std::move(*time);
        break;
      }
      case Kind::kIntOrString: {
        auto v = decodeIntOrString(r.bytes());
        if (!v) return v.error();
        out[field->name] = std::move(*v);
        break;
      }
      case Kind::kSkip:
        break;
    }
  }
  if (!r.ok) return malformed("truncated " + type);
  return out;
}

}  // namespace

api::Result<json::object> decodeKubernetesProtobuf(std::string_view body) {
  static constexpr std::string_view kMagic("k8s\0", 4);
  if (body.substr(0, 4) != kMagic) return malformed("missing the k8s protobuf envelope");
  Reader envelope{body.substr(4)};
  std::string apiVersion, kind;
  std::string_view raw;
  while (!envelope.done()) {
    const uint64_t tag = envelope.varint();
    const int number = static_cast<int>(tag >> 3);
    if ((tag & 7) != 2) {
      envelope.skip(static_cast<int>(tag & 7));
      continue;
    }
    auto bytes = envelope.bytes();
    if (number == 1) {  // TypeMeta
      Reader typeMeta{bytes};
      while (!typeMeta.done()) {
        const uint64_t t = typeMeta.varint();
        if ((t & 7) != 2) {
          typeMeta.skip(static_cast<int>(t & 7));
          continue;
        }
        auto s = typeMeta.bytes();
        if ((t >> 3) == 1) apiVersion = std::string(s);
        if ((t >> 3) == 2) kind = std::string(s);
      }
    } else if (number == 2) {
      raw = bytes;
    }
  }
  if (!envelope.ok) return malformed("truncated envelope");
  static const std::set<std::pair<std::string, std::string>> kDecoded = {
      {"v1", "Namespace"},
      {"v1", "ConfigMap"},
      {"v1", "Secret"},
      {"v1", "ServiceAccount"},
      {"apps/v1", "Deployment"},
      {"authentication.k8s.io/v1", "TokenRequest"},
      {"authorization.k8s.io/v1", "SelfSubjectAccessReview"},
      {"rbac.authorization.k8s.io/v1", "Role"},
      {"rbac.authorization.k8s.io/v1", "ClusterRole"},
      {"rbac.authorization.k8s.io/v1", "RoleBinding"},
      {"rbac.authorization.k8s.io/v1", "ClusterRoleBinding"},
  };
  if (!kDecoded.count({apiVersion, kind}))
    return api::Error{api::reason::kUnsupportedMediaType,
                      415,
                      "flotilla-sim decodes protobuf bodies only for v1 Namespace, ConfigMap, "
                      "Secret, ServiceAccount, apps/v1 Deployment, TokenRequest, "
                      "SelfSubjectAccessReview and the rbac.authorization.k8s.io/v1 kinds (got " +
                          apiVersion + " " + kind +
                          "); send JSON or YAML (kubectl apply -f / create -f)",
                      {}};
  auto object = decodeMessage(raw, kind);
  if (!object) return object.error();
  json::object out{{"apiVersion", apiVersion}, {"kind", kind}};
  for (auto& [k, v] : *object) out[k] = std::move(v);
  if (!out.contains("metadata")) out["metadata"] = json::object{};
  return out;
}

}  // namespace flotilla::sim
