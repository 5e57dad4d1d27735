#include "operator/options.h"

#include <boost/json/value.hpp>
#include <charconv>
#include <map>

#include "api/duration.h"
#include "api/yaml.h"

namespace flotilla::op {

const char* const kHelp =
    R"(flotilla-operator - schedules and runs workloads across a fleet of member clusters

Usage: flotilla-operator [flags]

Connection to the host cluster:
  --kubeconfig PATH                 kubeconfig of the host (default: $KUBECONFIG, ~/.kube/config,
                                    then the in-cluster service account)
  --context NAME                    kubeconfig context (default: current-context)
  --config FILE                     YAML file with any of these flags as keys (without the dashes,
                                    e.g. "cluster-probe-period: 5s"); flags on the command line win

Leader election (several replicas may run; only the leader works):
  --leader-elect BOOL               elect a leader on a Lease (default true)
  --leader-election-namespace NS    namespace of the Lease (default flotilla-system)
  --leader-election-id NAME         name of the Lease (default flotilla-operator)
  --leader-election-lease-duration  default 15s; --leader-election-renew-deadline 10s;
                                    --leader-election-retry-period 2s

Serving (HTTPS with a self-signed certificate):
  --metrics-bind-address ADDR       Prometheus /metrics (default 127.0.0.1:8080; 0 disables;
                                    the same address as the health probes serves both there)
  --health-probe-bind-address ADDR  /healthz and /readyz (default :8081)

Admission webhooks (every replica serves them; the API server calls the Service):
  --enable-webhooks BOOL            serve the validating and mutating webhooks (default true)
  --webhook-host ADDR               listen address (default 0.0.0.0)
  --webhook-port N                  HTTPS port (default 9443; 0 picks a free port and logs it)
  --cert-dir DIR                    tls.crt and tls.key of the serving certificate, reloaded when
                                    they change (default /tmp/k8s-webhook-server/serving-certs)
  --operator-username NAME          the operator's own user on the host: its federated objects
                                    need no access review (default system:serviceaccount:
                                    <leader-election-namespace>:flotilla-operator)

Member clusters:
  --cluster-probe-period DURATION   how often each member's /readyz is probed (default 10s)
  --cluster-probe-timeout DURATION  timeout of every request to a member (default 5s)
  --cluster-probe-threshold N       consecutive agreeing probes before Ready flips (default 3)
  --cluster-failover-grace DURATION unreachable this long: taint cluster.flotilla.io/unreachable
                                    :NoExecute (default 60s)

Controllers and logs:
  --graceful-move-timeout DURATION  replicas moving between live clusters: the clusters losing
                                    them wait this long at most for the new ones to become
                                    available (make-before-break; default 10m)
  --workers N                       workers per controller (default 2)
  --kube-api-qps N                  requests per second to the host API server (default 200)
  --kube-api-burst N                burst above --kube-api-qps (default 400)
  --log-format text|json            (default text; json carries controller and object key fields)
  --log-level debug|info|warn|error (default info)
  -h, --help                        this text

Durations are Go durations (500ms, 10s, 1m30s). Exit codes: 0 after SIGTERM/SIGINT, 1 on a
start-up failure or a lost Lease (a fresh process starts over), 2 on bad flags.
)";

namespace {

using Setter = std::function<api::Result<bool>(Options&, const std::string&)>;

api::Result<bool> bad(const std::string& flag, const std::string& message) {
  return api::badRequest("--" + flag + ": " + message);
}

Setter stringSetter(std::string Options::*field) {
  return [field](Options& o, const std::string& v) -> api::Result<bool> {
    o.*field = v;
    return true;
  };
}

Setter boolSetter(const std::string& flag, bool Options::*field) {
  return [flag, field](Options& o, const std::string& v) -> api::Result<bool> {
    if (v == "true" || v == "1")
      o.*field = true;
    else if (v == "false" || v == "0")
      o.*field = false;
    else
      return bad(flag, "expected true or false, got \"" + v + "\"");
    return true;
  };
}

template <class D>
Setter durationSetter(const std::string& flag, D Options::*field) {
  return [flag, field](Options& o, const std::string& v) -> api::Result<bool> {
    auto d = api::parseDuration(v);
    if (!d) return bad(flag, d.error().message);
    if (d->count() <= 0) return bad(flag, "must be positive, got \"" + v + "\"");
    o.*field = std::chrono::duration_cast<D>(*d);
    return true;
  };
}

Setter intSetter(const std::string& flag, int Options::*field) {
  return [flag, field](Options& o, const std::string& v) -> api::Result<bool> {
    int n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || n < 1)
      return bad(flag, "expected a positive integer, got \"" + v + "\"");
    o.*field = n;
    return true;
  };
}

