// The load client of bench/e2e_load.sh (issue #15): what a platform team's CI would do to a
// Flotilla host, timed from the outside through the API servers.
//   1. creates the bench namespace and three PropagationPolicies, then N Deployments from C
//      concurrent clients;
//   2. watches the ResourceBindings and the host Deployments and records, per workload, when it
//      was Scheduled, FullyApplied and running (every placed replica ready); prints the time to all
//      of each and bindings/s;
//   3. counts the write requests the host and the members served while that happened (their
//      apiserver_request_total), so writes per binding are the servers' count, not ours;
//   4. measures the host API server's raw write ceiling: C clients creating ConfigMaps as fast as
//      they can for a few seconds;
//   5. with --verify, checks every binding against the members: FullyApplied, and exactly one
//      member Deployment per placed cluster with the placed replicas, none elsewhere.
// Prints `key: value` lines (bench/e2e_load.sh collects them); exits 1 only when the run did not
// converge or --verify found a difference.
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kube/cache/informer.h"
#include "kube/client/rest_client.h"
#include "kube/config/rest_config.h"

namespace asio = boost::asio;
namespace json = boost::json;
using namespace flotilla;
using namespace flotilla::kube;
using Clock = std::chrono::steady_clock;

namespace {

const ResourceId kNamespaces{"", "v1", "namespaces", false, "Namespace"};
const ResourceId kConfigMaps{"", "v1", "configmaps", true, "ConfigMap"};
const ResourceId kDeployments{"apps", "v1", "deployments", true, "Deployment"};
const ResourceId kSecrets{"", "v1", "secrets", true, "Secret"};
const ResourceId kServices{"", "v1", "services", true, "Service"};
const ResourceId kPolicies{"flotilla.io", "v1alpha1", "propagationpolicies", true,
                           "PropagationPolicy"};
const ResourceId kBindings{"flotilla.io", "v1alpha1", "resourcebindings", true, "ResourceBinding"};

struct Options {
  std::string kubeconfig;
  std::map<std::string, std::string> members;  // name -> kubeconfig
  std::string ns = "load";
  int workloads = 1000;
  int clients = 8;
  int shards = 1;  // members labelled bench-shard=s0..s(N-1); each policy stays in its shard
  int ceilingSeconds = 5;
  bool ceilingOnly = false;  // only the ceiling test (after a load run, in its namespace)
  int timeoutSeconds = 600;
  bool ready = true;  // wait for every placed replica to be ready (members that run pods)
  bool verify = false;
  // Each workload is an application (docs/design.md §12): its Deployment reads two ConfigMaps
  // and a Secret and a Service selects its pods; only the Deployment is selected by a policy.
  bool app = false;
};

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// The three kinds of policy the workloads use in turn: spread over at most 3 clusters (Divided,
// Aggregated), weighted by what each cluster can run (Divided, dynamic weights, 2 clusters), and
// Duplicated to 3 clusters. With shards, each kind exists once per shard, restricted to the
// shard's members (clusterAffinity on bench-shard), and the workloads take the shards in turn: a
// fleet's workloads are spread over its clusters by their policies, as in a real fleet, rather
// than all placed on the same few best-scored clusters.
const char* kPolicyKinds[] = {"spread", "dynamic", "duplicated"};

std::string policyName(int kind, int shard, int shards) {
  return std::string(kPolicyKinds[kind]) + (shards > 1 ? "-s" + std::to_string(shard) : "");
}

std::vector<json::object> policies(const std::string& ns, int shards) {
  auto spread = [](int max) {
    return json::array{json::object{{"spreadByField", "cluster"}, {"maxGroups", max}}};
  };
  std::vector<json::object> out;
  for (int shard = 0; shard < shards; ++shard) {
    for (int kind = 0; kind < 3; ++kind) {
      const std::string name = policyName(kind, shard, shards);
      json::object placement;
      if (kind == 0) {
        placement["spreadConstraints"] = spread(3);
        placement["replicaScheduling"] =
            json::object{{"type", "Divided"}, {"division", "Aggregated"}};
      } else if (kind == 1) {
        placement["spreadConstraints"] = spread(2);
        placement["replicaScheduling"] = json::object{
            {"type", "Divided"}, {"division", "Weighted"}, {"dynamicWeight", "AvailableReplicas"}};
      } else {
        placement["spreadConstraints"] = spread(3);
        placement["replicaScheduling"] = json::object{{"type", "Duplicated"}};
      }
      if (shards > 1)
        placement["clusterAffinity"] = json::object{
            {"labelSelector",
             json::object{
                 {"matchLabels", json::object{{"bench-shard", "s" + std::to_string(shard)}}}}}};
      out.push_back(json::object{
          {"apiVersion", "flotilla.io/v1alpha1"},
          {"kind", "PropagationPolicy"},
          {"metadata", json::object{{"name", name}, {"namespace", ns}}},
          {"spec",
           json::object{
               {"resourceSelectors",
                json::array{json::object{
                    {"apiVersion", "apps/v1"},
                    {"kind", "Deployment"},
                    {"labelSelector",
                     json::object{{"matchLabels", json::object{{"bench-policy", name}}}}}}}},
               {"placement", std::move(placement)}}}});
    }
  }
  return out;
}

std::string workloadName(int i) {
  char name[16];
  std::snprintf(name, sizeof name, "w%05d", i);
  return name;
}

int replicasOf(int i) { return 1 + i % 4; }

json::object deployment(const std::string& ns, int i, int shards, bool app = false) {
  const std::string name = workloadName(i);
  const json::object selector{{"app", name}};
  json::object container{{"name", "app"}, {"image", "nginx:1.27"}};
  container["resources"] =
      json::object{{"requests", json::object{{"cpu", "10m"}, {"memory", "16Mi"}}}};
  json::object podTemplate{{"metadata", json::object{{"labels", selector}}},
                           {"spec", json::object{{"containers", json::array{container}}}}};
  json::object spec{{"replicas", replicasOf(i)},
                    {"selector", json::object{{"matchLabels", selector}}},
                    {"template", std::move(podTemplate)}};
  json::object labels{{"app", name}, {"bench-policy", policyName(i % 3, (i / 3) % shards, shards)}};
  if (app) {
    // What an application's pods read: env from one ConfigMap, a volume of the other and of the
    // Secret.
    auto& pod = spec["template"].as_object()["spec"].as_object();
    auto& c = pod["containers"].as_array()[0].as_object();
    c["envFrom"] =
        json::array{json::object{{"configMapRef", json::object{{"name", name + "-env"}}}}};
    c["volumeMounts"] = json::array{json::object{{"name", "files"}, {"mountPath", "/files"}},
                                    json::object{{"name", "creds"}, {"mountPath", "/creds"}}};
    pod["volumes"] = json::array{
        json::object{{"name", "files"}, {"configMap", json::object{{"name", name + "-files"}}}},
        json::object{{"name", "creds"}, {"secret", json::object{{"secretName", name + "-creds"}}}}};
  }
  return json::object{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", json::object{{"name", name}, {"namespace", ns}, {"labels", std::move(labels)}}},
      {"spec", std::move(spec)}};
}

// An application's followers, in the order a user applies them (before the Deployment).
std::vector<std::pair<const ResourceId*, json::object>> followers(const std::string& ns, int i) {
  const std::string name = workloadName(i);
  auto meta = [&](const std::string& n) {
    return json::object{{"name", n}, {"namespace", ns}, {"labels", json::object{{"app", name}}}};
  };
  return {
      {&kConfigMaps, json::object{{"apiVersion", "v1"},
                                  {"kind", "ConfigMap"},
                                  {"metadata", meta(name + "-env")},
                                  {"data", json::object{{"MODE", "fast"}}}}},
      {&kConfigMaps, json::object{{"apiVersion", "v1"},
                                  {"kind", "ConfigMap"},
                                  {"metadata", meta(name + "-files")},
                                  {"data", json::object{{"app.conf", "workers = 4\n"}}}}},
      {&kSecrets, json::object{{"apiVersion", "v1"},
                               {"kind", "Secret"},
                               {"metadata", meta(name + "-creds")},
                               {"stringData", json::object{{"token", "t0ken"}}}}},
      {&kServices,
       json::object{{"apiVersion", "v1"},
                    {"kind", "Service"},
                    {"metadata", meta(name)},
                    {"spec", json::object{{"selector", json::object{{"app", name}}},
                                          {"ports", json::array{json::object{
                                                        {"port", 80}, {"targetPort", 8080}}}}}}}},
  };
}

// What a workload has reached, first time seen (seconds since the first create).
struct Progress {
  double scheduled = -1, applied = -1, ready = -1;
};

const json::value* path(const json::object& o, std::initializer_list<const char*> keys) {
  const json::value* v = nullptr;
  const json::object* at = &o;
  for (const char* k : keys) {
    if (!at) return nullptr;
    v = at->if_contains(k);
    if (!v) return nullptr;
    at = v->is_object() ? &v->as_object() : nullptr;
  }
  return v;
}

bool conditionTrue(const json::object& o, const char* type) {
  const auto* conditions = path(o, {"status", "conditions"});
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array()) {
    if (!c.is_object()) continue;
    const auto* t = c.as_object().if_contains("type");
    const auto* s = c.as_object().if_contains("status");
    if (t && s && t->is_string() && s->is_string() && t->as_string() == type &&
        s->as_string() == "True")
      return true;
  }
  return false;
}

