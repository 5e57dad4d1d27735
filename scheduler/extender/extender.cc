#include "scheduler/extender/extender.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "api/base64.h"
#include "api/duration.h"
#include "api/json_codec.h"
#include "api/validation.h"
#include "scheduler/framework/plugin.h"

namespace flotilla::scheduler {
namespace json = boost::json;

api::Result<ExtenderConfig> extenderConfig(const api::SchedulerExtender& extender) {
  api::SchedulerExtender defaulted = extender;
  api::setDefaults(defaulted);
  if (auto errors = api::validate(defaulted); !errors.empty())
    return api::invalid(
        "SchedulerExtender \"" + extender.metadata.name + "\" is invalid: " + errors.front().str(),
        errors);
  const auto& spec = defaulted.spec;
  ExtenderConfig config;
  config.name = defaulted.metadata.name;
  config.urlPrefix = spec.urlPrefix;
  config.filterVerb = spec.filterVerb;
  config.prioritizeVerb = spec.prioritizeVerb;
  config.weight = spec.weight.value_or(1);
  config.ignorable = spec.ignorable;
  config.nodeCacheCapable = spec.nodeCacheCapable;
  auto timeout = api::parseDuration(spec.httpTimeout);
  if (!timeout) return timeout.error();  // validate() already checked; kept for safety
  config.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*timeout);
  if (spec.tls) {
    if (!spec.tls->caBundle.empty()) {
      auto pem = api::base64Decode(spec.tls->caBundle);
      if (!pem) return api::badRequest("spec.tls.caBundle: must be base64-encoded PEM");
      config.caPem = std::move(*pem);
    }
    config.insecureSkipVerify = spec.tls->insecureSkipVerify;
    config.serverName = spec.tls->serverName;
  }
  return config;
}

api::Result<std::vector<ExtenderConfig>> extenderConfigs(
    const std::vector<api::SchedulerExtender>& extenders) {
  std::vector<ExtenderConfig> out;
  out.reserve(extenders.size());
  for (const auto& e : extenders) {
    auto config = extenderConfig(e);
    if (!config) return config.error();
    out.push_back(std::move(*config));
  }
  std::sort(out.begin(), out.end(), [](const ExtenderConfig& a, const ExtenderConfig& b) {
    if (a.ignorable != b.ignorable) return !a.ignorable;
    return a.name < b.name;
  });
  return out;
}

std::string extenderArgs(const SchedulingUnit& unit,
                         const std::vector<const api::FederatedCluster*>& clusters,
                         bool nodeCacheCapable) {
  json::object binding;
  binding["key"] = unit.key;
  binding["apiVersion"] = unit.apiVersion;
  binding["kind"] = unit.kind;
  binding["replicas"] = unit.replicas;
  binding["priority"] = unit.priority;
  json::object requests;
  for (const auto& [name, quantity] : unit.resourceRequest) requests[name] = quantity.str();
  binding["resourceRequest"] = std::move(requests);
  json::object current;
  for (const auto& [name, replicas] : unit.currentReplicas) current[name] = replicas;
  binding["currentReplicas"] = std::move(current);

  json::object args;
  args["binding"] = std::move(binding);
  json::array names;
  names.reserve(clusters.size());
  for (const auto* c : clusters) names.emplace_back(c->metadata.name);
  args["clusterNames"] = std::move(names);
  if (!nodeCacheCapable) {
    json::array items;
    items.reserve(clusters.size());
    for (const auto* c : clusters) items.push_back(api::encode(*c));
    args["clusters"] =
        json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", std::move(items)}};
  }
  return json::serialize(args);
}

namespace {

api::Error badResponse(const std::string& what) {
  return api::Error{api::reason::kInternalError, 0, "invalid extender response: " + what, {}};
}

api::Result<json::value> parseBody(std::string_view body) {
  auto parsed = api::parseJson(body);
  if (!parsed) return badResponse(parsed.error().message);
  return std::move(*parsed);
}

}  // namespace

