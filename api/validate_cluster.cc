// Validation of the cluster-scoped configuration kinds: FederatedCluster, SchedulingProfile,
// SchedulerExtender.
#include <algorithm>
#include <boost/url/parse.hpp>
#include <cctype>
#include <set>
#include <span>

#include "api/base64.h"
#include "api/duration.h"
#include "api/validation.h"
#include "api/validation_util.h"

namespace flotilla::api {
namespace {

using validation::Errors;
using validation::idx;

bool isLoopback(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]" || host.starts_with("127.");
}

// An absolute URL with a host, no credentials, query or fragment. `allowLoopbackHttp` permits
// plain http only towards this machine (local test extenders); everything else must be https.
void validateUrl(const std::string& field, const std::string& value, bool allowLoopbackHttp,
                 Errors& errors) {
  if (value.empty()) return errors.required(field);
  auto url = boost::urls::parse_absolute_uri(value);
  auto bad = [&](const std::string& why) {
    errors.add(field, "Invalid value: \"" + value + "\": " + why);
  };
  if (!url) return bad("must be an absolute URL such as https://10.0.0.1:6443");
  const bool https = url->scheme() == "https";
  const bool http = url->scheme() == "http";
  if (!https && !(allowLoopbackHttp && http && isLoopback(url->encoded_host()))) {
    return bad(allowLoopbackHttp ? "must use https (http only for loopback addresses)"
                                 : "must use https");
  }
  if (url->encoded_host().empty()) return bad("must include a host");
  if (url->has_userinfo()) return bad("must not contain user information");
  if (url->has_query()) return bad("must not contain a query");
  if (url->has_fragment()) return bad("must not contain a fragment");
}

void validatePluginSet(const PluginSet& set, const std::string& path, bool scorePoint,
                       std::span<const std::string_view> known, Errors& errors) {
  auto check = [&](const PluginRef& p, const std::string& field, bool allowStar) {
    if (p.name.empty()) return errors.required(field + ".name");
    if (p.name == "*" && allowStar) return;
    if (std::find(known.begin(), known.end(), p.name) == known.end()) {
      std::string list;
      for (auto k : known) list += (list.empty() ? "\"" : ", \"") + std::string(k) + "\"";
      errors.add(field + ".name", "Unsupported value: \"" + p.name +
                                      "\": unknown plugin; supported values: " + list);
    }
  };
  std::set<std::string> seen;
  for (size_t i = 0; i < set.enabled.size(); ++i) {
    const std::string field = idx(path + ".enabled", i);
    check(set.enabled[i], field, false);
    if (!seen.insert(set.enabled[i].name).second) {
      errors.add(field + ".name", "Duplicate value: \"" + set.enabled[i].name + "\"");
    }
    if (set.enabled[i].weight) {
      if (!scorePoint) {
        errors.add(field + ".weight", "may only be specified for score plugins");
      } else {
        errors.minimum(field + ".weight", *set.enabled[i].weight, 1);
      }
    }
  }
  for (size_t i = 0; i < set.disabled.size(); ++i) {
    check(set.disabled[i], idx(path + ".disabled", i), true);
  }
}

}  // namespace

FieldErrors validate(const FederatedCluster& cluster) {
  Errors errors;
  // Cluster names appear in label values and placement summaries, so they are DNS labels.
  validation::validateObjectMeta(cluster.metadata, validation::Scope::kCluster, true, errors);
  const auto& spec = cluster.spec;
  validateUrl("spec.apiEndpoint", spec.apiEndpoint, false, errors);
  if (spec.insecureSkipTLSVerify) {
    // The operator sends the member's credentials to apiEndpoint; unverified, anyone on the path
    // (or whoever chose the endpoint) receives them (docs/security.md, L1).
    errors.add("spec.insecureSkipTLSVerify",
               "Forbidden: member credentials are sent over verified TLS only; put the member "
               "API server's CA in the credentials Secret (caBundle) instead");
  }
  if (spec.secretRef.name.empty()) {
    errors.required("spec.secretRef.name");
  } else {
    errors.dns1123Subdomain("spec.secretRef.name", spec.secretRef.name);
  }
  if (!spec.secretRef.namespace_.empty()) {
    errors.dns1123Label("spec.secretRef.namespace", spec.secretRef.namespace_);
  }
  for (const auto& [field, value] :
       {std::pair{"spec.provider", &spec.provider}, std::pair{"spec.region", &spec.region},
        std::pair{"spec.zone", &spec.zone}}) {
    if (!isLabelValue(*value)) {
      errors.add(field, "Invalid value: \"" + *value + "\": must be a valid label value");
    }
  }
  std::set<std::pair<std::string, std::string>> seen;
  for (size_t i = 0; i < spec.taints.size(); ++i) {
    const std::string field = idx("spec.taints", i);
    errors.append(validateTaint(spec.taints[i], field));
    if (!seen.insert({spec.taints[i].key, spec.taints[i].effect}).second) {
      errors.add(field, "Duplicate value: taints must be unique by key and effect");
    }
  }
  return errors.take();
}