int64_t intAt(const json::object& o, std::initializer_list<const char*> keys) {
  const auto* v = path(o, keys);
  return v && v->is_int64() ? v->as_int64() : (v && v->is_uint64() ? int64_t(v->as_uint64()) : -1);
}

std::string nameOf(const json::object& o) {
  const auto* v = path(o, {"metadata", "name"});
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

// Running: every cluster of the placement reports (aggregatedStatus) as many ready replicas
// as were placed there. (The host Deployment's readyReplicas sums the members', so a Duplicated
// workload shows 9/3 there, as in Karmada: it cannot say "running" by itself.)
bool placedReplicasReady(const json::object& binding) {
  const auto* clusters = path(binding, {"spec", "clusters"});
  const auto* status = path(binding, {"status", "aggregatedStatus"});
  if (!clusters || !clusters->is_array() || clusters->as_array().empty()) return false;
  if (!status || !status->is_array()) return false;
  std::map<std::string, int64_t> ready;
  for (const auto& item : status->as_array()) {
    if (!item.is_object()) continue;
    const auto* n = item.as_object().if_contains("clusterName");
    if (n && n->is_string())
      ready[std::string(n->as_string())] = intAt(item.as_object(), {"readyReplicas"});
  }
  for (const auto& c : clusters->as_array()) {
    if (!c.is_object()) return false;
    const auto* n = c.as_object().if_contains("name");
    if (!n || !n->is_string()) return false;
    auto it = ready.find(std::string(n->as_string()));
    if (it == ready.end() || it->second < intAt(c.as_object(), {"replicas"})) return false;
  }
  return true;
}

// Write requests an API server has served (apiserver_request_total, verbs that write), by
// resource; leases aside (leader election renews them on a timer whatever the load).
// Also the server's time per request (apiserver_request_duration_seconds' sum and count), by
// "VERB resource", so time spent in the server can be told from time spent queueing in a client.
struct Writes {
  double total = 0;  // without leases
  double events = 0;
  std::map<std::string, double> byResource;
  std::map<std::string, std::pair<double, double>> serverSeconds;  // sum, count
};

Writes parseWrites(const std::string& text) {
  Writes w;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const bool sum = line.rfind("apiserver_request_duration_seconds_sum{", 0) == 0;
    const bool count = line.rfind("apiserver_request_duration_seconds_count{", 0) == 0;
    if (!sum && !count && line.rfind("apiserver_request_total{", 0) != 0) continue;
    auto label = [&](const char* key) {
      const std::string k = std::string(key) + "=\"";
      auto at = line.find(k);
      if (at == std::string::npos) return std::string();
      at += k.size();
      return line.substr(at, line.find('"', at) - at);
    };
    const std::string verb = label("verb");
    if (verb != "POST" && verb != "PUT" && verb != "PATCH" && verb != "DELETE" &&
        verb != "CREATE" && verb != "UPDATE" && verb != "APPLY" && verb != "DELETECOLLECTION")
      continue;
    std::string resource = label("resource");
    if (resource == "leases") continue;
    const std::string sub = label("subresource");
    if (!sub.empty()) resource += "/" + sub;
    const double n = std::atof(line.substr(line.rfind(' ') + 1).c_str());
    if (sum || count) {
      auto& [seconds, requests] = w.serverSeconds[verb + " " + resource];
      (sum ? seconds : requests) += n;
      continue;
    }
    w.total += n;
    if (resource == "events") w.events += n;
    w.byResource[resource] += n;
  }
  return w;
}

