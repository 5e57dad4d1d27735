// Service and Ingress (docs/design.md §3.8; the rule is in docs/decisions.md, "What a member Service
// receives"). The host's API server allocates a Service's cluster IPs, node ports and health-check
// node port; each member allocates its own, so those never leave the host. A node port (or
// health-check node port, or IP family) the user wrote is theirs and is sent: who wrote a field is
// read from the source's managedFields (any manager owning it; the API server's allocations are
// owned by none) or from kubectl's last-applied-configuration.
#include <boost/json/array.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <set>
#include <string>

#include "api/unstructured.h"
#include "interpreter/interpreter.h"

namespace flotilla::interpreter {
namespace json = boost::json;
namespace u = api::unstructured;

namespace {

// A port is (port, protocol): the list-map key the API server uses for spec.ports.
using PortKey = std::pair<int64_t, std::string>;

PortKey keyOf(const json::object& port) {
  return {u::intAt(port, {"port"}).value_or(0), u::stringAt(port, {"protocol"}, "TCP")};
}

// What the user wrote under spec: top-level field names, and the ports whose nodePort they set.
struct Written {
  std::set<std::string> specFields;
  std::set<PortKey> nodePorts;
};

void readManagedFields(const json::object& service, Written& out) {
  const json::array* entries = u::findArray(service, {"metadata", "managedFields"});
  if (entries == nullptr) return;
  for (const auto& e : *entries) {
    const json::object* entry = e.if_object();
    if (entry == nullptr) continue;
    const json::object* spec = u::findObject(*entry, {"fieldsV1", "f:spec"});
    if (spec == nullptr) continue;
    for (const auto& [field, sub] : *spec) {
      if (field.starts_with("f:")) out.specFields.insert(std::string(field.substr(2)));
    }
    const json::object* ports = u::findObject(*spec, {"f:ports"});
    if (ports == nullptr) continue;
    for (const auto& [key, fields] : *ports) {
      if (!key.starts_with("k:") || !fields.is_object() ||
          !fields.as_object().contains("f:nodePort"))
        continue;
      boost::system::error_code ec;
      json::value parsed = json::parse(key.substr(2), ec);
      if (!ec && parsed.is_object()) out.nodePorts.insert(keyOf(parsed.as_object()));
    }
  }
}

void readLastApplied(const json::object& service, Written& out) {
  const std::string text = u::stringAt(
      service, {"metadata", "annotations", "kubectl.kubernetes.io/last-applied-configuration"});
  if (text.empty()) return;
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec || !parsed.is_object()) return;
  const json::object* spec = u::findObject(parsed.as_object(), {"spec"});
  if (spec == nullptr) return;
  for (const auto& [field, value] : *spec) out.specFields.insert(std::string(field));
  if (const json::array* ports = u::findArray(*spec, {"ports"})) {
    for (const auto& p : *ports) {
      const json::object* port = p.if_object();
      if (port && port->contains("nodePort")) out.nodePorts.insert(keyOf(*port));
    }
  }
}

void pruneService(json::object& service) {
  json::object* spec = u::findObject(service, {"spec"});
  if (spec == nullptr) return;
  Written written;
  readManagedFields(service, written);
  readLastApplied(service, written);
  // "None" is a headless Service, the user's choice; any address is the host's allocation.
  if (u::stringAt(*spec, {"clusterIP"}) != "None") {
    spec->erase("clusterIP");
    spec->erase("clusterIPs");
  }
  for (const char* field : {"healthCheckNodePort", "ipFamilies", "ipFamilyPolicy"}) {
    if (!written.specFields.count(field)) spec->erase(field);
  }
  if (auto* ports = spec->if_contains("ports"); ports && ports->is_array()) {
    for (auto& p : ports->as_array()) {
      json::object* port = p.if_object();
      if (port && !written.nodePorts.count(keyOf(*port))) port->erase("nodePort");
    }
  }
}

bool isLoadBalancer(const json::object& service) {
  return u::stringAt(service, {"spec", "type"}) == "LoadBalancer";
}

HealthReport serviceHealth(const json::object& service) {
  if (!isLoadBalancer(service)) return {Health::kHealthy, ""};
  const json::array* ingress = u::findArray(service, {"status", "loadBalancer", "ingress"});
  if (ingress == nullptr || ingress->empty())
    return {Health::kProgressing, "waiting for the cluster's load balancer"};
  return {Health::kHealthy, ""};
}

// Every member's status.loadBalancer.ingress points, each once, in cluster order: a client (or
// external-dns) reading the host sees every way in.
json::object loadBalancers(const std::vector<MemberObject>& members) {
  json::array ingress;
  std::set<std::string> seen;
  for (const auto& m : members) {
    if (m.object == nullptr) continue;
    const json::array* points = u::findArray(*m.object, {"status", "loadBalancer", "ingress"});
    if (points == nullptr) continue;
    for (const auto& point : *points) {
      if (seen.insert(json::serialize(point)).second) ingress.push_back(point);
    }
  }
  json::object loadBalancer;
  if (!ingress.empty()) loadBalancer["ingress"] = std::move(ingress);
  return json::object{{"loadBalancer", std::move(loadBalancer)}};
}

// A LoadBalancer Service's host status: its members' load balancers.
std::optional<json::object> serviceStatus(const json::object& source,
                                          const std::vector<MemberObject>& members) {
  if (!isLoadBalancer(source)) return std::nullopt;
  return loadBalancers(members);
}

}  // namespace

void addServiceKinds(Registry& registry) {
  registry.add(KindEntry{.group = "",
                         .kind = "Service",
                         .prune = pruneService,
                         .health = serviceHealth,
                         .aggregateStatus = serviceStatus});
  // An Ingress is Duplicated whole; each member's ingress controller gives it addresses, which
  // the host's lists (as a LoadBalancer Service's). It is healthy when it exists: a member may
  // have no controller that reports addresses, and that does not make its rules wrong.
  registry.add(KindEntry{.group = "networking.k8s.io",
                         .kind = "Ingress",
                         .aggregateStatus = [](const json::object&,
                                               const std::vector<MemberObject>& members) {
                           return std::optional<json::object>(loadBalancers(members));
                         }});
}

}  // namespace flotilla::interpreter
