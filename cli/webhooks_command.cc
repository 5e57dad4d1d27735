// `flotillactl webhooks`: the operator's Validating/MutatingWebhookConfigurations, generated from
// the endpoints the operator serves (webhooks/admission.h) and the CRDs' resource names, so the
// registration cannot drift from the server. In-cluster (config/webhook) they point at the
// webhook Service and cert-manager injects the CA; for an operator running outside the cluster
// (`make run`, e2e) they point at a URL with the CA of a certificate this command generates.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "api/base64.h"
#include "api/crd_generator.h"
#include "api/flotilla_types.h"
#include "api/yaml.h"
#include "cli/commands.h"
#include "kube/net/certs.h"
#include "webhooks/admission.h"

namespace flotilla::cli {
namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kWebhooksUsage =
    "Usage: flotillactl webhooks [--url BASE --cert-dir DIR] [--service NS/NAME]\n"
    "\n"
    "Prints the ValidatingWebhookConfiguration and MutatingWebhookConfiguration of every\n"
    "flotilla.io kind (kubebuilder's paths, failurePolicy Fail, sideEffects None, timeout 5s).\n"
    "\n"
    "  --service NS/NAME  the webhook Service (default flotilla-system/flotilla-webhook-service);\n"
    "                     the CA is left to cert-manager's inject-ca-from annotation\n"
    "  --url BASE         call the operator at BASE (e.g. https://127.0.0.1:9443) instead\n"
    "  --cert-dir DIR     with --url: the serving certificate the operator reads with --cert-dir;\n"
    "                     ca.crt, tls.crt and tls.key are generated there (for 127.0.0.1 and\n"
    "                     localhost) when missing, and ca.crt becomes the caBundle\n";

std::string readText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Written to a new file made with its final mode (a key is never readable by others, not even
// for a moment), then renamed over `path`. O_EXCL|O_NOFOLLOW: in a directory others can write, a
// file or symlink someone planted under the temporary name is never written through or reused
// (docs/security.md, L5); rename replaces a planted `path` itself, never its target.
bool writeText(const fs::path& path, const std::string& text, fs::perms perms) {
  const fs::path temporary = path.string() + ".tmp-" + std::to_string(::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                        static_cast<mode_t>(perms));
  if (fd < 0) return false;
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  // The mode asked for, whatever the umask took away (fchmod: on this descriptor, not a name).
  const bool ok =
      ::fchmod(fd, static_cast<mode_t>(perms)) == 0 && ::close(fd) == 0 && done == text.size();
  std::error_code ec;
  if (ok) fs::rename(temporary, path, ec);
  if (!ok || ec) {
    fs::remove(temporary, ec);
    return false;
  }
  return true;
}

// The CA of the certificate in `dir`, generating CA and serving pair when they are missing.
api::Result<std::string> ensureCertificates(const fs::path& dir) {
  const fs::path ca = dir / "ca.crt", crt = dir / "tls.crt", key = dir / "tls.key";
  if (fs::exists(ca) && fs::exists(crt) && fs::exists(key)) return api::okString(readText(ca));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return api::badRequest("cannot create " + dir.string() + ": " + ec.message());
  auto authority = net::generateCertificateAuthority("flotilla-webhook-ca");
  if (!authority) return authority.error();
  net::CertificateRequest request;
  request.commonName = "flotilla-webhook";
  request.dnsNames = {"localhost", "flotilla-webhook-service.flotilla-system.svc"};
  request.ipAddresses = {"127.0.0.1"};
  auto pair = net::issueCertificate(*authority, request);
  if (!pair) return pair.error();
  // The key first and the certificate last: an operator watching the directory reloads once the
  // pair is complete.
  if (!writeText(key, pair->keyPem, fs::perms::owner_read | fs::perms::owner_write) ||
      !writeText(crt, pair->certPem,
                 fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                     fs::perms::others_read) ||
      !writeText(ca, authority->certPem,
                 fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                     fs::perms::others_read))
    return api::badRequest("cannot write the certificates into " + dir.string());
  return api::okString(authority->certPem);
}

struct Target {
  std::string url;  // empty: the Service
  std::string serviceNamespace = "flotilla-system", serviceName = "flotilla-webhook-service";
  std::string caPem;
};

json::object configuration(bool mutating, const Target& target) {
  std::map<std::string, const json::value*> crds;  // kind → CRD
  static const auto generated = api::generateCrds();
  for (const auto& g : generated)
    crds[std::string(g.crd.at("spec").at("names").at("kind").as_string())] = &g.crd;
  json::array hooks;
  for (const auto& kind : webhooks::admittedKinds()) {
    const auto it = crds.find(kind);
    if (it == crds.end()) continue;
    const json::value& spec = it->second->at("spec");
    std::string lower = kind;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string path = webhooks::pathFor({kind, mutating});
    json::object clientConfig;
    if (target.url.empty()) {
      clientConfig["service"] = json::object{
          {"namespace", target.serviceNamespace}, {"name", target.serviceName}, {"path", path}};
    } else {
      clientConfig["url"] = target.url + path;
    }
    if (!target.caPem.empty()) clientConfig["caBundle"] = api::base64Encode(target.caPem);
    json::object rule{{"apiGroups", json::array{api::kGroup}},
                      {"apiVersions", json::array{"v1alpha1"}},
                      {"operations", json::array{"CREATE", "UPDATE"}},
                      {"resources", json::array{spec.at("names").at("plural")}},
                      {"scope", spec.at("scope")}};
    hooks.push_back(
        json::object{{"name", std::string(mutating ? "m" : "v") + lower + ".flotilla.io"},
                     {"admissionReviewVersions", json::array{"v1"}},
                     {"sideEffects", "None"},
                     {"failurePolicy", "Fail"},
                     {"matchPolicy", "Equivalent"},
                     {"timeoutSeconds", 5},
                     {"clientConfig", std::move(clientConfig)},
                     {"rules", json::array{std::move(rule)}}});
    if (mutating) hooks.back().as_object()["reinvocationPolicy"] = "Never";
  }
  return json::object{
      {"apiVersion", "admissionregistration.k8s.io/v1"},
      {"kind", mutating ? "MutatingWebhookConfiguration" : "ValidatingWebhookConfiguration"},
      {"metadata", json::object{{"name", mutating ? "flotilla-mutating-webhook-configuration"
                                                  : "flotilla-validating-webhook-configuration"},
                                {"labels", json::object{{"app.kubernetes.io/name", "flotilla"}}}}},
      {"webhooks", std::move(hooks)}};
}

}  // namespace

int runWebhooks(const Args& args, std::ostream& out, std::ostream& err) {
  Target target;
  std::string certDir;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    if (a == "-h" || a == "--help") {
      out << kWebhooksUsage;
      return 0;
    }
    const std::string* v =
        (a == "--url" || a == "--cert-dir" || a == "--service") ? value() : nullptr;
    if (a == "--url" && v) {
      target.url = *v;
      while (!target.url.empty() && target.url.back() == '/') target.url.pop_back();
    } else if (a == "--cert-dir" && v) {
      certDir = *v;
    } else if (a == "--service" && v && v->find('/') != std::string::npos) {
      target.serviceNamespace = v->substr(0, v->find('/'));
      target.serviceName = v->substr(v->find('/') + 1);
    } else {
      err << "flotillactl webhooks: unexpected or incomplete argument \"" << a << "\"\n"
          << kWebhooksUsage;
      return 2;
    }
  }
  if (!target.url.empty()) {
    if (target.url.rfind("https://", 0) != 0) {
      err << "flotillactl webhooks: --url must be https:// (the API server calls webhooks over "
             "TLS only)\n";
      return 2;
    }
    if (certDir.empty()) {
      err << "flotillactl webhooks: --url needs --cert-dir (the CA to inject)\n";
      return 2;
    }
    auto ca = ensureCertificates(certDir);
    if (!ca) {
      err << "flotillactl webhooks: " << ca.error().message << "\n";
      return 1;
    }
    target.caPem = *ca;
  } else if (!certDir.empty()) {
    err << "flotillactl webhooks: --cert-dir is for --url (in-cluster, cert-manager injects the "
           "CA)\n";
    return 2;
  }
  out << "# Generated by `flotillactl webhooks` from the operator's endpoints. Do not edit by "
         "hand:\n"
         "# run `make crds`.\n";
  out << "---\n" << api::toYaml(configuration(true, target));
  out << "---\n" << api::toYaml(configuration(false, target));
  return 0;
}

}  // namespace flotilla::cli