Writes operator-(const Writes& a, const Writes& b) {
  Writes d;
  d.total = a.total - b.total;
  d.events = a.events - b.events;
  for (const auto& [r, n] : a.byResource) {
    auto it = b.byResource.find(r);
    const double diff = n - (it == b.byResource.end() ? 0 : it->second);
    if (diff != 0) d.byResource[r] = diff;
  }
  for (const auto& [key, value] : a.serverSeconds) {
    auto it = b.serverSeconds.find(key);
    const auto before = it == b.serverSeconds.end() ? std::pair<double, double>{} : it->second;
    if (value.second > before.second)
      d.serverSeconds[key] = {value.first - before.first, value.second - before.second};
  }
  return d;
}

std::map<std::string, std::string> parseMembers(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string pair;
  while (std::getline(in, pair, ',')) {
    auto eq = pair.find('=');
    if (eq == std::string::npos) {
      std::fprintf(stderr, "e2e_load: --member-kubeconfigs wants name=path,...; got %s\n",
                   pair.c_str());
      std::exit(2);
    }
    out[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  return out;
}

constexpr const char* kUsage =
    "usage: e2e_load --kubeconfig HOST [--member-kubeconfigs name=path,...] [--namespace NS]\n"
    "                [--workloads N] [--clients C] [--shards S] [--ceiling-seconds S]\n"
    "                [--timeout S]\n"
    "                [--no-ready] [--verify] [--ceiling-only] [--app]\n";

Options parseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "e2e_load: %s needs a value\n%s", a.c_str(), kUsage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--kubeconfig")
      o.kubeconfig = value();
    else if (a == "--member-kubeconfigs")
      o.members = parseMembers(value());
    else if (a == "--namespace")
      o.ns = value();
    else if (a == "--workloads")
      o.workloads = std::atoi(value().c_str());
    else if (a == "--clients")
      o.clients = std::max(1, std::atoi(value().c_str()));
    else if (a == "--shards")
      o.shards = std::max(1, std::atoi(value().c_str()));
    else if (a == "--ceiling-seconds")
      o.ceilingSeconds = std::atoi(value().c_str());
    else if (a == "--ceiling-only")
      o.ceilingOnly = true;
    else if (a == "--timeout")
      o.timeoutSeconds = std::atoi(value().c_str());
    else if (a == "--no-ready")
      o.ready = false;
    else if (a == "--app")
      o.app = true;
    else if (a == "--verify")
      o.verify = true;
    else {
      std::fprintf(stderr, "e2e_load: unknown argument %s\n%s", a.c_str(), kUsage);
      std::exit(2);
    }
  }
  if (o.kubeconfig.empty() || o.workloads < 1) {
    std::fprintf(stderr, "%s", kUsage);
    std::exit(2);
  }
  return o;
}

