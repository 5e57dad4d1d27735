// Certificate generation for flotilla-sim, the webhook server and tests: a self-signed CA and
// certificates it issues (ECDSA P-256, SHA-256). Nothing here is used to talk to real clusters.
#pragma once

#include <string>
#include <vector>

#include "api/result.h"

namespace flotilla::net {

struct PemPair {
  std::string certPem;
  std::string keyPem;
};

struct CertificateRequest {
  std::string commonName;
  std::vector<std::string> organizations;  // Kubernetes maps O= to groups
  std::vector<std::string> dnsNames;
  std::vector<std::string> ipAddresses;
  bool serverAuth = true;
  bool clientAuth = false;
  int validDays = 365;
};

api::Result<PemPair> generateCertificateAuthority(const std::string& commonName,
                                                  int validDays = 3650);
api::Result<PemPair> issueCertificate(const PemPair& ca, const CertificateRequest& request);

// The subject CN of the first certificate in `certPem` (tests, diagnostics).
api::Result<std::string> certificateCommonName(const std::string& certPem);

}  // namespace flotilla::net