Setter addressSetter(const std::string& flag, BindAddress Options::*field) {
  return [flag, field](Options& o, const std::string& v) -> api::Result<bool> {
    auto a = parseBindAddress(v);
    if (!a) return bad(flag, a.error().message);
    o.*field = *a;
    return true;
  };
}

const std::map<std::string, Setter>& setters() {
  static const std::map<std::string, Setter> kSetters = {
      {"kubeconfig", stringSetter(&Options::kubeconfig)},
      {"context", stringSetter(&Options::context)},
      {"leader-elect", boolSetter("leader-elect", &Options::leaderElect)},
      {"leader-election-namespace", stringSetter(&Options::leaderElectionNamespace)},
      {"leader-election-id", stringSetter(&Options::leaderElectionId)},
      {"operator-username", stringSetter(&Options::operatorUsername)},
      {"leader-election-lease-duration",
       durationSetter("leader-election-lease-duration", &Options::leaseDuration)},
      {"leader-election-renew-deadline",
       durationSetter("leader-election-renew-deadline", &Options::renewDeadline)},
      {"leader-election-retry-period",
       durationSetter("leader-election-retry-period", &Options::retryPeriod)},
      {"metrics-bind-address", addressSetter("metrics-bind-address", &Options::metrics)},
      {"health-probe-bind-address", addressSetter("health-probe-bind-address", &Options::health)},
      {"cluster-probe-period",
       durationSetter("cluster-probe-period", &Options::clusterProbePeriod)},
      {"cluster-probe-timeout",
       durationSetter("cluster-probe-timeout", &Options::clusterProbeTimeout)},
      {"cluster-probe-threshold",
       intSetter("cluster-probe-threshold", &Options::clusterProbeThreshold)},
      {"cluster-failover-grace",
       durationSetter("cluster-failover-grace", &Options::clusterFailoverGrace)},
      {"graceful-move-timeout",
       durationSetter("graceful-move-timeout", &Options::gracefulMoveTimeout)},
      {"workers", intSetter("workers", &Options::workers)},
      {"kube-api-qps", intSetter("kube-api-qps", &Options::kubeApiQps)},
      {"kube-api-burst", intSetter("kube-api-burst", &Options::kubeApiBurst)},
      {"enable-webhooks", boolSetter("enable-webhooks", &Options::enableWebhooks)},
      {"webhook-host", stringSetter(&Options::webhookHost)},
      {"cert-dir", stringSetter(&Options::certDir)},
      {"webhook-port",
       [](Options& o, const std::string& v) -> api::Result<bool> {
         int n = -1;
         auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
         if (ec != std::errc() || p != v.data() + v.size() || n < 0 || n > 65535)
           return bad("webhook-port", "expected a port number 0-65535, got \"" + v + "\"");
         o.webhookPort = n;
         return true;
       }},
      {"log-format",
       [](Options& o, const std::string& v) -> api::Result<bool> {
         if (v != "text" && v != "json")
           return bad("log-format", "expected text or json, got \"" + v + "\"");
         o.logFormat = v;
         return true;
       }},
      {"log-level",
       [](Options& o, const std::string& v) -> api::Result<bool> {
         if (v != "debug" && v != "info" && v != "warn" && v != "error")
           return bad("log-level", "expected debug, info, warn or error, got \"" + v + "\"");
         o.logLevel = v;
         return true;
       }},
  };
  return kSetters;
}