class Bench {
 public:
  explicit Bench(Options options) : o_(std::move(options)) {}
  int run();

 private:
  std::unique_ptr<RestClient> connect(const std::string& kubeconfig) {
    KubeconfigOptions ko;
    ko.paths = {kubeconfig};
    auto config = loadKubeconfig(ko);
    if (!config) {
      std::fprintf(stderr, "e2e_load: %s: %s\n", kubeconfig.c_str(),
                   config.error().message.c_str());
      std::exit(2);
    }
    config->qps = 0;  // the bench's clients are not what is measured
    config->userAgent = "flotilla-e2e-load";
    RestClientOptions co;
    co.maxIdleConnections = 64;
    auto client = RestClient::create(io_.get_executor(), *config, co);
    if (!client) {
      std::fprintf(stderr, "e2e_load: %s\n", client.error().message.c_str());
      std::exit(2);
    }
    return std::move(*client);
  }
  template <class Task>
  auto sync(Task task) {
    return asio::co_spawn(io_, std::move(task), asio::use_future).get();
  }
  Writes writesOf(RestClient& client) {
    const std::string metricsPath = "/metrics";
    auto text = sync(client.getRaw(metricsPath));
    if (!text) {
      std::fprintf(stderr, "e2e_load: reading /metrics: %s\n", text.error().message.c_str());
      return {};
    }
    return parseWrites(*text);
  }
  Writes memberWrites() {
    Writes sum;
    for (auto& [name, client] : members_) {
      Writes w = writesOf(*client);
      sum.total += w.total;
      for (const auto& [r, n] : w.byResource) sum.byResource[r] += n;
    }
    return sum;
  }
  void setUp();
  double createAll();
  bool waitAll();
  void ceiling();
  int verify();

