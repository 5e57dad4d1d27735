#include "sim/fleet.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json.hpp>
#include <cctype>
#include <fstream>
#include <sstream>
#include <thread>

#include "api/base64.h"
#include "api/crd_generator.h"
#include "api/flotilla_types.h"
#include "api/names.h"
#include "api/quantity.h"
#include "api/yaml.h"
#include "kube/net/http_client.h"

namespace flotilla::sim {
namespace fs = std::filesystem;
namespace json = boost::json;
namespace asio = boost::asio;
using namespace std::chrono_literals;

namespace {

// DIR/fleet.clusters: one cluster name per line, written by `up`.
constexpr const char* kFleetFile = "fleet.clusters";

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Synchronous calls to one cluster of the fleet, with the credentials `serve` wrote into DIR.
class Remote {
 public:
  Remote(const fs::path& dir, const std::string& name) {
    token_ = readText(dir / (name + ".token"));
    net::HttpClientOptions options;
    options.tls = net::makeClientTlsContext({readText(dir / "pki" / name / "ca.crt")}).value();
    auto endpoint = net::parseEndpoint("https://127.0.0.1:" + readText(dir / (name + ".port")));
    if (endpoint) http_ = std::make_unique<net::HttpClient>(io_.get_executor(), *endpoint, options);
  }

  std::string url() const { return http_ ? http_->endpoint().str() : ""; }

  api::Result<net::HttpResponse> call(std::string method, std::string target, std::string body = "",
                                      std::string contentType = "application/json") {
    if (!http_) return api::Error{api::reason::kTransport, 0, "no port recorded", {}};
    net::HttpRequest request{std::move(method),
                             std::move(target),
                             {{"Authorization", "Bearer " + token_},
                              {"Content-Type", std::move(contentType)},
                              {"Accept", "application/json"}},
                             std::move(body)};
    auto future = asio::co_spawn(io_, http_->request(std::move(request), 5s), asio::use_future);
    io_.restart();
    io_.run();
    return future.get();
  }

  // Server-side apply: creates or updates `object` at `target` (the object's own URL).
  api::Result<void> apply(const std::string& target, const json::object& object) {
    auto r = call("PATCH", target + "?fieldManager=flotilla-sim&force=true",
                  json::serialize(object), "application/apply-patch+yaml");
    if (!r) return r.error();
    if (r->status != 200 && r->status != 201)
      return api::Error{
          api::reason::kInternalError,
          r->status,
          "applying " + target + ": HTTP " + std::to_string(r->status) + ": " + r->body,
          {}};
    return {};
  }

