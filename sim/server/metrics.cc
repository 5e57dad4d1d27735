#include "sim/server/metrics.h"

namespace flotilla::sim {

namespace {

std::string escape(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Label names in Prometheus' sorted order.
std::string render(const RequestLabels& l) {
  return "{code=\"" + std::to_string(l.code) + "\",component=\"" + escape(l.component) +
         "\",dry_run=\"" + escape(l.dryRun) + "\",group=\"" + escape(l.group) + "\",resource=\"" +
         escape(l.resource) + "\",scope=\"" + escape(l.scope) + "\",subresource=\"" +
         escape(l.subresource) + "\",verb=\"" + escape(l.verb) + "\",version=\"" +
         escape(l.version) + "\"}";
}

}  // namespace

std::string reportedVerb(std::string_view method, bool named, bool watch,
                         std::string_view contentType) {
  if (method == "GET" || method == "HEAD") {
    if (watch) return "WATCH";
    return named ? "GET" : "LIST";
  }
  if (method == "PATCH" && contentType.substr(0, contentType.find(';')) ==
                               std::string_view("application/apply-patch+yaml"))
    return "APPLY";
  return std::string(method);
}

std::string reportedScope(std::string_view verb, bool named, bool inNamespace) {
  if (named || verb == "POST") return "resource";
  return inNamespace ? "namespace" : "cluster";
}

void RequestMetrics::record(const RequestLabels& labels) {
  const std::string key = render(labels);
  std::lock_guard lock(mutex_);
  ++counts_[key];
}

uint64_t RequestMetrics::count(const RequestLabels& labels) const {
  const std::string key = render(labels);
  std::lock_guard lock(mutex_);
  auto it = counts_.find(key);
  return it == counts_.end() ? 0 : it->second;
}

std::string RequestMetrics::exposition() const {
  std::string out =
      "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out for each "
      "verb, dry run value, group, version, resource, scope, component, and HTTP response "
      "code.\n# TYPE apiserver_request_total counter\n";
  std::lock_guard lock(mutex_);
  for (const auto& [labels, count] : counts_)
    out += "apiserver_request_total" + labels + " " + std::to_string(count) + "\n";
  return out;
}

}  // namespace flotilla::sim
