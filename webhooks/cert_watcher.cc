#include "webhooks/cert_watcher.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace flotilla::webhooks {
namespace fs = std::filesystem;

namespace {

api::Result<std::string> readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return api::Error{api::reason::kNotFound, 0, "cannot read " + path.string(), {}};
  std::stringstream text;
  text << in.rdbuf();
  return api::okString(text.str());
}

}  // namespace

CertWatcher::CertWatcher(fs::path dir) : dir_(std::move(dir)) {}

CertWatcher::Stamp CertWatcher::stampOf(const fs::path& file) const {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return {};  // follows the kubelet's ..data symlinks
  return {static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
          static_cast<uintmax_t>(st.st_size), static_cast<uint64_t>(st.st_ino)};
}

api::Result<net::TlsContextPtr> CertWatcher::build() const {
  auto cert = readAll(dir_ / "tls.crt");
  if (!cert) return cert.error();
  auto key = readAll(dir_ / "tls.key");
  if (!key) return key.error();
  net::TlsServerOptions options;
  options.certPem = *cert;
  options.keyPem = *key;
  auto context = net::makeServerTlsContext(options);
  if (!context)
    return api::Error{context.error().reason,
                      0,
                      (dir_ / "tls.crt").string() + ", tls.key: " + context.error().message,
                      {}};
  return *context;
}

api::Result<void> CertWatcher::load() {
  std::lock_guard lock(mutex_);
  const Stamp cert = stampOf(dir_ / "tls.crt"), key = stampOf(dir_ / "tls.key");
  auto built = build();
  if (!built) {
    lastError_ = built.error().message;
    return built.error();
  }
  context_ = *built;
  cert_ = cert;
  key_ = key;
  return {};
}

net::TlsContextPtr CertWatcher::current() {
  std::lock_guard lock(mutex_);
  const Stamp cert = stampOf(dir_ / "tls.crt"), key = stampOf(dir_ / "tls.key");
  if (cert == cert_ && key == key_) return context_;
  auto built = build();
  if (!built) {
    if (lastError_ != built.error().message)
      spdlog::warn("webhook: keeping the previous serving certificate: {}", built.error().message);
    lastError_ = built.error().message;
    return context_;
  }
  context_ = *built;
  cert_ = cert;
  key_ = key;
  lastError_.clear();
  ++reloads_;
  spdlog::info("webhook: serving certificate reloaded from {}", dir_.string());
  return context_;
}

uint64_t CertWatcher::reloads() const {
  std::lock_guard lock(mutex_);
  return reloads_;
}

std::string CertWatcher::lastError() const {
  std::lock_guard lock(mutex_);
  return lastError_;
}

}  // namespace flotilla::webhooks
