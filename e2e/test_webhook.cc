// A test admission webhook for the e2e suite (not part of the product). HTTPS on 127.0.0.1 with
// a certificate for 127.0.0.1 and test-webhook.flotilla-system.svc issued by a CA it writes to
// DIR/ca.crt; the chosen port goes to DIR/port. Endpoints (AdmissionReview v1):
//   /validate  denies objects labelled deny=true ("the label deny=true is not allowed")
//   /mutate    adds the label mutated-by=test-webhook (a JSONPatch)
//   /slow      answers "allowed" after 3 seconds (timeout tests)
// Usage: test_webhook DIR   (runs until SIGTERM)
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <fstream>
#include <iostream>

#include "api/base64.h"
#include "kube/net/certs.h"
#include "kube/net/http_server.h"
#include "kube/net/tls.h"

namespace asio = boost::asio;
namespace json = boost::json;
using namespace flotilla;

namespace {

json::object review(const json::object& request, bool allowed, const std::string& message,
                    const std::string& patch) {
  json::object response{{"uid", request.at("uid")}, {"allowed", allowed}};
  if (!allowed)
    response["status"] = json::object{{"code", 403}, {"reason", "Forbidden"}, {"message", message}};
  if (!patch.empty()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = api::base64Encode(patch);
  }
  return json::object{{"apiVersion", "admission.k8s.io/v1"},
                      {"kind", "AdmissionReview"},
                      {"response", std::move(response)}};
}

asio::awaitable<void> handle(net::HttpExchange& ex) {
  const std::string path(ex.request().path());
  boost::system::error_code ec;
  json::value body = json::parse(ex.request().body, ec);
  net::HttpResponse out;
  out.headers.emplace_back("Content-Type", "application/json");
  if (ec || !body.is_object() || !body.as_object().contains("request")) {
    out.status = 400;
    out.body = R"({"error":"not an AdmissionReview"})";
    co_await ex.respond(std::move(out));
    co_return;
  }
  const json::object request = body.at("request").as_object();
  const json::value* object = request.if_contains("object");
  const json::value* labels = nullptr;
  if (object && object->is_object()) {
    if (const auto* m = object->as_object().if_contains("metadata"); m && m->is_object())
      labels = m->as_object().if_contains("labels");
  }
  json::object answer;
  if (path == "/validate") {
    const bool deny = labels && labels->is_object() && labels->as_object().contains("deny") &&
                      labels->as_object().at("deny") == "true";
    answer = review(request, !deny, "the label deny=true is not allowed", "");
  } else if (path == "/mutate") {
    const std::string patch =
        labels && labels->is_object()
            ? R"([{"op":"add","path":"/metadata/labels/mutated-by","value":"test-webhook"}])"
            : R"([{"op":"add","path":"/metadata/labels","value":{"mutated-by":"test-webhook"}}])";
    answer = review(request, true, "", patch);
  } else if (path == "/slow") {
    asio::steady_timer timer(ex.executor(), std::chrono::seconds(3));
    co_await timer.async_wait(asio::use_awaitable);
    answer = review(request, true, "", "");
  } else {
    out.status = 404;
    out.body = R"({"error":"unknown path"})";
    co_await ex.respond(std::move(out));
    co_return;
  }
  out.body = json::serialize(answer);
  co_await ex.respond(std::move(out));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: test_webhook DIR\n";
    return 2;
  }
  const std::string dir = argv[1];
  auto ca = net::generateCertificateAuthority("test-webhook-ca").value();
  net::CertificateRequest request;
  request.commonName = "test-webhook";
  request.dnsNames = {"test-webhook.flotilla-system.svc", "localhost"};
  request.ipAddresses = {"127.0.0.1"};
  auto serving = net::issueCertificate(ca, request).value();
  std::ofstream(dir + "/ca.crt") << ca.certPem;
  asio::io_context io;
  net::HttpServerOptions options;
  options.tls = net::makeServerTlsContext({serving.certPem, serving.keyPem, ""}).value();
  net::HttpServer server(io, options, [](net::HttpExchange& ex) { return handle(ex); });
  const uint16_t port = server.start().value();
  {
    std::ofstream tmp(dir + "/port.tmp");
    tmp << port << "\n";
  }
  std::rename((dir + "/port.tmp").c_str(), (dir + "/port").c_str());
  asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](const boost::system::error_code&, int) {
    server.stop();
    io.stop();
  });
  io.run();
  return 0;
}
