#include "sim/server/rbac.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>
#include <tuple>

#include "sim/server/request.h"

namespace flotilla::sim {
namespace json = boost::json;

namespace {

bool has(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Go's strconv.Quote for the strings that occur here.
std::string goQuote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

std::vector<std::string> strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const auto& item : v->as_array())
    if (item.is_string()) out.emplace_back(item.as_string());
  return out;
}

bool resourceMatches(const PolicyRule& rule, const std::string& combined,
                     const std::string& subresource) {
  for (const auto& r : rule.resources) {
    if (r == "*" || r == combined) return true;
    // "*/scale" matches every resource's scale subresource.
    if (!subresource.empty() && r.size() == subresource.size() + 2 && r.compare(0, 2, "*/") == 0 &&
        r.compare(2, std::string::npos, subresource) == 0)
      return true;
  }
  return false;
}

bool nonResourceMatches(const PolicyRule& rule, const std::string& path) {
  for (const auto& url : rule.nonResourceURLs) {
    if (url == "*" || url == path) return true;
    if (!url.empty() && url.back() == '*' &&
        path.compare(0, url.size() - 1, url, 0, url.size() - 1) == 0)
      return true;
  }
  return false;
}

// --- escalation ("covers") --------------------------------------------------------------------

bool hasAll(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  for (const auto& w : wanted)
    if (!has(owner, w)) return false;
  return true;
}

bool resourcesCovered(const std::vector<std::string>& owner,
                      const std::vector<std::string>& wanted) {
  if (has(owner, "*") || hasAll(owner, wanted)) return true;
  for (const auto& w : wanted) {
    const auto slash = w.find('/');
    if (slash == std::string::npos) return false;
    if (!has(owner, "*" + w.substr(slash))) return false;  // "*/scale" covers "deployments/scale"
  }
  return true;
}

bool urlsCovered(const std::vector<std::string>& owner, const std::vector<std::string>& wanted) {
  for (const auto& w : wanted) {
    bool covered = false;
    for (const auto& o : owner) {
      if (o == w ||
          (!o.empty() && o.back() == '*' && w.compare(0, o.size() - 1, o, 0, o.size() - 1) == 0))
        covered = true;
    }
    if (!covered) return false;
  }
  return true;
}

bool ruleCovers(const PolicyRule& owner, const PolicyRule& sub) {
  const bool verbs = has(owner.verbs, "*") || hasAll(owner.verbs, sub.verbs);
  const bool groups = has(owner.apiGroups, "*") || hasAll(owner.apiGroups, sub.apiGroups);
  const bool resources = resourcesCovered(owner.resources, sub.resources);
  const bool urls = urlsCovered(owner.nonResourceURLs, sub.nonResourceURLs);
  const bool names = sub.resourceNames.empty() ? owner.resourceNames.empty()
                                               : owner.resourceNames.empty() ||
                                                     hasAll(owner.resourceNames, sub.resourceNames);
  return verbs && groups && resources && urls && names;
}

std::vector<PolicyRule> breakdown(const PolicyRule& rule) {
  std::vector<PolicyRule> out;
  for (const auto& g : rule.apiGroups)
    for (const auto& r : rule.resources)
      for (const auto& v : rule.verbs) {
        if (rule.resourceNames.empty()) {
          out.push_back(PolicyRule{{v}, {g}, {r}, {}, {}});
        } else {
          for (const auto& n : rule.resourceNames)
            out.push_back(PolicyRule{{v}, {g}, {r}, {n}, {}});
        }
      }
  for (const auto& url : rule.nonResourceURLs)
    for (const auto& v : rule.verbs) out.push_back(PolicyRule{{v}, {}, {}, {}, {url}});
  return out;
}

std::string compactString(const PolicyRule& r) {
  std::vector<std::string> parts;
  if (!r.apiGroups.empty()) parts.push_back("APIGroups:" + goQuotedList(r.apiGroups));
  if (!r.resources.empty()) parts.push_back("Resources:" + goQuotedList(r.resources));
  if (!r.nonResourceURLs.empty())
    parts.push_back("NonResourceURLs:" + goQuotedList(r.nonResourceURLs));
  if (!r.resourceNames.empty()) parts.push_back("ResourceNames:" + goQuotedList(r.resourceNames));
  if (!r.verbs.empty()) parts.push_back("Verbs:" + goQuotedList(r.verbs));
  std::string out = "{";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

}  // namespace

std::string goQuotedList(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? " " : "") + goQuote(values[i]);
  return out + "]";
}

