// Test helpers: an io_context on a background thread, a way to run a client coroutine to
// completion from a test, and certificates for TLS tests.
#pragma once

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <thread>

#include "kube/net/certs.h"

namespace flotilla::net::testing {

class IoThread {
 public:
  IoThread() : work_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IoThread() {
    work_.reset();
    io_.stop();
    thread_.join();
  }
  boost::asio::io_context& io() { return io_; }

  // Runs an awaitable on the io thread and waits for its result.
  template <class T>
  T run(boost::asio::awaitable<T> task) {
    return boost::asio::co_spawn(io_, std::move(task), boost::asio::use_future).get();
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

// Polls `condition` until it holds or `limit` passes (tests never sleep for a fixed time).
template <class F>
bool eventually(F condition, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return condition();
}

struct TestPki {
  PemPair ca;
  PemPair server;  // for 127.0.0.1 and localhost
  PemPair client;  // CN=alice, clientAuth
  PemPair otherCa;

  static TestPki make() {
    TestPki pki;
    pki.ca = generateCertificateAuthority("flotilla-test-ca").value();
    pki.otherCa = generateCertificateAuthority("someone-else").value();
    CertificateRequest server;
    server.commonName = "127.0.0.1";
    server.dnsNames = {"localhost"};
    server.ipAddresses = {"127.0.0.1", "::1"};
    pki.server = issueCertificate(pki.ca, server).value();
    CertificateRequest client;
    client.commonName = "alice";
    client.organizations = {"flotilla:admins"};
    client.serverAuth = false;
    client.clientAuth = true;
    pki.client = issueCertificate(pki.ca, client).value();
    return pki;
  }
};

}  // namespace flotilla::net::testing
