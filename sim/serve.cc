#include "sim/serve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "api/base64.h"
#include "kube/net/certs.h"
#include "kube/net/http_server.h"
#include "sim/member/member_controller.h"
#include "sim/server/api_server.h"
#include "sim/server/defaults.h"
#include "sim/server/faults.h"
#include "sim/storage/store.h"

namespace flotilla::sim {
namespace fs = std::filesystem;

namespace {

std::optional<std::string> readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Written to a temporary file, then renamed: a reader never sees half a file.
bool writeFile(const fs::path& path, const std::string& content, mode_t mode) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return false;
  bool ok = ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
  ok = ::fsync(fd) == 0 && ok;
  ::close(fd);
  std::error_code ec;
  if (ok) fs::rename(tmp, path, ec);
  return ok && !ec;
}

std::string randomToken() {
  std::random_device rd;
  std::string out;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) {
    const unsigned v = rd() & 0xff;
    out += hex[v >> 4];
    out += hex[v & 15];
  }
  return out;
}

struct Pki {
  std::string caPem;
  std::string certPem;
  std::string keyPem;
};

// The CA and serving certificate survive restarts, so kubeconfigs stay valid.
api::Result<Pki> loadOrCreatePki(const fs::path& dir) {
  fs::create_directories(dir);
  auto ca = readFile(dir / "ca.crt");
  auto caKey = readFile(dir / "ca.key");
  auto cert = readFile(dir / "server.crt");
  auto key = readFile(dir / "server.key");
  if (ca && caKey && cert && key) return Pki{*ca, *cert, *key};
  auto authority = net::generateCertificateAuthority("flotilla-sim-ca");
  if (!authority) return authority.error();
  net::CertificateRequest request;
  request.commonName = "flotilla-sim";
  request.dnsNames = {"localhost", "kubernetes", "kubernetes.default.svc"};
  request.ipAddresses = {"127.0.0.1", "::1"};
  auto serving = net::issueCertificate(*authority, request);
  if (!serving) return serving.error();
  if (!writeFile(dir / "ca.crt", authority->certPem, 0644) ||
      !writeFile(dir / "ca.key", authority->keyPem, 0600) ||
      !writeFile(dir / "server.crt", serving->certPem, 0644) ||
      !writeFile(dir / "server.key", serving->keyPem, 0600))
    return api::Error{
        api::reason::kInternalError, 0, "cannot write certificates to " + dir.string(), {}};
  return Pki{authority->certPem, serving->certPem, serving->keyPem};
}

}  // namespace

std::string kubeconfigYaml(const std::string& name, const std::string& server,
                           const std::string& caPem, const std::string& token) {
  std::string out;
  out += "apiVersion: v1\nkind: Config\n";
  out += "clusters:\n- name: " + name + "\n  cluster:\n    server: " + server +
         "\n    certificate-authority-data: " + api::base64Encode(caPem) + "\n";
  out += "users:\n- name: " + name + "-admin\n  user:\n    token: " + token + "\n";
  out += "contexts:\n- name: " + name + "\n  context:\n    cluster: " + name +
         "\n    user: " + name + "-admin\n    namespace: default\n";
  out += "current-context: " + name + "\n";
  return out;
}

