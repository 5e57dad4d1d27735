// RBAC as kube-apiserver evaluates it (rbac.authorization.k8s.io/v1): who is asking (UserInfo),
// what they ask for (RequestAttributes, derived from the HTTP request as kube-apiserver's
// RequestInfoFactory derives them), whether a PolicyRule allows it, the 403 Forbidden Status
// kube-apiserver sends, and the "covers" check behind escalation prevention. Pure functions; the
// bindings index lives in authorizer.h.
#pragma once

#include <boost/json/fwd.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace flotilla::sim {

inline constexpr std::string_view kRbacGroup = "rbac.authorization.k8s.io";
inline constexpr std::string_view kSystemMasters = "system:masters";
inline constexpr std::string_view kSystemAuthenticated = "system:authenticated";

struct UserInfo {
  std::string name;
  std::string uid;
  std::vector<std::string> groups;
};

// kube-apiserver's authorizer.Attributes.
struct RequestAttributes {
  std::string verb;  // get list watch create update patch delete deletecollection; non-resource:
                     // the lower-case method
  bool resourceRequest = false;
  std::string path;  // non-resource requests
  std::string group, version, resource, subresource, ns, name;
};

// As kube-apiserver's RequestInfoFactory: /api/v1/... and /apis/<g>/<v>/... with at least a
// resource are resource requests (verb from the method; GET without a name is list, or watch with
// ?watch=true|1; DELETE without a name is deletecollection; a metadata.name field selector on a
// list or watch names the object); everything else (/api, /apis/apps/v1, /version, /metrics) is a
// non-resource request with the lower-case method as verb.
RequestAttributes requestAttributes(std::string_view method, std::string_view path,
                                    const std::map<std::string, std::string>& query);

struct PolicyRule {
  std::vector<std::string> verbs, apiGroups, resources, resourceNames, nonResourceURLs;
  bool operator==(const PolicyRule&) const = default;
};

// The rules of a Role/ClusterRole object ("rules"); malformed entries are skipped.
std::vector<PolicyRule> rulesOf(const boost::json::value& rules);

// Whether one rule allows the request (wildcards "*", "*/sub" and "res/*" resources,
// resourceNames only for named requests, nonResourceURLs with a trailing "*").
bool ruleAllows(const PolicyRule& rule, const RequestAttributes& attributes);

// The Status body of kube-apiserver's 403 for a denied request. `reason` (RBAC resolution errors,
// "RBAC: ...") is appended after ": " when not empty.
boost::json::object forbiddenStatus(const RequestAttributes& attributes, const UserInfo& user,
                                    const std::string& reason);

// Escalation prevention: the sub-rules of `requested` that `owner` does not cover, broken down,
// compacted and formatted as kube-apiserver lists them ({APIGroups:["apps"], Resources:[...],
// Verbs:["get" "list"]}), sorted; empty when every permission is held.
std::vector<std::string> uncoveredRules(const std::vector<PolicyRule>& owner,
                                        const std::vector<PolicyRule>& requested);
// `user "u" (groups=["a" "b"]) is attempting to grant RBAC permissions not currently held:\n...`
std::string escalationMessage(const UserInfo& user, const std::vector<std::string>& uncovered,
                              const std::vector<std::string>& resolutionErrors);

// Go's %q of a []string: ["a" "b"].
std::string goQuotedList(const std::vector<std::string>& values);

}  // namespace flotilla::sim