RequestAttributes requestAttributes(std::string_view method, std::string_view path,
                                    const std::map<std::string, std::string>& query) {
  RequestAttributes a;
  a.path = std::string(path);
  a.verb = lower(method);
  auto parts = detail::splitPath(path);
  if (parts.size() < 3 || (parts[0] != "api" && parts[0] != "apis")) return a;
  size_t i = 1;
  if (parts[0] == "apis") {
    if (parts.size() < 4) return a;
    a.group = parts[i++];
  }
  a.resourceRequest = true;
  a.version = parts[i++];
  bool proxy = false;
  if (parts[i] == "watch" || parts[i] == "proxy") {
    if (parts.size() - i < 2) {  // /api/v1/watch alone: not a resource
      a = RequestAttributes{lower(method), false, std::string(path)};
      return a;
    }
    a.verb = parts[i++];
    proxy = a.verb == "proxy";
  } else if (method == "POST") {
    a.verb = "create";
  } else if (method == "GET" || method == "HEAD") {
    a.verb = "get";
  } else if (method == "PUT") {
    a.verb = "update";
  } else if (method == "PATCH") {
    a.verb = "patch";
  } else if (method == "DELETE") {
    a.verb = "delete";
  } else {
    a.verb = "";
  }
  std::vector<std::string> rest(parts.begin() + static_cast<std::ptrdiff_t>(i), parts.end());
  if (rest[0] == "namespaces") {
    if (rest.size() > 1) {
      a.ns = rest[1];
      // /namespaces/<ns>/<resource>...; "status" and "finalize" are the Namespace's own
      if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize")
        rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  a.resource = rest[0];
  if (rest.size() >= 2) a.name = rest[1];
  if (rest.size() >= 3 && !proxy) a.subresource = rest[2];
  if (a.name.empty() && a.verb == "get") {
    auto watch = query.find("watch");
    const bool watching = watch != query.end() && watch->second != "false" && watch->second != "0";
    a.verb = watching ? "watch" : "list";
    if (auto fs = query.find("fieldSelector"); fs != query.end()) {
      // A metadata.name=x (or ==) requirement names the object.
      std::string_view text = fs->second;
      while (!text.empty()) {
        const size_t comma = text.find(',');
        std::string_view term = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
        std::string_view value;
        if (term.substr(0, 15) == "metadata.name==") {
          value = term.substr(15);
        } else if (term.substr(0, 14) == "metadata.name=") {
          value = term.substr(14);
        } else {
          continue;
        }
        if (!value.empty() && value.find_first_of("/%") == std::string_view::npos && value != "." &&
            value != "..")
          a.name = std::string(value);
        break;
      }
    }
  }
  if (a.name.empty() && a.verb == "delete") a.verb = "deletecollection";
  return a;
}

std::vector<PolicyRule> rulesOf(const json::value& rules) {
  std::vector<PolicyRule> out;
  if (!rules.is_array()) return out;
  for (const auto& item : rules.as_array()) {
    if (!item.is_object()) continue;
    const auto& o = item.as_object();
    out.push_back(PolicyRule{strings(o, "verbs"), strings(o, "apiGroups"), strings(o, "resources"),
                             strings(o, "resourceNames"), strings(o, "nonResourceURLs")});
  }
  return out;
}

bool ruleAllows(const PolicyRule& rule, const RequestAttributes& a) {
  if (!has(rule.verbs, "*") && !has(rule.verbs, a.verb)) return false;
  if (!a.resourceRequest) return nonResourceMatches(rule, a.path);
  if (!has(rule.apiGroups, "*") && !has(rule.apiGroups, a.group)) return false;
  const std::string combined =
      a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  if (!resourceMatches(rule, combined, a.subresource)) return false;
  if (rule.resourceNames.empty()) return true;
  return !a.name.empty() && has(rule.resourceNames, a.name);
}

json::object forbiddenStatus(const RequestAttributes& a, const UserInfo& user,
                             const std::string& reason) {
  std::string why;
  std::string message;
  json::object details;
  if (!a.resourceRequest) {
    why = "User " + goQuote(user.name) + " cannot " + a.verb + " path " + goQuote(a.path);
    message = "forbidden: ";
  } else {
    const std::string resource =
        a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
    why = "User " + goQuote(user.name) + " cannot " + a.verb + " resource " + goQuote(resource) +
          " in API group " + goQuote(a.group) +
          (a.ns.empty() ? " at the cluster scope" : " in the namespace " + goQuote(a.ns));
    const std::string qualified = a.group.empty() ? a.resource : a.resource + "." + a.group;
    message = qualified + (a.name.empty() ? "" : " " + goQuote(a.name)) + " is forbidden: ";
    if (!a.name.empty()) details["name"] = a.name;
    if (!a.group.empty()) details["group"] = a.group;
    if (!a.resource.empty()) details["kind"] = a.resource;
  }
  if (!reason.empty()) why += ": " + reason;
  return json::object{{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", json::object{}},
                      {"status", "Failure"},
                      {"message", message + why},
                      {"reason", "Forbidden"},
                      {"details", std::move(details)},
                      {"code", 403}};
}

std::vector<std::string> uncoveredRules(const std::vector<PolicyRule>& owner,
                                        const std::vector<PolicyRule>& requested) {
  std::vector<PolicyRule> missing;
  for (const auto& rule : requested) {
    for (auto& sub : breakdown(rule)) {
      bool covered = false;
      for (const auto& o : owner) covered = covered || ruleCovers(o, sub);
      if (!covered) missing.push_back(std::move(sub));
    }
  }
  // Compaction: simple resource rules (one group, one resource, at most one name) with the same
  // target merge their verbs, in order of appearance.
  std::vector<PolicyRule> compact;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> simple;
  for (auto& rule : missing) {
    if (rule.nonResourceURLs.empty()) {
      const auto key = std::make_tuple(rule.apiGroups[0], rule.resources[0],
                                       rule.resourceNames.empty() ? "" : rule.resourceNames[0]);
      auto [it, added] = simple.emplace(key, compact.size());
      if (!added) {
        compact[it->second].verbs.push_back(rule.verbs[0]);
        continue;
      }
    }
    compact.push_back(std::move(rule));
  }
  std::set<std::string> described;
  for (const auto& rule : compact) described.insert(compactString(rule));
  return {described.begin(), described.end()};
}

std::string escalationMessage(const UserInfo& user, const std::vector<std::string>& uncovered,
                              const std::vector<std::string>& resolutionErrors) {
  std::string out = "user " + goQuote(user.name) + " (groups=" + goQuotedList(user.groups) +
                    ") is attempting to grant RBAC permissions not currently held:\n";
  for (size_t i = 0; i < uncovered.size(); ++i) out += (i ? "\n" : "") + uncovered[i];
  if (!resolutionErrors.empty()) {
    // []error{aggregate} printed with %v: [[a, b]], or [a] for a single error.
    std::string joined;
    for (size_t i = 0; i < resolutionErrors.size(); ++i)
      joined += (i ? ", " : "") + resolutionErrors[i];
    out += "; resolution errors: [" + (resolutionErrors.size() == 1 ? joined : "[" + joined + "]") +
           "]";
  }
  return out;
}

}  // namespace flotilla::sim
