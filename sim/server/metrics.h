// Request metrics as kube-apiserver exposes them on /metrics (Prometheus text format):
// apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version}.
// Labels follow kube-apiserver v1.24 (checked against a real server):
//   verb        GET (one object), LIST, WATCH, POST, PUT, PATCH, APPLY (a server-side apply
//               patch), DELETE (one object or a collection: kube reports deletecollection as
//               DELETE with scope namespace or cluster);
//   scope       resource (a named object, and every create), namespace, cluster;
//   group       "" for the core group; dry_run "All" under ?dryRun=All;
//   component   "apiserver" for resource requests; the health probes are counted with component
//               "" and their path as subresource, as kube-apiserver counts them.
// So tests and benchmarks can count the requests (the writes) a client made.
// And apiserver_request_duration_seconds{component,dry_run,group,resource,scope,subresource,verb,
// version} (a histogram, kube-apiserver v1.24's buckets, WATCH not included): how long the server
// took per request, so a benchmark can tell time spent in the server from time spent queueing in
// a client.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace flotilla::sim {

struct RequestLabels {
  std::string verb;
  std::string dryRun;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string scope;
  std::string component = "apiserver";
  int code = 0;
};

// The verb kube-apiserver reports: `named` when the path names one object, `watch` for
// ?watch=true, `contentType` for PATCH (apply-patch+yaml is APPLY).
std::string reportedVerb(std::string_view method, bool named, bool watch,
                         std::string_view contentType);
// "resource" for a named object or a create, "namespace" for a collection in a namespace,
// "cluster" for a collection across namespaces or of a cluster-scoped resource.
std::string reportedScope(std::string_view verb, bool named, bool inNamespace);

// kube-apiserver v1.24's request duration buckets (seconds).
inline constexpr std::array<double, 23> kRequestDurationBuckets{
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
    3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};

class RequestMetrics {
 public:
  void record(const RequestLabels& labels);
  // One request's duration; `labels.code` is not a label of the histogram.
  void observe(const RequestLabels& labels, double seconds);
  // The counter for exactly these labels (0 when never recorded).
  uint64_t count(const RequestLabels& labels) const;
  // The text exposition (`# HELP`, `# TYPE`, one line per label set, sorted).
  std::string exposition() const;

 private:
  struct Histogram {
    std::array<uint64_t, kRequestDurationBuckets.size()> buckets{};  // not cumulative
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> counts_;      // by rendered label set
  std::map<std::string, Histogram> durations_;  // by rendered label set without code and le
};

}  // namespace flotilla::sim
