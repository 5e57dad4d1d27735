// A hostile or broken "member cluster" for the e2e suite (not part of the product): it listens on
// 127.0.0.1 and misbehaves in one way, so the operator's handling of it can be measured.
//   silent   accepts connections and never reads nor answers (no TLS handshake either)
//   huge     TLS; answers every request 200 with Content-Length 10 GiB and sends zeros until the
//            client goes
//   http10   TLS; answers "HTTP/1.0 200 OK" with an HTML page (a web server, not an API server)
//            and closes
//   garbage  TLS; answers with 4 KiB of random bytes and closes
//   objects  TLS; a ready API server whose pod list has 100,000 pods (in one page, whatever the
//            limit asked), other lists empty; watches are held open and send nothing
//   relister the same with 20,000 pods, but a pod watch ends at once with 410 Gone: the client
//            lists again
//   groups   TLS; the same with no pods and 10,000 API groups in discovery
// (objects and groups: docs/security.md M4, a member that tries to flood the operator.)
// TLS uses DIR/tls.crt and DIR/tls.key. The chosen port is written to PORTFILE.
// Usage: hostile_peer MODE DIR PORTFILE   (runs until killed)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

namespace {

// Reads the request head (up to the blank line), so the answer comes after a whole request;
// `target` gets the request target when asked for.
bool readHead(SSL* ssl, std::string* target = nullptr) {
  std::string head;
  char buf[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
    const int n = SSL_read(ssl, buf, sizeof(buf));
    if (n <= 0) return false;
    head.append(buf, static_cast<size_t>(n));
  }
  if (target) {
    const size_t start = head.find(' ') + 1;
    *target = head.substr(start, head.find(' ', start) - start);
  }
  return true;
}

std::string okJson(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

// What a flooding API server answers to `target`; "" for a watch (held open, silent).
std::string floodAnswer(const std::string& mode, const std::string& target) {
  const std::string path = target.substr(0, target.find('?'));
  if (target.find("watch=true") != std::string::npos || target.find("watch=1") != std::string::npos)
    return "";
  if (path == "/readyz" || path == "/healthz" || path == "/livez")
    return "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok";
  if (path == "/api") return okJson(R"({"kind":"APIVersions","versions":["v1"]})");
  if (path == "/apis") {
    std::string groups = R"({"kind":"APIGroupList","apiVersion":"v1","groups":[)";
    const int count = mode == "groups" ? 10000 : 1;
    for (int i = 0; i < count; ++i) {
      const std::string gv = "g" + std::to_string(i) + ".flood.example/v1";
      groups += (i ? "," : "") + std::string(R"({"name":"g)") + std::to_string(i) +
                R"(.flood.example","versions":[{"groupVersion":")" + gv +
                R"(","version":"v1"}],"preferredVersion":{"groupVersion":")" + gv +
                R"(","version":"v1"}})";
    }
    return okJson(groups + "]}");
  }
  if (path == "/api/v1" || path.rfind("/apis/", 0) == 0) {
    if (path.find("/deployments") == std::string::npos &&
        path.find("/replicasets") == std::string::npos)
      return okJson(R"({"kind":"APIResourceList","resources":[{"name":"things","kind":"Thing"}]})");
  }
  std::string items;
  if ((mode == "objects" || mode == "relister") && path == "/api/v1/pods") {
    const int count = mode == "objects" ? 100000 : 20000;
    items.reserve(static_cast<size_t>(count) * 200);
    for (int i = 0; i < count; ++i) {
      items +=
          (i ? "," : "") + std::string(R"({"metadata":{"name":"p)") + std::to_string(i) +
          R"(","namespace":"flood","resourceVersion":"1","uid":"u)" + std::to_string(i) +
          R"("},"spec":{"nodeName":"n1","containers":[{"name":"c","resources":{"requests":{"cpu":"1m"}}}]},"status":{"phase":"Running"}})";
    }
  }
  return okJson(R"({"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[)" +
                items + "]}");
}

bool writeAll(SSL* ssl, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const int n = SSL_write(ssl, data.data() + done, static_cast<int>(data.size() - done));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void serve(const std::string& mode, SSL_CTX* ctx, int fd) {
  if (mode == "silent") {
    // Hold the connection open and say nothing until the client gives up.
    char byte;
    while (recv(fd, &byte, 1, MSG_PEEK) > 0) std::this_thread::sleep_for(std::chrono::seconds(1));
    close(fd);
    return;
  }
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1) {
    if (mode == "huge") {
      while (readHead(ssl)) {
        if (!writeAll(ssl,
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      "Content-Length: 10737418240\r\n\r\n"))
          break;
        const std::string zeros(1 << 16, '0');
        while (writeAll(ssl, zeros)) {
        }
        break;
      }
    } else if (mode == "http10") {
      if (readHead(ssl))
        writeAll(ssl,
                 "HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n"
                 "<html><body><h1>Welcome!</h1><p>Everything looks ok.</p></body></html>\n");
    } else if (mode == "objects" || mode == "relister" || mode == "groups") {
      std::string target;
      while (readHead(ssl, &target)) {
        const std::string answer = floodAnswer(mode, target);
        if (answer.empty() && mode == "relister" && target.rfind("/api/v1/pods", 0) == 0) {
          const std::string gone =
              R"({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure",)"
              R"("reason":"Expired","code":410,"message":"too old resource version"}})"
              "\n";
          std::ostringstream chunk;
          chunk << std::hex << gone.size() << "\r\n" << gone << "\r\n0\r\n\r\n";
          if (!writeAll(ssl,
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        "Transfer-Encoding: chunked\r\n\r\n" +
                            chunk.str()))
            break;
          continue;
        }
        if (answer.empty()) {  // a watch: headers, then silence until the client goes
          writeAll(ssl,
                   "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                   "Transfer-Encoding: chunked\r\n\r\n");
          char byte;
          while (SSL_read(ssl, &byte, 1) > 0) {
          }
          break;
        }
        if (!writeAll(ssl, answer)) break;
      }
    } else if (mode == "garbage") {
      if (readHead(ssl)) {
        std::mt19937 random(42);
        std::string noise(4096, '\0');
        for (auto& c : noise) c = static_cast<char>(random());
        writeAll(ssl, noise);
      }
    }
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  close(fd);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: hostile_peer silent|huge|http10|garbage|objects|relister|groups DIR "
                 "PORTFILE\n";
    return 2;
  }
  const std::string mode = argv[1];
  const std::string dir = argv[2];
  std::signal(SIGPIPE, SIG_IGN);
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (SSL_CTX_use_certificate_chain_file(ctx, (dir + "/tls.crt").c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, (dir + "/tls.key").c_str(), SSL_FILETYPE_PEM) != 1) {
    std::cerr << "hostile_peer: cannot load " << dir << "/tls.crt and tls.key\n";
    return 1;
  }
  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t length = sizeof(addr);
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      listen(listener, 64) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    std::cerr << "hostile_peer: cannot listen: " << std::strerror(errno) << "\n";
    return 1;
  }
  std::ofstream(argv[3]) << ntohs(addr.sin_port) << "\n";
  while (true) {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    std::thread(serve, mode, ctx, fd).detach();
  }
}