api::Result<ExtenderFilterResult> parseFilterResponse(std::string_view body,
                                                      const std::vector<std::string>& sent,
                                                      const std::string& extenderName) {
  auto parsed = parseBody(body);
  if (!parsed) return parsed.error();
  const json::object* root = parsed->if_object();
  if (!root) return badResponse("expected a JSON object");
  if (const auto* error = root->if_contains("error"); error && !error->is_null()) {
    if (!error->is_string()) return badResponse("\"error\" must be a string");
    if (!error->as_string().empty())
      return api::Error{
          api::reason::kInternalError, 0, "extender error: " + std::string(error->as_string()), {}};
  }
  const std::set<std::string> sentSet(sent.begin(), sent.end());
  std::set<std::string> passed;
  if (const auto* names = root->if_contains("clusterNames"); names && !names->is_null()) {
    if (!names->is_array()) return badResponse("\"clusterNames\" must be an array of strings");
    for (const auto& n : names->as_array()) {
      if (!n.is_string()) return badResponse("\"clusterNames\" must be an array of strings");
      passed.emplace(n.as_string());
    }
  }
  if (const auto* list = root->if_contains("clusters"); list && !list->is_null()) {
    const auto* items = list->is_object() ? list->as_object().if_contains("items") : nullptr;
    if (!items || !items->is_array()) return badResponse("\"clusters\" must be a List with items");
    for (const auto& item : items->as_array()) {
      const json::value* name = nullptr;
      if (const auto* o = item.if_object())
        if (const auto* meta = o->if_contains("metadata"); meta && meta->is_object())
          name = meta->as_object().if_contains("name");
      if (!name || !name->is_string())
        return badResponse("a returned cluster has no metadata.name");
      passed.emplace(name->as_string());
    }
  }
  ExtenderFilterResult result;
  for (const char* field : {"failedClusters", "failedAndUnresolvableClusters"}) {
    const auto* failed = root->if_contains(field);
    if (!failed || failed->is_null()) continue;
    if (!failed->is_object())
      return badResponse("\"" + std::string(field) + "\" must map cluster names to reasons");
    for (const auto& [cluster, reason] : failed->as_object()) {
      if (!reason.is_string())
        return badResponse("\"" + std::string(field) + "\" must map cluster names to reasons");
      const std::string name(cluster);
      if (sentSet.count(name) && !passed.count(name))
        result.failed.emplace(name, std::string(reason.as_string()));
    }
  }
  for (const auto& name : sent) {
    if (passed.count(name)) {
      if (!result.failed.count(name)) result.passed.push_back(name);
    } else if (!result.failed.count(name)) {
      result.failed.emplace(name, "rejected by extender " + extenderName);
    }
  }
  return result;
}

api::Result<std::map<std::string, int64_t>> parsePrioritizeResponse(
    std::string_view body, const std::vector<std::string>& sent, int64_t weight) {
  auto parsed = parseBody(body);
  if (!parsed) return parsed.error();
  const json::array* list = parsed->if_array();
  if (!list) return badResponse("expected a JSON array of {\"cluster\", \"score\"}");
  const std::set<std::string> sentSet(sent.begin(), sent.end());
  std::map<std::string, int64_t> out;
  for (const auto& entry : *list) {
    const json::object* o = entry.if_object();
    if (!o) return badResponse("expected a JSON array of {\"cluster\", \"score\"}");
    const json::value* name = o->if_contains("cluster");
    if (!name) name = o->if_contains("host");  // kube-scheduler extenders' spelling
    const json::value* score = o->if_contains("score");
    if (!name || !name->is_string() || !score || !score->is_int64())
      return badResponse("each entry needs a string \"cluster\" and an integer \"score\"");
    const int64_t s = score->as_int64();
    if (s < 0 || s > kMaxExtenderScore)
      return badResponse("score " + std::to_string(s) + " for cluster \"" +
                         std::string(name->as_string()) + "\" is outside 0-10");
    const std::string cluster(name->as_string());
    if (sentSet.count(cluster)) out[cluster] = s * (kMaxClusterScore / kMaxExtenderScore) * weight;
  }
  return out;
}

}  // namespace flotilla::scheduler