FieldErrors validate(const SchedulingProfile& profile) {
  Errors errors;
  validation::validateObjectMeta(profile.metadata, validation::Scope::kCluster, false, errors);
  const Plugins& p = profile.spec.plugins;
  validatePluginSet(p.filter, "spec.plugins.filter", false, enums::kFilterPlugins, errors);
  validatePluginSet(p.score, "spec.plugins.score", true, enums::kScorePlugins, errors);
  validatePluginSet(p.select, "spec.plugins.select", false, enums::kSelectPlugins, errors);
  validatePluginSet(p.replicas, "spec.plugins.replicas", false, enums::kReplicasPlugins, errors);
  std::set<std::string> seen;
  for (size_t i = 0; i < profile.spec.pluginConfig.size(); ++i) {
    const PluginConfig& c = profile.spec.pluginConfig[i];
    const std::string field = idx("spec.pluginConfig", i);
    auto known = [&](auto list) { return enums::contains(list, c.name); };
    if (c.name.empty()) {
      errors.required(field + ".name");
    } else if (!known(enums::kFilterPlugins) && !known(enums::kScorePlugins) &&
               !known(enums::kSelectPlugins) && !known(enums::kReplicasPlugins)) {
      errors.add(field + ".name", "Unsupported value: \"" + c.name + "\": unknown plugin");
    }
    if (!seen.insert(c.name).second)
      errors.add(field + ".name", "Duplicate value: \"" + c.name + "\"");
    if (!c.args.is_null() && !c.args.is_object()) errors.add(field + ".args", "must be an object");
  }
  return errors.take();
}

FieldErrors validate(const SchedulerExtender& extender) {
  Errors errors;
  validation::validateObjectMeta(extender.metadata, validation::Scope::kCluster, false, errors);
  const auto& spec = extender.spec;
  validateUrl("spec.urlPrefix", spec.urlPrefix, true, errors);
  if (spec.filterVerb.empty() && spec.prioritizeVerb.empty()) {
    errors.add("spec", "Required value: at least one of filterVerb or prioritizeVerb");
  }
  for (const auto& [field, verb] : {std::pair{"spec.filterVerb", &spec.filterVerb},
                                    std::pair{"spec.prioritizeVerb", &spec.prioritizeVerb}}) {
    if (verb->find_first_of("/?# \t") != std::string::npos) {
      errors.add(field, "Invalid value: \"" + *verb + "\": must be a single path segment");
    }
  }
  if (spec.weight) errors.minimum("spec.weight", *spec.weight, 1);
  errors.duration("spec.httpTimeout", spec.httpTimeout, true);
  // A filter call holds a scheduler worker: an extender may not hold it longer than this
  // (docs/security.md, L4).
  if (auto timeout = parseDuration(spec.httpTimeout);
      timeout && *timeout > std::chrono::seconds(30)) {
    errors.add("spec.httpTimeout",
               "Invalid value: \"" + spec.httpTimeout + "\": must be at most 30s");
  }
  if (spec.tls && !spec.tls->caBundle.empty() && !base64Decode(spec.tls->caBundle)) {
    errors.add("spec.tls.caBundle", "must be base64-encoded PEM");
  }
  return errors.take();
}

}  // namespace flotilla::api
