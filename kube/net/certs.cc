#include "kube/net/certs.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace flotilla::net {
namespace {

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;

api::Error opensslError(const std::string& what) {
  std::string message = what;
  if (unsigned long code = ERR_get_error(); code != 0) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    message += ": ";
    message += buf;
  }
  ERR_clear_error();
  return api::Error{api::reason::kInternalError, 0, message, {}};
}

std::string bioString(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

api::Result<std::string> keyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr))
    return opensslError("writing private key");
  return api::okString(bioString(bio.get()));
}

api::Result<std::string> certPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!PEM_write_bio_X509(bio.get(), cert)) return opensslError("writing certificate");
  return api::okString(bioString(bio.get()));
}

bool addExtension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
  if (ext == nullptr) return false;
  const bool ok = X509_add_ext(cert, ext, -1) == 1;
  X509_EXTENSION_free(ext);
  return ok;
}

// A certificate with a random 128-bit serial, valid from an hour ago (clock skew) for `days`.
api::Result<CertPtr> newCertificate(EVP_PKEY* key, const std::string& commonName,
                                    const std::vector<std::string>& organizations, int days) {
  CertPtr cert(X509_new());
  if (!cert || !X509_set_version(cert.get(), 2)) return opensslError("creating certificate");
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return opensslError("random serial");
  serial[0] &= 0x7f;  // positive
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get()));
  BN_free(bn);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(days) * 86400);
  X509_set_pubkey(cert.get(), key);
  X509_NAME* name = X509_get_subject_name(cert.get());
  for (const auto& org : organizations) {
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(org.c_str()), -1, -1, 0);
  }
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(commonName.c_str()), -1, -1, 0);
  return cert;
}

}  // namespace

api::Result<PemPair> generateCertificateAuthority(const std::string& commonName, int validDays) {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return opensslError("generating CA key");
  auto cert = newCertificate(key.get(), commonName, {}, validDays);
  if (!cert) return cert.error();
  X509* c = cert->get();
  X509_set_issuer_name(c, X509_get_subject_name(c));
  if (!addExtension(c, c, NID_basic_constraints, "critical,CA:TRUE") ||
      !addExtension(c, c, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature") ||
      !addExtension(c, c, NID_subject_key_identifier, "hash"))
    return opensslError("CA extensions");
  if (X509_sign(c, key.get(), EVP_sha256()) == 0) return opensslError("signing CA");
  auto certText = certPem(c);
  auto keyText = keyPem(key.get());
  if (!certText) return certText.error();
  if (!keyText) return keyText.error();
  return PemPair{*certText, *keyText};
}

api::Result<PemPair> issueCertificate(const PemPair& ca, const CertificateRequest& request) {
  BioPtr caCertBio(BIO_new_mem_buf(ca.certPem.data(), static_cast<int>(ca.certPem.size())));
  CertPtr caCert(PEM_read_bio_X509(caCertBio.get(), nullptr, nullptr, nullptr));
  if (!caCert) return opensslError("reading CA certificate");
  BioPtr caKeyBio(BIO_new_mem_buf(ca.keyPem.data(), static_cast<int>(ca.keyPem.size())));
  KeyPtr caKey(PEM_read_bio_PrivateKey(caKeyBio.get(), nullptr, nullptr, nullptr));
  if (!caKey) return opensslError("reading CA key");

  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return opensslError("generating key");
  auto cert =
      newCertificate(key.get(), request.commonName, request.organizations, request.validDays);
  if (!cert) return cert.error();
  X509* c = cert->get();
  X509_set_issuer_name(c, X509_get_subject_name(caCert.get()));
  std::string san;
  for (const auto& dns : request.dnsNames) san += (san.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : request.ipAddresses) san += (san.empty() ? "IP:" : ",IP:") + ip;
  std::string usage;
  if (request.serverAuth) usage = "serverAuth";
  if (request.clientAuth) usage += usage.empty() ? "clientAuth" : ",clientAuth";
  if (!addExtension(c, caCert.get(), NID_basic_constraints, "critical,CA:FALSE") ||
      !addExtension(c, caCert.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment") ||
      (!usage.empty() && !addExtension(c, caCert.get(), NID_ext_key_usage, usage)) ||
      !addExtension(c, caCert.get(), NID_authority_key_identifier, "keyid:always") ||
      (!san.empty() && !addExtension(c, caCert.get(), NID_subject_alt_name, san)))
    return opensslError("certificate extensions");
  if (X509_sign(c, caKey.get(), EVP_sha256()) == 0) return opensslError("signing certificate");
  auto certText = certPem(c);
  auto keyText = keyPem(key.get());
  if (!certText) return certText.error();
  if (!keyText) return keyText.error();
  return PemPair{*certText, *keyText};
}

api::Result<std::string> certificateCommonName(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) return opensslError("reading certificate");
  char buf[256] = {};
  if (X509_NAME_get_text_by_NID(X509_get_subject_name(cert.get()), NID_commonName, buf,
                                sizeof buf) < 0)
    return api::okString("");
  return api::okString(buf);
}

}  // namespace flotilla::net
