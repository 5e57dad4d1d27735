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
#pragma once

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

class RequestMetrics {
 public:
  void record(const RequestLabels& labels);
  // The counter for exactly these labels (0 when never recorded).
  uint64_t count(const RequestLabels& labels) const;
  // The text exposition (`# HELP`, `# TYPE`, one line per label set, sorted).
  std::string exposition() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, uint64_t> counts_;  // by rendered label set
};

}  // namespace flotilla::sim
