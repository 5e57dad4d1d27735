#include <boost/json.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "api/base64.h"
#include "api/yaml.h"
#include "kube/config/rest_config.h"

namespace flotilla::kube {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

api::Error configError(std::string message) {
  return api::Error{api::reason::kBadRequest, 0, std::move(message), {}};
}

api::Result<std::string> readFile(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return configError("cannot read " + what + " " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return api::okString(text.str());
}

std::string stringField(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

bool boolField(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

// One named entry (cluster, user or context) and the directory its relative paths resolve against.
struct Entry {
  json::object body;
  fs::path baseDir;
  bool allowFiles = true;
};

struct Merged {
  std::map<std::string, Entry> clusters, users, contexts;
  std::string currentContext;
  std::string sources;  // file names, for messages
};

api::Result<void> mergeDocument(std::string_view text, const fs::path& baseDir,
                                const std::string& name, Merged& merged, bool allowFiles = true) {
  auto docs = api::parseManifests(text);
  if (!docs) return configError("kubeconfig " + name + ": " + docs.error().message);
  if (docs->empty()) return {};
  if (!docs->front().value.is_object())
    return configError("kubeconfig " + name + ": not a mapping at the top level");
  const auto& root = docs->front().value.as_object();
  if (merged.currentContext.empty()) merged.currentContext = stringField(root, "current-context");
  struct Section {
    const char* list;
    const char* item;
    std::map<std::string, Entry>* into;
  };
  for (const Section& s :
       {Section{"clusters", "cluster", &merged.clusters}, Section{"users", "user", &merged.users},
        Section{"contexts", "context", &merged.contexts}}) {
    const auto* list = root.if_contains(s.list);
    if (!list || list->is_null()) continue;
    if (!list->is_array())
      return configError("kubeconfig " + name + ": " + s.list + " must be a list");
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) continue;
      const std::string entryName = stringField(item.as_object(), "name");
      const auto* body = item.as_object().if_contains(s.item);
      if (entryName.empty() || !body || !body->is_object()) continue;
      s.into->try_emplace(entryName,
                          Entry{body->as_object(), baseDir, allowFiles});  // first file wins
    }
  }
  if (!merged.sources.empty()) merged.sources += ":";
  merged.sources += name;
  return {};
}

// A "-data" field (base64) or else a file reference, resolved against the entry's directory.
api::Result<std::string> pemFrom(const Entry& entry, const char* dataKey, const char* fileKey) {
  if (std::string data = stringField(entry.body, dataKey); !data.empty()) {
    auto decoded = api::base64Decode(data);
    if (!decoded) return configError(std::string(dataKey) + " is not valid base64");
    return api::okString(std::move(*decoded));
  }
  std::string file = stringField(entry.body, fileKey);
  if (file.empty()) return api::okString("");
  if (!entry.allowFiles)
    return configError(std::string(fileKey) + " names a local file; this kubeconfig must carry " +
                       dataKey + " inline");
  fs::path path(file);
  if (path.is_relative()) path = entry.baseDir / path;
  return readFile(path, fileKey);
}

api::Result<RestConfig> resolve(const Merged& merged, const std::string& requested) {
  const std::string contextName = requested.empty() ? merged.currentContext : requested;
  if (contextName.empty())
    return configError("kubeconfig " + merged.sources +
                       " has no current-context; choose one with --context");
  auto context = merged.contexts.find(contextName);
  if (context == merged.contexts.end())
    return configError("context \"" + contextName + "\" does not exist in " + merged.sources);
  const std::string clusterName = stringField(context->second.body, "cluster");
  auto cluster = merged.clusters.find(clusterName);
  if (cluster == merged.clusters.end())
    return configError("context \"" + contextName + "\": cluster \"" + clusterName +
                       "\" does not exist");
  RestConfig config;
  config.source = "kubeconfig context " + contextName;
  config.defaultNamespace = stringField(context->second.body, "namespace");
  const Entry& c = cluster->second;
  config.server = stringField(c.body, "server");
  if (config.server.empty()) return configError("cluster \"" + clusterName + "\" has no server");
  config.insecureSkipVerify = boolField(c.body, "insecure-skip-tls-verify");
  config.tlsServerName = stringField(c.body, "tls-server-name");
  auto ca = pemFrom(c, "certificate-authority-data", "certificate-authority");
  if (!ca) return ca.error();
  config.caPem = std::move(*ca);

  const std::string userName = stringField(context->second.body, "user");
  if (userName.empty()) return config;  // anonymous, as kubectl allows
  auto user = merged.users.find(userName);
  if (user == merged.users.end())
    return configError("context \"" + contextName + "\": user \"" + userName + "\" does not exist");
  const Entry& u = user->second;
  if (u.body.contains("exec") || u.body.contains("auth-provider"))
    return configError("user \"" + userName +
                       "\" uses an exec or auth-provider plugin, which flotilla does not run; "
                       "use a token or client certificate");
  auto cert = pemFrom(u, "client-certificate-data", "client-certificate");
  if (!cert) return cert.error();
  auto key = pemFrom(u, "client-key-data", "client-key");
  if (!key) return key.error();
  if (cert->empty() != key->empty())
    return configError("user \"" + userName +
                       "\" has a client certificate without a key or a key without a certificate");
  config.certPem = std::move(*cert);
  config.keyPem = std::move(*key);
  config.token = stringField(u.body, "token");
  if (std::string file = stringField(u.body, "tokenFile"); !file.empty() && config.token.empty()) {
    if (!u.allowFiles)
      return configError("user \"" + userName +
                         "\": tokenFile names a local file; this kubeconfig must carry the token "
                         "inline");
    fs::path path(file);
    config.tokenFile = path.is_relative() ? u.baseDir / path : path;
  }
  config.username = stringField(u.body, "username");
  config.password = stringField(u.body, "password");
  return config;
}

std::vector<std::string> splitPathList(const std::string& list) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  while (start <= list.size()) {
    auto end = list.find(':', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

}  // namespace

EnvLookup processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

api::Result<RestConfig> kubeconfigFromText(std::string_view text, const std::string& context,
                                           const fs::path& baseDir, bool allowFiles) {
  Merged merged;
  if (auto ok = mergeDocument(text, baseDir, "(inline)", merged, allowFiles); !ok)
    return ok.error();
  return resolve(merged, context);
}

api::Result<RestConfig> loadKubeconfig(const KubeconfigOptions& options, const EnvLookup& env) {
  std::vector<fs::path> paths = options.paths;
  bool fromEnv = false;
  if (paths.empty()) {
    if (auto list = env("KUBECONFIG"); list && !list->empty()) {
      for (auto& p : splitPathList(*list)) paths.emplace_back(p);
      fromEnv = true;
    } else if (auto home = env("HOME"); home && !home->empty()) {
      paths.push_back(fs::path(*home) / ".kube" / "config");
    }
  }
  if (paths.empty()) return configError("no kubeconfig: set KUBECONFIG or pass --kubeconfig");
  Merged merged;
  for (const auto& path : paths) {
    std::error_code ec;
    if (fromEnv && !fs::exists(path, ec)) continue;
    auto text = readFile(path, "kubeconfig");
    if (!text) return text.error();
    if (auto ok = mergeDocument(*text, path.parent_path(), path.string(), merged); !ok)
      return ok.error();
  }
  if (merged.sources.empty())
    return configError("none of the kubeconfig files in KUBECONFIG exist");
  return resolve(merged, options.context);
}

api::Result<RestConfig> inClusterConfig(const EnvLookup& env, const fs::path& root) {
  auto host = env("KUBERNETES_SERVICE_HOST");
  auto port = env("KUBERNETES_SERVICE_PORT");
  if (!host || host->empty() || !port || port->empty())
    return configError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not "
        "set");
  RestConfig config;
  config.source = "in-cluster service account";
  const bool ipv6 = host->find(':') != std::string::npos;
  config.server = "https://" + (ipv6 ? "[" + *host + "]" : *host) + ":" + *port;
  config.tokenFile = root / "token";
  if (auto token = readFile(config.tokenFile, "service account token"); !token)
    return token.error();
  auto ca = readFile(root / "ca.crt", "service account CA");
  if (!ca) return ca.error();
  config.caPem = std::move(*ca);
  if (auto ns = readFile(root / "namespace", "namespace"); ns) config.defaultNamespace = *ns;
  return config;
}

api::Result<RestConfig> configFromSecret(const json::object& secret, const std::string& apiEndpoint,
                                         bool insecureSkipVerify) {
  const auto* data = secret.if_contains("data");
  if (!data || !data->is_object()) return configError("secret has no data");
  auto field = [&](const char* key) -> api::Result<std::optional<std::string>> {
    const auto* v = data->as_object().if_contains(key);
    if (!v || !v->is_string()) return std::optional<std::string>();
    auto decoded = api::base64Decode(v->as_string());
    if (!decoded) return configError(std::string("secret data.") + key + " is not valid base64");
    return std::optional<std::string>(std::move(*decoded));
  };
  auto kubeconfig = field("kubeconfig");
  if (!kubeconfig) return kubeconfig.error();
  RestConfig config;
  if (*kubeconfig) {
    // Outside data: it may not name the operator's own files (its ServiceAccount token would be
    // sent to whatever apiEndpoint the FederatedCluster names).
    auto parsed = kubeconfigFromText(**kubeconfig, "", {}, /*allowFiles=*/false);
    if (!parsed) return configError("secret data.kubeconfig: " + parsed.error().message);
    config = std::move(*parsed);
    if (!apiEndpoint.empty()) config.server = apiEndpoint;
  } else {
    auto token = field("token");
    if (!token) return token.error();
    if (!*token || (*token)->empty())
      return configError("secret has neither data.kubeconfig nor data.token");
    auto ca = field("caBundle");
    if (!ca) return ca.error();
    config.server = apiEndpoint;
    config.token = std::move(**token);
    // Tokens are often stored with a trailing newline (`kubectl create secret --from-file`).
    while (!config.token.empty() && (config.token.back() == '\n' || config.token.back() == '\r'))
      config.token.pop_back();
    if (*ca) config.caPem = std::move(**ca);
  }
  if (config.server.empty()) return configError("no API endpoint for the cluster");
  // The credentials go only to a server whose identity is verified (docs/security.md, H1 and
  // L1): a cleartext endpoint or verification turned off — by the FederatedCluster or by the
  // kubeconfig inside the Secret — is an error, never a silent downgrade.
  if (config.server.rfind("https://", 0) != 0) {
    return configError("the API endpoint " + config.server +
                       " is not https: member credentials are sent over verified TLS only");
  }
  if (insecureSkipVerify || config.insecureSkipVerify) {
    return configError(std::string(insecureSkipVerify
                                       ? "spec.insecureSkipTLSVerify"
                                       : "the kubeconfig's insecure-skip-tls-verify") +
                       " turns TLS verification off, and member credentials are sent over "
                       "verified TLS only: put the member API server's CA in the Secret instead");
  }
  config.source = "credentials secret";
  return config;
}

}  // namespace flotilla::kube