  Options o_;
  asio::io_context io_;
  std::unique_ptr<RestClient> host_;
  std::map<std::string, std::unique_ptr<RestClient>> members_;
  std::mutex mutex_;
  std::map<std::string, Progress> progress_;
  Clock::time_point start_;
};

void Bench::setUp() {
  const std::string none;
  json::object nsObject{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", o_.ns}}}};
  const WriteOptions write;
  auto created = sync(host_->create(kNamespaces, none, nsObject, write));
  if (!created && created.error().code != 409) {
    std::fprintf(stderr, "e2e_load: creating namespace %s: %s\n", o_.ns.c_str(),
                 created.error().message.c_str());
    std::exit(1);
  }
  for (const auto& p : policies(o_.ns, o_.shards)) {
    auto made = sync(host_->create(kPolicies, o_.ns, p, write));
    if (!made && made.error().code != 409) {
      std::fprintf(stderr, "e2e_load: creating policy %s: %s\n", nameOf(p).c_str(),
                   made.error().message.c_str());
      std::exit(1);
    }
  }
}

// C coroutines create workloads [0, N) between them; returns the seconds it took.
double Bench::createAll() {
  std::atomic<int> failures{0};
  auto creator = [this, &failures](int first) -> asio::awaitable<void> {
    for (int i = first; i < o_.workloads; i += o_.clients) {
      if (o_.app) {
        for (const auto& [resource, follower] : followers(o_.ns, i)) {
          const WriteOptions write;
          auto f = co_await host_->create(*resource, o_.ns, follower, write);
          if (!f && f.error().code != 409 && failures++ < 5)
            std::fprintf(stderr, "e2e_load: create %s: %s\n", nameOf(follower).c_str(),
                         f.error().message.c_str());
        }
      }
      const json::object object = deployment(o_.ns, i, o_.shards, o_.app);
      const WriteOptions write;
      auto r = co_await host_->create(kDeployments, o_.ns, object, write);
      if (!r && r.error().code != 409) {
        if (failures++ < 5)
          std::fprintf(stderr, "e2e_load: create %s: %s\n", workloadName(i).c_str(),
                       r.error().message.c_str());
      }
    }
  };
  const auto t0 = Clock::now();
  std::vector<std::future<void>> running;
  for (int c = 0; c < o_.clients; ++c)
    running.push_back(asio::co_spawn(io_, creator(c), asio::use_future));
  for (auto& f : running) f.get();
  if (failures) std::printf("create_failures: %d\n", failures.load());
  return seconds(Clock::now() - t0);
}

// Until every workload is Scheduled, FullyApplied and (if asked) Ready, or the timeout.
bool Bench::waitAll() {
  const auto deadline = Clock::now() + std::chrono::seconds(o_.timeoutSeconds);
  int lastReport = -1;
  while (Clock::now() < deadline) {
    int scheduled = 0, applied = 0, ready = 0;
    {
      std::lock_guard lock(mutex_);
      for (const auto& [name, p] : progress_) {
        scheduled += p.scheduled >= 0;
        applied += p.applied >= 0;
        ready += p.ready >= 0;
      }
    }
    const int now = static_cast<int>(seconds(Clock::now() - start_));
    if (now / 10 != lastReport) {
      lastReport = now / 10;
      std::fprintf(stderr, "  %4d s: %d scheduled, %d fully applied, %d ready of %d\n", now,
                   scheduled, applied, ready, o_.workloads);
    }
    if (scheduled >= o_.workloads && applied >= o_.workloads &&
        (!o_.ready || ready >= o_.workloads))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // polling a local counter
  }
  return false;
}

void Bench::ceiling() {
  std::atomic<int> done{0};
  const auto end = Clock::now() + std::chrono::seconds(o_.ceilingSeconds);
  auto writer = [this, &done, end](int id) -> asio::awaitable<void> {
    for (int i = 0; Clock::now() < end; ++i) {
      const json::object cm{{"apiVersion", "v1"},
                            {"kind", "ConfigMap"},
                            {"metadata", json::object{{"name", "ceiling-" + std::to_string(id) +
                                                                   "-" + std::to_string(i)},
                                                      {"namespace", o_.ns}}},
                            {"data", json::object{{"v", std::to_string(i)}}}};
      const WriteOptions write;
      auto r = co_await host_->create(kConfigMaps, o_.ns, cm, write);
      if (r) ++done;
    }
  };
  const auto t0 = Clock::now();
  std::vector<std::future<void>> running;
  const int writers = std::max(o_.clients, 16);
  for (int c = 0; c < writers; ++c)
    running.push_back(asio::co_spawn(io_, writer(c), asio::use_future));
  for (auto& f : running) f.get();
  const double took = seconds(Clock::now() - t0);
  std::printf("host_write_ceiling_per_s: %.0f\n", done / took);
  std::printf("host_write_ceiling_detail: %d ConfigMap creates in %.1f s from %d clients\n",
              done.load(), took, writers);
}

int Bench::verify() {
  const std::string none;
  ListOptions lo;
  auto bindings = sync(host_->list(kBindings, o_.ns, lo));
  if (!bindings) {
    std::fprintf(stderr, "verify: listing bindings: %s\n", bindings.error().message.c_str());
    return 1;
  }
  // (binding, cluster) -> replicas, as placed and as found on the members.
  std::map<std::pair<std::string, std::string>, int64_t> placed, found;
  int problems = 0;
  auto problem = [&](const std::string& text) {
    if (problems++ < 20) std::printf("verify: %s\n", text.c_str());
  };
  int workloadBindings = 0;
  for (const auto& b : bindings->items) {
    const auto* kind = path(b, {"spec", "resource", "kind"});
    if (kind && kind->is_string() && kind->as_string() != "FederatedDeployment") continue;
    ++workloadBindings;
    const std::string name = nameOf(b);
    if (!conditionTrue(b, "FullyApplied")) problem(name + " is not FullyApplied");
    const auto* clusters = path(b, {"spec", "clusters"});
    if (!clusters || !clusters->is_array() || clusters->as_array().empty()) {
      problem(name + " has no placement");
      continue;
    }
    for (const auto& c : clusters->as_array()) {
      if (!c.is_object()) continue;
      const std::string cluster = nameOf(json::object{{"metadata", c}});
      const auto* r = c.as_object().if_contains("replicas");
      placed[{name, cluster}] = r && r->is_int64() ? r->as_int64() : -1;
    }
  }
  if (workloadBindings != o_.workloads)
    problem(std::to_string(workloadBindings) + " bindings for " + std::to_string(o_.workloads) +
            " workloads");
  for (auto& [cluster, client] : members_) {
    ListOptions managed;
    managed.labelSelector = "flotilla.io/managed-by=flotilla";
    auto list = sync(client->list(kDeployments, o_.ns, managed));
    if (!list) {
      if (list.error().code != 404) problem(cluster + ": " + list.error().message);
      continue;
    }
    for (const auto& d : list->items) {
      const auto key = std::make_pair(nameOf(d), cluster);
      if (found.count(key)) problem("duplicate " + key.first + " on " + cluster);
      found[key] = intAt(d, {"spec", "replicas"});
    }
  }
  for (const auto& [key, replicas] : placed) {
    auto it = found.find(key);
    if (it == found.end())
      problem(key.first + " is placed on " + key.second + " but not there");
    else if (it->second != replicas)
      problem(key.first + " on " + key.second + ": " + std::to_string(it->second) +
              " replicas, placed " + std::to_string(replicas));
  }
  for (const auto& [key, replicas] : found)
    if (!placed.count(key)) problem(key.first + " on " + key.second + " is not placed there");
  std::printf("verify_member_deployments: %zu\n", found.size());
  std::printf("verify_problems: %d\n", problems);
  return problems == 0 ? 0 : 1;
}

int Bench::run() {
  auto guard = asio::make_work_guard(io_);
  std::vector<std::thread> threads;
  // One I/O thread: the REST client, like the operator's, runs on a single-threaded context
  // (two threads raced in its connection pool and crashed the client now and then).
  threads.emplace_back([this] { io_.run(); });
  host_ = connect(o_.kubeconfig);
  for (const auto& [name, path] : o_.members) members_[name] = connect(path);
  auto finish = [&](int code) {
    std::fflush(stdout);
    host_.reset();
    members_.clear();
    guard.reset();
    io_.stop();
    for (auto& t : threads) t.join();
    return code;
  };
  if (o_.ceilingOnly) {
    // Run apart from the load, so the CPU the load cost can be read before it.
    ceiling();
    return finish(0);
  }

  setUp();
  // An informer on what the user reads: `kubectl get rb`.
  InformerOptions io;
  io.ns = o_.ns;
  SharedInformer bindings(*host_, kBindings, io);
  auto since = [this] { return seconds(Clock::now() - start_); };
  auto onBinding = [this, since](const ObjectPtr& o) {
    // (An application's followers have bindings of their own: the workloads are the Deployments.)
    const auto* kind = path(*o, {"spec", "resource", "kind"});
    if (kind && kind->is_string() && kind->as_string() != "FederatedDeployment") return;
    const std::string name = nameOf(*o);
    const bool s = conditionTrue(*o, "Scheduled"), a = conditionTrue(*o, "FullyApplied");
    const bool r = a && placedReplicasReady(*o);
    std::lock_guard lock(mutex_);
    auto& p = progress_[name];
    if (s && p.scheduled < 0) p.scheduled = since();
    if (a && p.applied < 0) p.applied = since();
    if (r && p.ready < 0) p.ready = since();
  };
  bindings.addHandler(EventHandler{
      onBinding, [onBinding](const ObjectPtr&, const ObjectPtr& o) { onBinding(o); }, nullptr});
  bindings.start(io_.get_executor());
  while (!bindings.hasSynced()) std::this_thread::sleep_for(std::chrono::milliseconds(10));

  const Writes hostBefore = writesOf(*host_);
  const Writes membersBefore = memberWrites();
  start_ = Clock::now();
  const double createSeconds = createAll();
  std::printf("workloads: %d\nclients: %d\n", o_.workloads, o_.clients);
  std::printf("create_seconds: %.2f\ncreate_per_s: %.0f\n", createSeconds,
              o_.workloads / createSeconds);
  const bool converged = waitAll();
  std::vector<double> sched, applied, ready;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, p] : progress_) {
      if (p.scheduled >= 0) sched.push_back(p.scheduled);
      if (p.applied >= 0) applied.push_back(p.applied);
      if (p.ready >= 0) ready.push_back(p.ready);
    }
  }
  auto report = [&](const char* what, std::vector<double>& times) {
    if (times.empty()) return;
    std::sort(times.begin(), times.end());
    const double all = times.back();
    std::printf("%s_count: %zu\n%s_all_seconds: %.2f\n%s_per_s: %.0f\n", what, times.size(), what,
                all, what, times.size() / all);
  };
  report("scheduled", sched);
  report("fully_applied", applied);
  if (o_.ready) report("ready", ready);
  std::printf("converged: %s\n", converged ? "yes" : "no");

  // The servers' own count of writes, from the first create to now (converged): the bench's
  // creates (N Deployments) are taken out, everything else on the host is Flotilla's (and the
  // host's own controllers'; flotilla-sim's deployment controller writes deployments/status).
  const Writes hostDelta = writesOf(*host_) - hostBefore;
  const Writes memberDelta = memberWrites() - membersBefore;
  // (An application is 5 creates: the Deployment and its 4 followers.)
  const double created = o_.workloads * (o_.app ? 5.0 : 1.0);
  const double flotillaHost = hostDelta.total - created;
  std::printf("host_writes: %.0f\n", hostDelta.total);
  for (const auto& [r, n] : hostDelta.byResource)
    std::printf("host_writes_%s: %.0f\n", r.c_str(), n);
  std::printf("host_writes_per_binding: %.2f\n", flotillaHost / o_.workloads);
  std::printf("host_writes_per_binding_without_events: %.2f\n",
              (flotillaHost - hostDelta.events) / o_.workloads);
  if (o_.app)  // per application (a Deployment and 4 followers), from creation to steady state
    std::printf("host_writes_per_application_without_events: %.2f\n",
                (flotillaHost - hostDelta.events) / o_.workloads);
  if (!applied.empty())
    std::printf("flotilla_host_writes_per_s: %.0f\n", flotillaHost / applied.back());
  // The host's mean time per write request, by verb and resource (the server's own measure).
  for (const auto& [key, value] : hostDelta.serverSeconds)
    std::printf("host_server_ms: %s %.0f requests, mean %.2f ms\n", key.c_str(), value.second,
                value.first / value.second * 1000);
  if (!members_.empty()) {
    std::printf("member_writes: %.0f\n", memberDelta.total);
    for (const auto& [r, n] : memberDelta.byResource)
      std::printf("member_writes_%s: %.0f\n", r.c_str(), n);
  }
  bindings.stop();

  int code = converged ? 0 : 1;
  if (o_.verify) code |= verify();
  {
    // This client's own CPU (it shares the machine with the fleet).
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
    std::printf("client_cpu_seconds: %.2f\n", seconds(usage.ru_utime) + seconds(usage.ru_stime));
  }
  if (o_.ceilingSeconds > 0) ceiling();
  return finish(code);
}

}  // namespace

int main(int argc, char** argv) {
  Bench bench(parseArgs(argc, argv));
  return bench.run();
}