 private:
  asio::io_context io_;
  std::unique_ptr<net::HttpClient> http_;
  std::string token_;
};

bool alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

// The process `pid` is this fleet's `serve` of cluster `name` in `dir` (its command line says so):
// a pid file left behind by a reboot or a crash may name an unrelated process by now.
bool servesCluster(pid_t pid, const fs::path& dir, const std::string& name) {
  if (!alive(pid)) return false;
  const std::string cmdline = readText("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> args;
  for (size_t start = 0; start < cmdline.size();) {
    const size_t end = cmdline.find('\0', start);
    args.push_back(cmdline.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  bool serve = false;
  bool inDir = false;
  bool named = false;
  std::error_code ec;
  for (size_t i = 0; i < args.size(); ++i) {
    serve = serve || args[i] == "serve";
    if (i + 1 < args.size() && args[i] == "--dir") inDir = fs::equivalent(args[i + 1], dir, ec);
    if (i + 1 < args.size() && args[i] == "--name") named = args[i + 1] == name;
  }
  return serve && inDir && named;
}

pid_t readPid(const fs::path& dir, const std::string& name) {
  const std::string text = readText(dir / (name + ".pid"));
  try {
    return text.empty() ? 0 : static_cast<pid_t>(std::stol(text));
  } catch (const std::exception&) {
    return 0;
  }
}

// Starts `self serve --dir DIR --name NAME [--member] ARGS...` in its own session, output to
// DIR/NAME.log.
pid_t spawn(const std::string& self, const fs::path& dir, const std::string& name, bool member,
            const std::vector<std::string>& serveArgs, const std::string& version) {
  const std::string log = (dir / (name + ".log")).string();
  std::vector<std::string> args = {self, "serve", "--dir", dir.string(), "--name", name};
  if (member) args.emplace_back("--member");
  if (!version.empty()) {
    args.emplace_back("--version");
    args.push_back(version);
  }
  args.insert(args.end(), serveArgs.begin(), serveArgs.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::setsid();
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out >= 0) {
    ::dup2(out, 1);
    ::dup2(out, 2);
  }
  if (in >= 0) ::dup2(in, 0);
  ::execv(self.c_str(), argv.data());
  ::_exit(127);
}

bool waitReady(const fs::path& dir, const std::string& name, pid_t pid, std::ostream& err) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (pid > 0 && ::waitpid(pid, &status, WNOHANG) == pid) {
      err << "flotilla-sim: cluster " << name << " exited during start; see "
          << (dir / (name + ".log")).string() << "\n";
      return false;
    }
    if (fs::exists(dir / (name + ".port")) && fs::exists(dir / (name + ".token"))) {
      Remote remote(dir, name);
      auto r = remote.call("GET", "/readyz");
      if (r && r->status == 200) return true;
    }
    std::this_thread::sleep_for(50ms);
  }
  err << "flotilla-sim: cluster " << name << " did not become ready within 30s\n";
  return false;
}

json::object node(const MemberSpec& m, int index) {
  const std::string name = m.name + "-node-" + std::to_string(index);
  json::object resources{
      {"cpu", m.nodes.cpu}, {"memory", m.nodes.memory}, {"pods", std::to_string(m.nodes.pods)}};
  return json::object{
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", json::object{{"name", name},
                                {"labels", json::object{{"kubernetes.io/hostname", name},
                                                        {"topology.kubernetes.io/region", m.region},
                                                        {"topology.kubernetes.io/zone", m.zone}}}}},
      {"status",
       json::object{
           {"capacity", resources},
           {"allocatable", resources},
           {"conditions", json::array{json::object{
                              {"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}},
           {"nodeInfo",
            json::object{{"kubeletVersion", m.version.empty() ? "v1.32.0" : m.version}}}}}};
}

}  // namespace

api::Result<Topology> parseTopology(std::string_view yaml) {
  auto docs = api::parseManifests(yaml);
  if (!docs) return docs.error();
  if (docs->size() != 1 || !docs->front().value.is_object())
    return api::badRequest("topology: expected one YAML mapping");
  const auto& root = docs->front().value.as_object();
  Topology t;
  auto str = [](const json::object& o, const char* key) {
    const auto* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->as_string()) : std::string();
  };
  if (const auto* host = root.if_contains("host")) {
    if (!host->is_string()) return api::badRequest("topology: host: must be a cluster name");
    t.host = std::string(host->as_string());
  }
  const auto* members = root.if_contains("members");
  if (!members || !members->is_array())
    return api::badRequest("topology: members: a list is required");
  std::vector<std::string> names = {t.host};
  for (size_t i = 0; i < members->as_array().size(); ++i) {
    const std::string path = "topology: members[" + std::to_string(i) + "]";
    const auto& item = members->as_array()[i];
    if (!item.is_object()) return api::badRequest(path + ": must be a mapping");
    const auto& o = item.as_object();
    MemberSpec m;
    m.name = str(o, "name");
    m.provider = str(o, "provider");
    m.region = str(o, "region");
    m.zone = str(o, "zone");
    if (!api::isDns1123Label(m.name)) return api::badRequest(path + ".name: must be a DNS label");
    if (std::find(names.begin(), names.end(), m.name) != names.end())
      return api::badRequest(path + ".name: \"" + m.name + "\" is used twice");
    names.push_back(m.name);
    if (const auto* r = o.if_contains("register")) {
      if (!r->is_bool()) return api::badRequest(path + ".register: must be true or false");
      m.registered = r->as_bool();
    }
    m.version = str(o, "version");
    if (!m.version.empty() && (m.version.rfind("v1.", 0) != 0 || m.version.size() < 4 ||
                               !std::isdigit(static_cast<unsigned char>(m.version[3]))))
      return api::badRequest(path + ".version: \"" + m.version +
                             "\" is not a Kubernetes version like v1.26.3");
    if (const auto* labels = o.if_contains("labels"); labels && labels->is_object()) {
      for (const auto& [k, v] : labels->as_object())
        if (v.is_string()) m.labels[std::string(k)] = std::string(v.as_string());
    }
    if (const auto* nodes = o.if_contains("nodes"); nodes && nodes->is_object()) {
      const auto& n = nodes->as_object();
      if (const auto* c = n.if_contains("count")) {
        if (!c->is_int64() || c->as_int64() < 1 || c->as_int64() > 1000)
          return api::badRequest(path + ".nodes.count: must be 1-1000");
        m.nodes.count = static_cast<int>(c->as_int64());
      }
      if (!str(n, "cpu").empty()) m.nodes.cpu = str(n, "cpu");
      if (!str(n, "memory").empty()) m.nodes.memory = str(n, "memory");
      if (const auto* p = n.if_contains("pods"); p && p->is_int64())
        m.nodes.pods = static_cast<int>(p->as_int64());
      for (const auto& [field, value] :
           {std::pair{"cpu", m.nodes.cpu}, std::pair{"memory", m.nodes.memory}}) {
        if (!api::Quantity::parse(value))
          return api::badRequest(path + ".nodes." + field + ": \"" + value +
                                 "\" is not a quantity");
      }
    }
    t.members.push_back(std::move(m));
  }
  return t;
}

std::vector<std::string> fleetClusters(const fs::path& dir) {
  std::vector<std::string> names;
  std::istringstream listed(readText(dir / kFleetFile));
  for (std::string line; std::getline(listed, line);)
    if (api::isDns1123Label(line) && std::find(names.begin(), names.end(), line) == names.end())
      names.push_back(line);
  if (!names.empty()) return names;
  // A directory from before the fleet file: the clusters `up` started have a pid file and their
  // own CA (DIR/pki/NAME; other pid files, like the demo's operator.pid, have none).
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().stem().string();
    if (entry.path().extension() == ".pid" && fs::is_directory(dir / "pki" / name, ec))
      names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

int up(const Topology& topology, const fs::path& dir, const std::string& self, std::ostream& out,
       std::ostream& err, const std::vector<std::string>& serveArgs) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  std::vector<std::string> clusters = {topology.host};
  for (const auto& m : topology.members) clusters.push_back(m.name);
  {
    // The fleet's own record of its clusters (`status` reads it): this topology's clusters, and
    // those an earlier `up` in this directory started that still run.
    std::vector<std::string> fleet = clusters;
    for (const auto& name : fleetClusters(dir))
      if (std::find(fleet.begin(), fleet.end(), name) == fleet.end() &&
          servesCluster(readPid(dir, name), dir, name))
        fleet.push_back(name);
    std::ofstream file(dir / kFleetFile, std::ios::trunc);
    for (const auto& name : fleet) file << name << "\n";
  }
  for (const auto& name : clusters) {
    pid_t pid = readPid(dir, name);
    if (servesCluster(pid, dir, name)) continue;
    std::string version;
    for (const auto& m : topology.members)
      if (m.name == name) version = m.version;
    pid = spawn(self, dir, name, name != topology.host, serveArgs, version);
    if (pid < 0) {
      err << "flotilla-sim: cannot start " << name << "\n";
      return 1;
    }
    std::ofstream(dir / (name + ".pid")) << pid;
    if (!waitReady(dir, name, pid, err)) return 1;
  }

  Remote host(dir, topology.host);
  for (const auto& crd : api::generateCrds()) {
    const std::string name(crd.crd.at("metadata").at("name").as_string());
    if (auto r = host.apply("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + name,
                            crd.crd.as_object());
        !r) {
      err << "flotilla-sim: " << r.error().message << "\n";
      return 1;
    }
  }
  json::object ns{{"apiVersion", "v1"},
                  {"kind", "Namespace"},
                  {"metadata", json::object{{"name", "flotilla-system"}}}};
  if (auto r = host.apply("/api/v1/namespaces/flotilla-system", ns); !r) {
    err << "flotilla-sim: " << r.error().message << "\n";
    return 1;
  }
  for (const auto& m : topology.members) {
    Remote member(dir, m.name);
    const std::string secretName = m.name + "-credentials";
    json::object secret{
        {"apiVersion", "v1"},
        {"kind", "Secret"},
        {"type", "Opaque"},
        {"metadata",
         json::object{{"name", secretName},
                      {"namespace", "flotilla-system"},
                      {"annotations", json::object{{api::kClusterCredentialsAnnotation, m.name}}}}},
        {"data",
         json::object{{"token", api::base64Encode(readText(dir / (m.name + ".token")))},
                      {"caBundle", api::base64Encode(readText(dir / "pki" / m.name / "ca.crt"))}}}};
    json::object labels;
    for (const auto& [k, v] : m.labels) labels[k] = v;
    json::object cluster{
        {"apiVersion", "flotilla.io/v1alpha1"},
        {"kind", "FederatedCluster"},
        {"metadata", json::object{{"name", m.name}, {"labels", labels}}},
        {"spec", json::object{{"apiEndpoint", member.url()},
                              {"secretRef", json::object{{"namespace", "flotilla-system"},
                                                         {"name", secretName}}},
                              {"provider", m.provider},
                              {"region", m.region},
                              {"zone", m.zone}}}};
    if (!m.registered) {
      out << "flotilla-sim: " << m.name << " is not registered (register: false)\n";
    }
    for (auto r :
         m.registered
             ? std::vector{host.apply("/api/v1/namespaces/flotilla-system/secrets/" + secretName,
                                      secret),
                           host.apply("/apis/flotilla.io/v1alpha1/federatedclusters/" + m.name,
                                      cluster)}
             : std::vector<decltype(host.apply("", secret))>{}) {
      if (!r) {
        err << "flotilla-sim: " << r.error().message << "\n";
        return 1;
      }
    }
    for (int i = 1; i <= m.nodes.count; ++i) {
      const json::object n = node(m, i);
      if (auto r = member.apply(
              "/api/v1/nodes/" + std::string(n.at("metadata").at("name").as_string()), n);
          !r) {
        err << "flotilla-sim: " << r.error().message << "\n";
        return 1;
      }
    }
  }
  out << "flotilla-sim: " << clusters.size() << " clusters up in " << dir.string() << "\n";
  for (const auto& name : clusters) {
    Remote r(dir, name);
    out << "  " << name << (name == topology.host ? " (host)" : "") << "  " << r.url()
        << "  kubectl --kubeconfig " << (dir / (name + ".kubeconfig")).string() << "\n";
  }
  out << "The host has a FederatedCluster and credentials Secret per member:\n  kubectl "
         "--kubeconfig "
      << (dir / (topology.host + ".kubeconfig")).string() << " get fc -o wide\n"
      << "Stop everything with: flotilla-sim down --dir " << dir.string() << "\n";
  return 0;
}

int down(const fs::path& dir, std::ostream& out) {
  std::error_code ec;
  for (const auto& name : fleetClusters(dir)) {
    const fs::path pidFile = dir / (name + ".pid");
    if (!fs::exists(pidFile, ec)) continue;
    const pid_t pid = readPid(dir, name);
    if (servesCluster(pid, dir, name)) {
      ::kill(pid, SIGTERM);
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (alive(pid) && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(20ms);
      if (alive(pid)) ::kill(pid, SIGKILL);
      out << "stopped " << name << " (pid " << pid << ")\n";
    }
    fs::remove(pidFile, ec);
  }
  return 0;
}

int status(const fs::path& dir, std::ostream& out) {
  // Only the clusters this fleet started: other kubeconfigs in DIR (the demo's
  // operator.kubeconfig, a user's own) are not clusters of the fleet.
  const std::vector<std::string> names = fleetClusters(dir);
  if (names.empty()) {
    out << "no clusters in " << dir.string() << "\n";
    return 1;
  }
  int down = 0;
  for (const auto& name : names) {
    const pid_t pid = readPid(dir, name);
    const bool running = servesCluster(pid, dir, name);
    Remote remote(dir, name);
    std::string state = "stopped";
    if (running) {
      auto r = remote.call("GET", "/readyz");
      state = r && r->status == 200 ? "ready" : "not ready";
    }
    if (state != "ready") ++down;
    out << name << "\tpid " << (running ? std::to_string(pid) : "-") << "\t" << state << "\t"
        << remote.url() << "\n";
  }
  return down == 0 ? 0 : 3;
}

}  // namespace flotilla::sim