std::string scalarText(const boost::json::value& v) {
  if (v.is_string()) return std::string(v.as_string());
  if (v.is_bool()) return v.as_bool() ? "true" : "false";
  if (v.is_int64()) return std::to_string(v.as_int64());
  if (v.is_uint64()) return std::to_string(v.as_uint64());
  return "";
}

}  // namespace

api::Result<BindAddress> parseBindAddress(const std::string& text) {
  if (text == "0") return BindAddress{"", 0, true};
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    return api::badRequest("expected [HOST]:PORT or 0, got \"" + text + "\"");
  }
  BindAddress a;
  a.host = colon == 0 ? "0.0.0.0" : text.substr(0, colon);
  const std::string port = text.substr(colon + 1);
  unsigned n = 0;
  auto [p, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
  if (ec != std::errc() || p != port.data() + port.size() || n > 65535) {
    return api::badRequest("port \"" + port + "\" is not a number between 0 and 65535");
  }
  a.port = static_cast<uint16_t>(n);
  return a;
}

api::Result<Options> parseOptions(const std::vector<std::string>& args,
                                  const FileReader& readFile) {
  // Pass 1: split into (flag, value) pairs; find --config.
  std::vector<std::pair<std::string, std::string>> flags;
  Options options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      options.help = true;
      return options;
    }
    if (arg.rfind("--", 0) != 0) return api::badRequest("unexpected argument \"" + arg + "\"");
    std::string name = arg.substr(2), value;
    const auto eq = name.find('=');
    const std::string bare = eq == std::string::npos ? name : name.substr(0, eq);
    if (bare != "config" && !setters().count(bare))
      return api::badRequest("unknown flag --" + bare + " (see --help)");
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (name == "leader-elect" &&
               (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)) {
      value = "true";  // a bare boolean flag
    } else {
      if (i + 1 >= args.size()) return api::badRequest("--" + name + " needs a value");
      value = args[++i];
    }
    if (name != "config" && !setters().count(name))
      return api::badRequest("unknown flag --" + name + " (see --help)");
    flags.emplace_back(name, value);
  }
  for (const auto& [name, value] : flags) {
    if (name != "config") continue;
    options.configFile = value;
    auto text = readFile(value);
    if (!text) return api::badRequest("--config " + value + ": " + text.error().message);
    auto docs = api::parseManifests(*text);
    if (!docs) return api::badRequest("--config " + value + ": " + docs.error().message);
    if (docs->size() > 1) return api::badRequest("--config " + value + ": expected one document");
    if (!docs->empty()) {
      const auto& doc = docs->front().value;
      if (!doc.is_object()) return api::badRequest("--config " + value + ": expected a mapping");
      for (const auto& [key, v] : doc.as_object()) {
        const std::string k(key);
        auto it = setters().find(k);
        if (it == setters().end() || k == "config")
          return api::badRequest("--config " + value + ": unknown key \"" + k + "\"");
        const std::string text = scalarText(v);
        if (text.empty() && !(v.is_string()))
          return api::badRequest("--config " + value + ": " + k + " must be a scalar");
        auto ok = it->second(options, text);
        if (!ok) return api::badRequest("--config " + value + ": " + ok.error().message.substr(2));
      }
    }
  }
  for (const auto& [name, value] : flags) {
    if (name == "config") continue;
    auto ok = setters().at(name)(options, value);
    if (!ok) return ok.error();
  }
  // client-go's rule: the renew deadline must fit in the lease, the retry period in the deadline.
  if (options.leaseDuration <= options.renewDeadline)
    return api::badRequest(
        "--leader-election-lease-duration must be greater than "
        "--leader-election-renew-deadline");
  if (options.renewDeadline <= options.retryPeriod)
    return api::badRequest(
        "--leader-election-renew-deadline must be greater than "
        "--leader-election-retry-period");
  if (options.leaderElect && options.leaderElectionNamespace.empty())
    return api::badRequest("--leader-election-namespace must not be empty with --leader-elect");
  return options;
}

}  // namespace flotilla::op
