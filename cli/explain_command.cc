// `flotillactl explain overrides -f objects.yaml`: what OverridePolicies and
// ClusterOverridePolicies do to one object on each cluster, offline (docs/design.md §14), with
// the operator's own resolution and overriders (controllers/override), so what it prints is what
// the sync would send.
#include <boost/json.hpp>
#include <iostream>

#include "api/json_codec.h"
#include "api/object_validation.h"
#include "api/unstructured.h"
#include "api/yaml.h"
#include "cli/commands.h"
#include "cli/input.h"
#include "controllers/override/overriders.h"
#include "controllers/override/resolve.h"
#include "controllers/policy/resolve.h"
#include "controllers/sync/member_object.h"
#include "interpreter/interpreter.h"

namespace flotilla::cli {
namespace {

namespace json = boost::json;
namespace u = api::unstructured;
namespace ov = controllers::override;

constexpr const char* kExplainUsage =
    "Usage: flotillactl explain overrides -f FILE [-f FILE...] [--cluster NAME] [-o table|json]\n"
    "\n"
    "Shows, offline, what OverridePolicies and ClusterOverridePolicies do to one object on each\n"
    "cluster, as the operator's sync would apply them. Input: manifests as `kubectl get -o yaml`\n"
    "prints them: FederatedCluster objects, any number of OverridePolicies and\n"
    "ClusterOverridePolicies, and exactly one object (a Deployment, a FederatedDeployment, a\n"
    "FederatedObject, or any other kind's object such as a ConfigMap or a StatefulSet).\n"
    "\n"
    "Prints the policies that select the object, in the order they apply (ClusterOverridePolicies\n"
    "by name, then the object's namespace's OverridePolicies by name), then per cluster the\n"
    "ordered operations of the rules that target it, the overriders skipped (and why), and the\n"
    "resulting changes to the object. A federated object's own spec.overrides for the cluster are\n"
    "applied last, as on the cluster. Replicas are the template's: the division is the\n"
    "scheduler's (flotillactl schedule).\n"
    "\n"
    "Exit status: 0, 3 when the overrides fail on some cluster (a jsonPatch that cannot apply:\n"
    "that cluster would be UpdateFailed), 1 invalid input, 2 usage.\n";

struct ExplainInputs {
  std::vector<api::FederatedCluster> clusters;
  ov::PolicySet policies;
  // The object as members would receive it before overrides, and the federated object's own
  // per-cluster overrides.
  std::optional<json::object> object;
  std::vector<api::ClusterOverride> ownOverrides;
  // A federated object's labels (its source's): what policies select, as in the operator.
  std::optional<std::map<std::string, std::string>> federatedLabels;
};

// A Deployment as the sync sends it (member_object.h): metadata name, namespace, labels and
// annotations, and the spec.
json::object memberDeployment(const std::string& name, const std::string& ns,
                              const json::object& metadata, const json::value& spec) {
  json::object meta{{"name", name}, {"namespace", ns.empty() ? "default" : ns}};
  for (const char* field : {"labels", "annotations"})
    if (const auto* v = metadata.if_contains(field)) meta[field] = *v;
  return json::object{
      {"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", meta}, {"spec", spec}};
}

std::string collectForExplain(const json::value& v, ExplainInputs& in) {
  if (!v.is_object()) return "a document that is not an object";
  const auto& o = v.as_object();
  const std::string apiVersion = u::stringAt(o, {"apiVersion"});
  const std::string kind = u::stringAt(o, {"kind"});
  const std::string group(u::groupOf(apiVersion));
  const bool flotilla = group == "flotilla.io";
  auto oneObject = [&]() -> std::string {
    return in.object ? "more than one object given (explain shows one at a time)" : "";
  };
  if (!flotilla) {
    if (kind.empty()) return "a document without kind";
    // The fleet's credentials and namespaces in the same files (pass a Secret's FederatedObject
    // to explain one).
    if (kind == "Secret" || kind == "Namespace") return "";
    if (u::stringAt(o, {"metadata", "name"}).empty()) return kind + " without metadata.name";
    if (auto more = oneObject(); !more.empty()) return more;
    if (group == "apps" && kind == "Deployment") {
      const auto* meta = u::findObject(o, {"metadata"});
      const auto* spec = u::find(o, {"spec"});
      in.object = memberDeployment(u::stringAt(o, {"metadata", "name"}),
                                   u::stringAt(o, {"metadata", "namespace"}), *meta,
                                   spec ? *spec : json::value(json::object{}));
    } else {
      in.object = interpreter::Registry::builtIn().of(apiVersion, kind).memberTemplate(o);
    }
    return "";
  }
  api::ObjectVerdict verdict = api::validateObject(v);
  if (!verdict.valid()) {
    std::string message = verdict.describe() + " is invalid:";
    for (const auto& e : verdict.errors) message += "\n  " + e.str();
    return message;
  }
  if (kind == "FederatedCluster") {
    in.clusters.push_back(*api::decode<api::FederatedCluster>(v));
  } else if (kind == "OverridePolicy") {
    auto p = *api::decode<api::OverridePolicy>(v);
    if (p.metadata.namespace_.empty()) p.metadata.namespace_ = "default";
    in.policies.policies.push_back(std::make_shared<const api::OverridePolicy>(std::move(p)));
  } else if (kind == "ClusterOverridePolicy") {
    in.policies.clusterPolicies.push_back(std::make_shared<const api::ClusterOverridePolicy>(
        *api::decode<api::ClusterOverridePolicy>(v)));
  } else if (kind == "FederatedDeployment") {
    if (auto more = oneObject(); !more.empty()) return more;
    const auto fd = *api::decode<api::FederatedDeployment>(v);
    const auto* tmpl = u::findObject(o, {"spec", "template"});
    const auto* meta = tmpl ? u::findObject(*tmpl, {"metadata"}) : nullptr;
    const auto* spec = tmpl ? u::find(*tmpl, {"spec"}) : nullptr;
    in.object =
        memberDeployment(fd.metadata.name, fd.metadata.namespace_, meta ? *meta : json::object{},
                         spec ? *spec : json::value(json::object{}));
    in.ownOverrides = fd.spec.overrides;
    in.federatedLabels = fd.metadata.labels;
  } else if (kind == "FederatedObject" || kind == "ClusterFederatedObject") {
    if (auto more = oneObject(); !more.empty()) return more;
    const auto fo = *api::decode<api::FederatedObject>(v);
    json::object object = fo.spec.template_;
    if (kind == "FederatedObject")
      u::ensureObject(object, {"metadata"})["namespace"] =
          fo.metadata.namespace_.empty() ? "default" : fo.metadata.namespace_;
    in.object = std::move(object);
    in.ownOverrides = fo.spec.overrides;
    in.federatedLabels = fo.metadata.labels;
  }
  // (Other flotilla.io kinds are not part of the question: ignored.)
  return "";
}

std::string jsonText(const json::value& v) { return json::serialize(v); }

// The changes from `before` to `after`, one line per field: "+ path: value", "- path: value",
// "~ path: old -> new"; lists whose lengths differ are shown whole.
void diff(const json::value& before, const json::value& after, const std::string& path,
          std::vector<std::string>& out) {
  if (before == after) return;
  if (before.is_object() && after.is_object()) {
    const auto& b = before.as_object();
    const auto& a = after.as_object();
    for (const auto& [k, v] : b) {
      const std::string p = path.empty() ? std::string(k) : path + "." + std::string(k);
      if (const auto* other = a.if_contains(k))
        diff(v, *other, p, out);
      else
        out.push_back("- " + p + ": " + jsonText(v));
    }
    for (const auto& [k, v] : a)
      if (!b.contains(k))
        out.push_back("+ " + (path.empty() ? std::string(k) : path + "." + std::string(k)) + ": " +
                      jsonText(v));
    return;
  }
  if (before.is_array() && after.is_array() &&
      before.as_array().size() == after.as_array().size()) {
    for (size_t i = 0; i < before.as_array().size(); ++i)
      diff(before.as_array()[i], after.as_array()[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  out.push_back("~ " + path + ": " + jsonText(before) + " -> " + jsonText(after));
}

json::object explainCluster(const api::FederatedCluster& cluster, const ExplainInputs& in,
                            const ov::PolicySet& selected) {
  json::object report{{"cluster", cluster.metadata.name}};
  const auto rules = ov::rulesFor(selected, cluster);
  json::array operations;
  for (const auto& r : rules)
    for (const auto& line : ov::describeOperations(r.rule->overriders))
      operations.push_back(
          json::string(r.policy + " rule " + std::to_string(r.index) + ": " + line));
  report["operations"] = std::move(operations);
  json::object object = *in.object;
  const auto result = ov::applyRules(object, rules);
  report["applied"] = json::value_from(result.applied);
  report["skipped"] = json::value_from(result.skipped);
  std::string error = result.error.value_or("");
  if (error.empty()) {
    auto own = controllers::sync::applyOverrides(object, in.ownOverrides, cluster.metadata.name);
    if (own)
      object = std::move(*own);
    else
      error = "spec.overrides: " + own.error().message;
  }
  if (!error.empty()) {
    report["error"] = error;
    return report;
  }
  std::vector<std::string> changes;
  diff(*in.object, object, "", changes);
  report["changes"] = json::value_from(changes);
  return report;
}

void printExplainTable(const json::object& report, std::ostream& out) {
  out << "Object:    " << report.at("object").as_string().c_str() << "\n";
  std::string policies;
  for (const auto& p : report.at("policies").as_array())
    policies += (policies.empty() ? "" : ", ") + std::string(p.as_string());
  out << "Policies:  " << (policies.empty() ? "none selects it" : policies) << "\n";
  for (const auto& c : report.at("clusters").as_array()) {
    const auto& o = c.as_object();
    out << "\nCluster " << o.at("cluster").as_string().c_str() << ":\n";
    const auto& ops = o.at("operations").as_array();
    if (ops.empty()) out << "  no rule targets it\n";
    for (size_t i = 0; i < ops.size(); ++i)
      out << "  " << i + 1 << ". " << ops[i].as_string().c_str() << "\n";
    for (const auto& s : o.at("skipped").as_array())
      out << "  skipped: " << s.as_string().c_str() << "\n";
    if (const auto* e = o.if_contains("error")) {
      out << "  error: " << e->as_string().c_str() << " (this cluster would be UpdateFailed)\n";
      continue;
    }
    const auto& changes = o.at("changes").as_array();
    if (changes.empty() && !ops.empty()) out << "  changes: none\n";
    if (!changes.empty()) out << "  changes:\n";
    for (const auto& line : changes) out << "    " << line.as_string().c_str() << "\n";
  }
}

}  // namespace

int runExplain(const Args& args, std::istream& stdinStream, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    (args.empty() ? err : out) << kExplainUsage;
    return args.empty() ? 2 : 0;
  }
  if (args[0] != "overrides") {
    err << "flotillactl explain: unknown topic \"" << args[0] << "\" (explain overrides)\n"
        << kExplainUsage;
    return 2;
  }
  std::vector<std::string> files;
  std::string format = "table", onlyCluster;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "-h" || args[i] == "--help") {
      out << kExplainUsage;
      return 0;
    }
    if ((args[i] == "-f" || args[i] == "--filename") && i + 1 < args.size()) {
      files.push_back(args[++i]);
    } else if (args[i] == "--cluster" && i + 1 < args.size()) {
      onlyCluster = args[++i];
    } else if ((args[i] == "-o" || args[i] == "--output") && i + 1 < args.size()) {
      format = args[++i];
      if (format != "table" && format != "json") {
        err << "flotillactl explain overrides: -o must be table or json\n";
        return 2;
      }
    } else {
      err << "flotillactl explain overrides: unexpected argument \"" << args[i] << "\"\n"
          << kExplainUsage;
      return 2;
    }
  }
  if (files.empty()) {
    err << "flotillactl explain overrides: at least one -f FILE is required\n" << kExplainUsage;
    return 2;
  }
  ExplainInputs in;
  if (!readManifests(files, stdinStream, err,
                     [&in](const json::value& doc) { return collectForExplain(doc, in); }))
    return 1;
  if (!in.object) {
    err << "error: no object given (a Deployment, a FederatedDeployment, a FederatedObject or "
           "another kind's object)\n";
    return 1;
  }
  if (in.clusters.empty()) {
    err << "error: no FederatedCluster given\n";
    return 1;
  }
  std::sort(in.clusters.begin(), in.clusters.end(),
            [](const auto& a, const auto& b) { return a.metadata.name < b.metadata.name; });
  auto workload = controllers::policy::workloadOf(*in.object);
  if (in.federatedLabels) workload.labels = *in.federatedLabels;
  const auto selected = ov::selecting(in.policies, workload);
  json::object report;
  report["object"] = workload.kind + " " + (workload.ns.empty() ? "" : workload.ns + "/") +
                     workload.name + " (" + workload.apiVersion + ")";
  json::array names;
  for (const auto& p : selected.clusterPolicies) names.push_back(json::string(ov::policyId(*p)));
  for (const auto& p : selected.policies) names.push_back(json::string(ov::policyId(*p)));
  report["policies"] = std::move(names);
  json::array clusters;
  bool failed = false, found = onlyCluster.empty();
  for (const auto& c : in.clusters) {
    if (!onlyCluster.empty() && c.metadata.name != onlyCluster) continue;
    found = true;
    auto one = explainCluster(c, in, selected);
    failed = failed || one.contains("error");
    clusters.push_back(std::move(one));
  }
  if (!found) {
    err << "error: no FederatedCluster named \"" << onlyCluster << "\" given\n";
    return 1;
  }
  report["clusters"] = std::move(clusters);
  if (format == "json")
    out << json::serialize(report) << "\n";
  else
    printExplainTable(report, out);
  return failed ? 3 : 0;
}

}  // namespace flotilla::cli
