#include "sim/server/metrics.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

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

// Label names in Prometheus' sorted order, without the braces (the histogram adds `le`).
std::string renderWithoutCode(const RequestLabels& l) {
  return "component=\"" + escape(l.component) + "\",dry_run=\"" + escape(l.dryRun) + "\",group=\"" +
         escape(l.group) + "\",resource=\"" + escape(l.resource) + "\",scope=\"" + escape(l.scope) +
         "\",subresource=\"" + escape(l.subresource) + "\",verb=\"" + escape(l.verb) +
         "\",version=\"" + escape(l.version) + "\"";
}

std::string render(const RequestLabels& l) {
  return "{code=\"" + std::to_string(l.code) + "\"," + renderWithoutCode(l) + "}";
}

// Go's strconv.FormatFloat(v, 'g', -1, 64), as Prometheus prints bucket bounds and sums: the
// shortest digits that read back as v, in plain notation from 1e-4 up to (not including) 1e6.
std::string number(double v) {
  char buffer[400];
  const bool plain = v == 0 || (std::abs(v) >= 1e-4 && std::abs(v) < 1e6);
  for (int precision = plain ? 0 : 1; precision <= (plain ? 24 : 17); ++precision) {
    std::snprintf(buffer, sizeof buffer, plain ? "%.*f" : "%.*g", precision, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  return buffer;
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

void RequestMetrics::observe(const RequestLabels& labels, double seconds) {
  const std::string key = renderWithoutCode(labels);
  std::lock_guard lock(mutex_);
  auto& h = durations_[key];
  for (size_t i = 0; i < kRequestDurationBuckets.size(); ++i) {
    if (seconds <= kRequestDurationBuckets[i]) {
      ++h.buckets[i];
      break;
    }
  }
  ++h.count;
  h.sum += seconds;
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
  if (durations_.empty()) return out;
  out +=
      "# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in "
      "seconds for each verb, dry run value, group, version, resource, subresource, scope and "
      "component.\n# TYPE apiserver_request_duration_seconds histogram\n";
  for (const auto& [labels, h] : durations_) {
    uint64_t cumulative = 0;
    for (size_t i = 0; i < kRequestDurationBuckets.size(); ++i) {
      cumulative += h.buckets[i];
      out += "apiserver_request_duration_seconds_bucket{" + labels + ",le=\"" +
             number(kRequestDurationBuckets[i]) + "\"} " + std::to_string(cumulative) + "\n";
    }
    out += "apiserver_request_duration_seconds_bucket{" + labels + ",le=\"+Inf\"} " +
           std::to_string(h.count) + "\n";
    out += "apiserver_request_duration_seconds_sum{" + labels + "} " + number(h.sum) + "\n";
    out += "apiserver_request_duration_seconds_count{" + labels + "} " + std::to_string(h.count) +
           "\n";
  }
  return out;
}

}  // namespace flotilla::sim
