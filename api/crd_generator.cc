#include "api/crd_generator.h"

#include <boost/json.hpp>
#include <map>
#include <set>
#include <stdexcept>

#include "api/codec_impl.h"
#include "api/describe.h"
#include "api/enums.h"

namespace flotilla::api {
namespace {

namespace json = boost::json;
using codec_detail::Described;
using codec_detail::Integer;
using codec_detail::jsonName;

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};
template <class T>
struct IsVector : std::false_type {};
template <class T>
struct IsVector<std::vector<T>> : std::true_type {};
template <class T>
struct IsStringMap : std::false_type {};
template <class T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

// What the C++ types cannot say about a field, keyed by schema path ("spec.placement.maxClusters",
// "[]" for list items).
struct Hint {
  std::vector<std::string_view> enumValues;
  std::optional<int64_t> minimum;
  json::value defaultValue;
  bool required = false;
  std::string description;
  std::optional<int64_t> maximum;
};

template <size_t N>
std::vector<std::string_view> values(const std::array<std::string_view, N>& a) {
  return {a.begin(), a.end()};
}

std::map<std::string, Hint> hints() {
  std::map<std::string, Hint> h;
  auto enumOf = [&](const std::string& path, std::vector<std::string_view> v) {
    h[path].enumValues = std::move(v);
  };
  // Shared shapes, under every place they appear.
  for (const std::string base : {"spec.taints[]", "spec.placement.clusterTolerations[]",
                                 "spec.replicaRequirements.tolerations[]"}) {
    enumOf(base + ".effect", values(enums::kTaintEffect));
  }
  for (const std::string base :
       {"spec.placement.clusterTolerations[]", "spec.replicaRequirements.tolerations[]"}) {
    enumOf(base + ".operator", values(enums::kTolerationOperator));
  }
  h["spec.taints[].key"].required = true;
  h["spec.taints[].effect"].required = true;

  // FederatedCluster
  h["spec.apiEndpoint"] = {{}, {}, nullptr, true, "HTTPS URL of the member cluster's API server."};
  h["spec.secretRef"].required = true;
  h["spec.secretRef.name"].required = true;
  h["spec.secretRef.namespace"].defaultValue = "flotilla-system";

  // PropagationPolicy / ClusterPropagationPolicy (and the copy in ResourceBinding.spec.placement)
  h["spec.resourceSelectors"] = {{}, {}, nullptr, true, ""};
  h["spec.resourceSelectors[].apiVersion"].required = true;
  h["spec.resourceSelectors[].kind"].required = true;
  h["spec.priority"].defaultValue = 0;
  enumOf("spec.conflictResolution", values(enums::kConflictResolution));
  enumOf("spec.dependencies", values(enums::kDependencies));
  const std::string p = "spec.placement";
  enumOf(p + ".clusterAffinity.fieldSelector.matchExpressions[].key",
         values(enums::kFieldSelectorKey));
  enumOf(p + ".clusterAffinity.fieldSelector.matchExpressions[].operator",
         values(enums::kFieldSelectorOperator));
  for (const char* f : {"key", "operator", "values"}) {
    h[p + ".clusterAffinity.fieldSelector.matchExpressions[]." + f].required = true;
  }
  enumOf(p + ".spreadConstraints[].spreadByField", values(enums::kSpreadByField));
  h[p + ".spreadConstraints[].minGroups"] = {{}, 1, 1, false, ""};
  h[p + ".spreadConstraints[].maxGroups"].minimum = 1;
  h[p + ".topologySpreadConstraints[].topologyKey"].required = true;
  h[p + ".topologySpreadConstraints[].maxSkew"] = {{}, 1, nullptr, true, ""};
  h[p + ".topologySpreadConstraints[].whenUnsatisfiable"] = {
      values(enums::kWhenUnsatisfiable), {}, nullptr, true, ""};
  h[p + ".maxClusters"].minimum = 0;
  enumOf(p + ".replicaScheduling.type", values(enums::kReplicaSchedulingType));
  // (No default: in a policy an absent type means the selected kind's default, which the binding
  // controller writes into every binding.)
  enumOf(p + ".replicaScheduling.division", values(enums::kReplicaDivision));
  enumOf(p + ".replicaScheduling.dynamicWeight", values(enums::kDynamicWeight));
  h[p + ".replicaScheduling.avoidDisruption"].defaultValue = true;
  h[p + ".replicaScheduling.weights[].targetCluster"].required = true;
  h[p + ".replicaScheduling.weights[].weight"].minimum = 0;
  h[p + ".replicaScheduling.weights[].weight"].maximum = 1'000'000;
  h[p + ".replicaScheduling.weights[].minReplicas"].minimum = 0;
  h[p + ".replicaScheduling.weights[].maxReplicas"].minimum = 0;
  // OverridePolicy / ClusterOverridePolicy (docs/design.md §14)
  h["spec.rules"].required = true;
  const std::string o = "spec.rules[].overriders";
  enumOf(o + ".image[].component", values(enums::kImageComponent));
  enumOf(o + ".image[].operator", values(enums::kOverrideOperator));
  h[o + ".image[].component"].required = true;
  h[o + ".image[].operator"].required = true;
  for (const char* list : {".command[]", ".args[]"}) {
    enumOf(o + list + ".operator", values(enums::kListOperator));
    h[o + list + ".operator"].required = true;
    h[o + list + ".containerName"].required = true;
  }
  enumOf(o + ".env[].operator", values(enums::kOverrideOperator));
  h[o + ".env[].operator"].required = true;
  h[o + ".env[].containerName"].required = true;
  for (const char* list : {".labels[]", ".annotations[]"}) {
    enumOf(o + list + ".operator", values(enums::kOverrideOperator));
    h[o + list + ".operator"].required = true;
  }
  enumOf(o + ".jsonPatch[].op", values(enums::kOverridePatchOp));
  h[o + ".jsonPatch[].op"].required = true;
  h[o + ".jsonPatch[].path"].required = true;
  const std::string t = "spec.rules[].targetCluster";
  enumOf(t + ".fieldSelector.matchExpressions[].key", values(enums::kFieldSelectorKey));
  enumOf(t + ".fieldSelector.matchExpressions[].operator", values(enums::kFieldSelectorOperator));
  h["spec.autoMigration.podUnschedulableFor"].defaultValue = "1m";
  h["spec.autoMigration.capacityTTL"].defaultValue = "5m";
  h["spec.failover.clusterNotReadyFor"].defaultValue = "60s";
  h["spec.failover.failback"] = {values(enums::kFailback), {}, "Rebalance", false, ""};

  // FederatedDeployment
  h["spec.overrides[].clusterName"].required = true;
  h["spec.overrides[].patches[].op"] = {values(enums::kJsonPatchOp), {}, nullptr, true, ""};
  h["spec.overrides[].patches[].path"].required = true;
  enumOf("status.clusters[].propagation", values(enums::kPropagation));
  // FederatedObject / ClusterFederatedObject (hints go by path alone: `spec.template` would
  // change FederatedDeployment's too, so the template's rules are the webhook's)
  enumOf("status.clusters[].health", values(enums::kHealth));

  // ResourceBinding
  h["spec.resource"].required = true;
  for (const char* f : {"apiVersion", "kind", "name"})
    h[std::string("spec.resource.") + f].required = true;
  h["spec.replicas"].minimum = 0;
  enumOf("spec.policy.kind", values(enums::kPolicyKind));
  h["spec.clusters[].name"].required = true;
  h["spec.clusters[].replicas"].minimum = 0;
  enumOf("status.lastScheduleType", values(enums::kScheduleType));
  enumOf("status.aggregatedStatus[].health", values(enums::kHealth));
  enumOf("status.aggregatedStatus[].propagation", values(enums::kPropagation));

  // SchedulingProfile
  for (const std::string point : {"filter", "score", "select", "replicas"}) {
    h["spec.plugins." + point + ".enabled[].name"].required = true;
    h["spec.plugins." + point + ".disabled[].name"].required = true;
  }
  h["spec.plugins.score.enabled[].weight"] = {{}, 1, 1, false, ""};
  h["spec.pluginConfig[].name"].required = true;

  // SchedulerExtender
  h["spec.urlPrefix"].required = true;
  h["spec.weight"] = {{}, 1, 1, false, ""};
  h["spec.httpTimeout"].defaultValue = "5s";
  return h;
}

// Walks a described type and emits its structural OpenAPI v3 schema.
class SchemaBuilder {
 public:
  explicit SchemaBuilder(std::map<std::string, Hint> hints) : hints_(std::move(hints)) {}