int serve(const ServeOptions& options, std::ostream& log) {
  std::error_code ec;
  fs::create_directories(options.dir, ec);
  if (ec) {
    log << "flotilla-sim: cannot create " << options.dir << ": " << ec.message() << "\n";
    return 1;
  }
  auto pki = loadOrCreatePki(options.dir / "pki" / options.name);
  if (!pki) {
    log << "flotilla-sim: " << pki.error().message << "\n";
    return 1;
  }
  const fs::path tokenPath = options.dir / (options.name + ".token");
  std::string token = readFile(tokenPath).value_or("");
  if (token.empty()) {
    token = randomToken();
    if (!writeFile(tokenPath, token, 0600)) {
      log << "flotilla-sim: cannot write " << tokenPath << "\n";
      return 1;
    }
  }
  // The ServiceAccount token signing key: kept with the PKI, so tokens survive restarts.
  const fs::path keyPath = options.dir / "pki" / options.name / "sa.key";
  std::string signingKey = readFile(keyPath).value_or("");
  if (signingKey.empty()) {
    signingKey = newSigningKey();
    if (!writeFile(keyPath, signingKey, 0600)) {
      log << "flotilla-sim: cannot write " << keyPath << "\n";
      return 1;
    }
  }
  std::vector<TokenFileEntry> tokenFile;
  if (!options.tokenAuthFile.empty()) {
    auto text = readFile(options.tokenAuthFile);
    if (!text) {
      log << "flotilla-sim: cannot read " << options.tokenAuthFile << "\n";
      return 1;
    }
    auto parsed = parseTokenFile(*text, options.tokenAuthFile.string());
    if (!parsed) {
      log << "flotilla-sim: " << parsed.error().message << "\n";
      return 1;
    }
    tokenFile = std::move(*parsed);
  }
  if (options.authorizationMode != "RBAC" && options.authorizationMode != "AlwaysAllow") {
    log << "flotilla-sim: --authorization-mode must be RBAC or AlwaysAllow, not \""
        << options.authorizationMode << "\"\n";
    return 1;
  }
  auto faults = std::make_shared<FaultInjector>();
  if (!options.faultsFile.empty()) {
    auto text = readFile(options.faultsFile);
    if (!text) {
      log << "flotilla-sim: cannot read " << options.faultsFile << "\n";
      return 1;
    }
    auto config = parseFaultConfig(*text);
    if (!config) {
      log << "flotilla-sim: " << options.faultsFile.string() << ": " << config.error().message
          << "\n";
      return 1;
    }
    faults->configure(std::move(*config));
    log << "flotilla-sim: " << options.name << ": fault injection on ("
        << options.faultsFile.string() << ")\n";
  }
  StoreOptions storeOptions;
  storeOptions.dataDir = options.dir / "data" / options.name;
  auto store = Store::open(storeOptions);
  if (!store) {
    log << "flotilla-sim: storage: " << store.error().message << "\n";
    return 1;
  }
  ApiServerOptions apiOptions;
  apiOptions.tokens = {token};
  apiOptions.tokenFile = std::move(tokenFile);
  apiOptions.serviceAccountKey = signingKey;
  apiOptions.rootCaPem = pki->caPem;
  apiOptions.authorizationMode = options.authorizationMode;
  apiOptions.bookmarkInterval = options.bookmarkInterval;
  apiOptions.faults = faults;
  if (!options.gitVersion.empty()) apiOptions.gitVersion = options.gitVersion;
  ApiServer api(**store, apiOptions);
  if (auto booted = api.bootstrap(); !booted) {
    log << "flotilla-sim: bootstrap: " << booted.error().message << "\n";
    return 1;
  }

  std::unique_ptr<MemberController> member;
  if (options.member) {
    MemberOptions memberOptions;
    memberOptions.readyDelay = options.readyDelay;
    memberOptions.jobPodRunTime = options.jobRunTime;
    memberOptions.cronJobMinute = options.cronJobMinute;
    memberOptions.minorVersion = minorVersionOf(apiOptions.gitVersion);
    member = std::make_unique<MemberController>(**store, memberOptions);
    member->start();
  }

  boost::asio::io_context io(options.threads);
  net::HttpServerOptions serverOptions;
  serverOptions.address = options.address;
  auto tls = net::makeServerTlsContext({pki->certPem, pki->keyPem, ""});
  if (!tls) {
    log << "flotilla-sim: TLS: " << tls.error().message << "\n";
    return 1;
  }
  serverOptions.tls = *tls;
  serverOptions.errorResponse = ApiServer::errorResponse;
  const fs::path portPath = options.dir / (options.name + ".port");
  int port = options.port;
  if (port < 0) {
    port = 0;
    const std::string previous = readFile(portPath).value_or("");
    if (!previous.empty() && previous.find_first_not_of("0123456789") == std::string::npos &&
        previous.size() <= 5)
      port = std::stoi(previous);
  }
  serverOptions.port = static_cast<uint16_t>(port);
  auto server = std::make_unique<net::HttpServer>(io, serverOptions, api.handler());
  auto bound = server->start();
  if (!bound && port != 0 && options.port < 0) {  // the old port is taken: any port will do
    serverOptions.port = 0;
    server = std::make_unique<net::HttpServer>(io, serverOptions, api.handler());
    bound = server->start();
  }
  if (!bound) {
    log << "flotilla-sim: " << bound.error().message << "\n";
    return 1;
  }
  const std::string url = server->url();
  const fs::path kubeconfig = options.dir / (options.name + ".kubeconfig");
  if (!writeFile(portPath, std::to_string(*bound), 0644) ||
      !writeFile(kubeconfig, kubeconfigYaml(options.name, url, pki->caPem, token), 0600)) {
    log << "flotilla-sim: cannot write " << kubeconfig << "\n";
    return 1;
  }
  log << "flotilla-sim: cluster \"" << options.name << "\" serving on " << url
      << (options.member ? " (member: deployments, pod binder, kubelet)" : "")
      << " (authorization: " << options.authorizationMode << ")\n"
      << "flotilla-sim: kubectl --kubeconfig " << kubeconfig.string() << " get namespaces\n";
  log.flush();

  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code& e, int) {
    if (e) return;
    log << "flotilla-sim: shutting down\n";
    server->stop();
    io.stop();
  });
  std::vector<std::thread> workers;
  for (int i = 1; i < options.threads; ++i) workers.emplace_back([&] { io.run(); });
  io.run();
  for (auto& t : workers) t.join();
  if (member) member->stop();
  (*store)->flush();
  return 0;
}

}  // namespace flotilla::sim
