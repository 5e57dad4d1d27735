// The webhook's serving certificate, read from `tls.crt` and `tls.key` in --cert-dir and reloaded
// when either file changes (cert-manager renews into the Secret, the kubelet swaps the mounted
// files), so a rotation never needs a restart and never drops the connections being served.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>

#include "api/result.h"
#include "kube/net/tls.h"

namespace flotilla::webhooks {

class CertWatcher {
 public:
  explicit CertWatcher(std::filesystem::path dir);

  // Loads the pair now; the error names the file and the problem (start-up check).
  api::Result<void> load();
  // The context for a new connection, reloaded first when a file changed on disk. A change that
  // does not load (the pair half-written, a key that does not match) keeps the previous context
  // and is retried on the next connection.
  net::TlsContextPtr current();

  uint64_t reloads() const;
  std::string lastError() const;

 private:
  struct Stamp {
    int64_t mtime = 0;
    uintmax_t size = 0;
    uint64_t inode = 0;
    bool operator==(const Stamp&) const = default;
  };
  Stamp stampOf(const std::filesystem::path& file) const;
  api::Result<net::TlsContextPtr> build() const;

  std::filesystem::path dir_;
  mutable std::mutex mutex_;
  net::TlsContextPtr context_;
  Stamp cert_, key_;
  uint64_t reloads_ = 0;
  std::string lastError_;
};

}  // namespace flotilla::webhooks