  template <class T>
  json::object build(const std::string& path) {
    json::object schema = schemaOf<T>(path);
    applyHint(path, schema);
    return schema;
  }

  std::set<std::string> usedHints;

 private:
  void applyHint(const std::string& path, json::object& schema) {
    auto it = hints_.find(path);
    if (it == hints_.end()) return;
    usedHints.insert(path);
    const Hint& h = it->second;
    if (!h.enumValues.empty()) {
      json::array e;
      for (auto v : h.enumValues) e.emplace_back(v);
      schema["enum"] = std::move(e);
    }
    if (h.minimum) schema["minimum"] = *h.minimum;
    if (h.maximum) schema["maximum"] = *h.maximum;
    if (!h.defaultValue.is_null()) schema["default"] = h.defaultValue;
    if (!h.description.empty()) schema["description"] = h.description;
  }

  bool isRequired(const std::string& path) {
    auto it = hints_.find(path);
    if (it == hints_.end()) return false;
    usedHints.insert(path);
    return it->second.required;
  }

  template <class T>
  json::object schemaOf(const std::string& path) {
    if constexpr (std::is_same_v<T, std::string>) {
      return {{"type", "string"}};
    } else if constexpr (std::is_same_v<T, bool>) {
      return {{"type", "boolean"}};
    } else if constexpr (Integer<T>) {
      return {{"type", "integer"}, {"format", sizeof(T) <= 4 ? "int32" : "int64"}};
    } else if constexpr (std::is_same_v<T, Quantity>) {
      return {
          {"anyOf",
           json::array{json::object{{"type", "integer"}}, json::object{{"type", "string"}}}},
          {"pattern",
           R"(^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$)"},
          {"x-kubernetes-int-or-string", true}};
    } else if constexpr (std::is_same_v<T, json::value>) {
      return {{"x-kubernetes-preserve-unknown-fields", true}};  // any JSON (patch values)
    } else if constexpr (std::is_same_v<T, json::object>) {
      return {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
    } else if constexpr (IsOptional<T>::value) {
      return build<typename T::value_type>(path);
    } else if constexpr (IsVector<T>::value) {
      return {{"type", "array"}, {"items", build<typename T::value_type>(path + "[]")}};
    } else if constexpr (IsStringMap<T>::value) {
      return {{"type", "object"},
              {"additionalProperties", build<typename T::mapped_type>(path + "[]")}};
    } else if constexpr (std::is_same_v<T, ObjectMeta>) {
      return {{"type", "object"}};  // the API server owns metadata's schema
    } else if constexpr (std::is_same_v<T, DeploymentTemplate>) {
      // The Deployment template is opaque: kept verbatim, validated by the member cluster.
      return {{"type", "object"},
              {"x-kubernetes-preserve-unknown-fields", true},
              {"description",
               "A Deployment's metadata (labels, annotations) and spec, kept verbatim."}};
    } else if constexpr (std::is_same_v<T, Condition>) {
      return conditionSchema();
    } else if constexpr (Described<T>) {
      json::object properties;
      json::array required;
      boost::mp11::mp_for_each<boost::describe::describe_members<T, boost::describe::mod_public>>(
          [&](auto member) {
            const std::string name(jsonName(member.name));
            const std::string child = path.empty() ? name : path + "." + name;
            using Field = std::remove_cvref_t<decltype(std::declval<T>().*member.pointer)>;
            properties[name] = build<Field>(child);
            if (isRequired(child)) required.emplace_back(name);
          });
      json::object schema{{"type", "object"}, {"properties", std::move(properties)}};
      if (!required.empty()) schema["required"] = std::move(required);
      return schema;
    } else {
      static_assert(sizeof(T) == 0, "no schema for this type");
    }
  }

  static json::object conditionSchema() {
    json::object props{
        {"type", json::object{{"type", "string"}}},
        {"status",
         json::object{{"type", "string"}, {"enum", json::array{"True", "False", "Unknown"}}}},
        {"observedGeneration",
         json::object{{"type", "integer"}, {"format", "int64"}, {"minimum", 0}}},
        {"lastTransitionTime", json::object{{"type", "string"}, {"format", "date-time"}}},
        {"reason", json::object{{"type", "string"}}},
        {"message", json::object{{"type", "string"}}},
    };
    return {{"type", "object"},
            {"properties", std::move(props)},
            {"required", json::array{"type", "status"}}};
  }

  std::map<std::string, Hint> hints_;
};

json::object column(const char* name, const char* type, const char* jsonPath,
                    const char* description = nullptr) {
  json::object c{{"name", name}, {"type", type}, {"jsonPath", jsonPath}};
  if (description) c["description"] = description;
  return c;
}

json::object ageColumn() { return column("Age", "date", ".metadata.creationTimestamp"); }

struct CrdSpec {
  const char* kind;
  const char* plural;
  const char* singular;
  std::vector<const char*> shortNames;
  bool namespaced;
  json::array columns;
};

template <class T>
GeneratedCrd generate(const CrdSpec& spec, std::set<std::string>& usedHints) {
  SchemaBuilder builder(hints());
  json::object root{
      {"type", "object"},
      {"properties",
       json::object{
           {"apiVersion", json::object{{"type", "string"}}},
           {"kind", json::object{{"type", "string"}}},
           {"metadata", json::object{{"type", "object"}}},
           {"spec", builder.build<decltype(T::spec)>("spec")},
           {"status", builder.build<decltype(T::status)>("status")},
       }},
  };
  usedHints.insert(builder.usedHints.begin(), builder.usedHints.end());
  json::array shortNames;
  for (const char* s : spec.shortNames) shortNames.emplace_back(s);
  const std::string name = std::string(spec.plural) + "." + kGroup;
  json::object crd{
      {"apiVersion", "apiextensions.k8s.io/v1"},
      {"kind", "CustomResourceDefinition"},
      {"metadata", json::object{{"name", name}}},
      {"spec",
       json::object{
           {"group", kGroup},
           {"names", json::object{{"kind", spec.kind},
                                  {"listKind", std::string(spec.kind) + "List"},
                                  {"plural", spec.plural},
                                  {"singular", spec.singular},
                                  {"shortNames", std::move(shortNames)},
                                  {"categories", json::array{"flotilla"}}}},
           {"scope", spec.namespaced ? "Namespaced" : "Cluster"},
           {"versions", json::array{json::object{
                            {"name", kVersion},
                            {"served", true},
                            {"storage", true},
                            {"subresources", json::object{{"status", json::object{}}}},
                            {"additionalPrinterColumns", spec.columns},
                            {"schema", json::object{{"openAPIV3Schema", std::move(root)}}},
                        }}},
       }},
  };
  if (spec.shortNames.empty()) crd["spec"].as_object()["names"].as_object().erase("shortNames");
  return {std::string(kGroup) + "_" + spec.plural + ".yaml", std::move(crd)};
}

}  // namespace

std::vector<GeneratedCrd> generateCrds() {
  const char* ready = R"(.status.conditions[?(@.type=="Ready")].status)";
  json::array policyColumns{
      column("Priority", "integer", ".spec.priority"),
      column("Type", "string", ".spec.placement.replicaScheduling.type"),
      column("Division", "string", ".spec.placement.replicaScheduling.division"), ageColumn()};
  std::set<std::string> used;
  std::vector<GeneratedCrd> out;
  out.push_back(generate<FederatedCluster>(
      {"FederatedCluster",
       "federatedclusters",
       "federatedcluster",
       {"fc"},
       false,
       json::array{column("Ready", "string", ready), column("Provider", "string", ".spec.provider"),
                   column("Region", "string", ".spec.region"),
                   column("Zone", "string", ".spec.zone"),
                   column("Version", "string", ".status.kubernetesVersion"), ageColumn()}},
      used));
  out.push_back(generate<PropagationPolicy>({"PropagationPolicy",
                                             "propagationpolicies",
                                             "propagationpolicy",
                                             {"pp"},
                                             true,
                                             policyColumns},
                                            used));
  out.push_back(generate<ClusterPropagationPolicy>({"ClusterPropagationPolicy",
                                                    "clusterpropagationpolicies",
                                                    "clusterpropagationpolicy",
                                                    {"cpp"},
                                                    false,
                                                    policyColumns},
                                                   used));
  out.push_back(generate<OverridePolicy>(
      {"OverridePolicy", "overridepolicies", "overridepolicy", {"op"}, true, json::array{ageColumn()}},
      used));
  out.push_back(generate<ClusterOverridePolicy>({"ClusterOverridePolicy",
                                                 "clusteroverridepolicies",
                                                 "clusteroverridepolicy",
                                                 {"cop"},
                                                 false,
                                                 json::array{ageColumn()}},
                                                used));
  out.push_back(generate<FederatedDeployment>(
      {"FederatedDeployment",
       "federateddeployments",
       "federateddeployment",
       {"fdeploy"},
       true,
       json::array{
           column("Ready", "string", ".status.ready", "Ready replicas / desired replicas"),
           column("Clusters", "string", ".status.clusterNames", "The clusters it is scheduled to"),
           ageColumn()}},
      used));
  const json::array objectColumns{
      column("Kind", "string", ".spec.template.kind"),
      column("Healthy", "string", ".status.healthy", "Healthy clusters / targeted clusters"),
      column("Clusters", "string", ".status.clusterNames", "The clusters it is placed on"),
      column("Progress", "string", ".status.progress",
             "The fleet-wide object's own progress: READY of a StatefulSet or DaemonSet, "
             "COMPLETIONS of a Job"),
      ageColumn()};
  out.push_back(generate<FederatedObject>(
      {"FederatedObject", "federatedobjects", "federatedobject", {"fo"}, true, objectColumns},
      used));
  out.push_back(generate<ClusterFederatedObject>({"ClusterFederatedObject",
                                                  "clusterfederatedobjects",
                                                  "clusterfederatedobject",
                                                  {"cfo"},
                                                  false,
                                                  objectColumns},
                                                 used));
  const json::array bindingColumns{
      column("Scheduled", "string", R"(.status.conditions[?(@.type=="Scheduled")].status)"),
      column("FullyApplied", "string", R"(.status.conditions[?(@.type=="FullyApplied")].status)"),
      column("Replicas", "integer", ".spec.replicas"),
      column("Placement", "string", ".status.placementSummary"), ageColumn()};
  out.push_back(generate<ResourceBinding>(
      {"ResourceBinding", "resourcebindings", "resourcebinding", {"rb"}, true, bindingColumns},
      used));
  out.push_back(generate<ClusterResourceBinding>({"ClusterResourceBinding",
                                                  "clusterresourcebindings",
                                                  "clusterresourcebinding",
                                                  {"crb"},
                                                  false,
                                                  bindingColumns},
                                                 used));
  out.push_back(generate<SchedulingProfile>({"SchedulingProfile",
                                             "schedulingprofiles",
                                             "schedulingprofile",
                                             {"sp"},
                                             false,
                                             json::array{ageColumn()}},
                                            used));
  out.push_back(generate<SchedulerExtender>(
      {"SchedulerExtender",
       "schedulerextenders",
       "schedulerextender",
       {},
       false,
       json::array{column("URL", "string", ".spec.urlPrefix"),
                   column("Weight", "integer", ".spec.weight"),
                   column("Ignorable", "boolean", ".spec.ignorable"), ageColumn()}},
      used));
  // A hint no type consumed is a typo or a stale path: fail loudly (programming error).
  for (const auto& [path, hint] : hints()) {
    if (!used.count(path)) {
      throw std::logic_error("CRD hint for unknown path " + path);
    }
  }
  return out;
}

}  // namespace flotilla::api
