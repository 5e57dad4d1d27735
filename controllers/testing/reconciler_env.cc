#include "controllers/testing/reconciler_env.h"

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "api/yaml.h"

namespace flotilla::controllers::testing {

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr const char* kConflictAgent = "flotilla-test-conflict/1";
constexpr const char* kDropAgent = "flotilla-test-drop/1";
// Writes only (reads are served): the fault a test asks for by choosing its client.
constexpr const char* kFaults = R"({"seed": 1, "rules": [
  {"verbs": ["create", "update", "patch", "delete"], "userAgents": ["flotilla-test-conflict/"],
   "conflict": 1},
  {"verbs": ["create", "update", "patch", "delete"], "userAgents": ["flotilla-test-drop/"],
   "dropAfterCommit": 1}]})";

const kube::ResourceId kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false,
                             "CustomResourceDefinition"};
const kube::ResourceId kNamespaceResource{"", "v1", "namespaces", false, "Namespace"};

std::unique_ptr<kube::RestClient> clientFor(net::testing::IoThread& io, kube::RestConfig config,
                                            const std::string& agent = "") {
  if (!agent.empty()) config.userAgent = agent;
  kube::RestClientOptions options;
  if (!agent.empty()) options.maxRetries = 0;  // the fault is the answer, not a reason to retry
  auto created = kube::RestClient::create(io.io().get_executor(), config, options);
  if (!created) throw std::runtime_error("REST client: " + created.error().message);
  return std::move(*created);
}

bool established(const json::object& crd) {
  const auto* status = crd.if_contains("status");
  const auto* conditions =
      status && status->is_object() ? status->as_object().if_contains("conditions") : nullptr;
  if (!conditions || !conditions->is_array()) return false;
  for (const auto& c : conditions->as_array()) {
    if (c.is_object() && c.as_object().if_contains("type") &&
        c.as_object().at("type") == "Established" && c.as_object().if_contains("status") &&
        c.as_object().at("status") == "True")
      return true;
  }
  return false;
}

void installCrds(const kube::RestConfig& config) {
  net::testing::IoThread io;
  auto client = clientFor(io, config);
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(FLOTILLA_SOURCE_DIR) / "crds")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    auto docs = api::parseManifests(text.str());
    if (!docs) throw std::runtime_error(entry.path().string() + ": " + docs.error().message);
    for (const auto& doc : *docs) {
      if (!doc.value.is_object() || doc.value.as_object().at("kind") != "CustomResourceDefinition")
        continue;
      auto created = io.run(client->create(kCrds, "", doc.value.as_object()));
      if (!created) throw std::runtime_error("creating a CRD: " + created.error().message);
      names.emplace_back(created->at("metadata").at("name").as_string());
    }
  }
  for (const auto& name : names) {
    const bool ok = net::testing::eventually(
        [&] {
          auto crd = io.run(client->get(kCrds, "", name));
          return crd && established(*crd);
        },
        30s);
    if (!ok) throw std::runtime_error("CRD " + name + " was not established within 30 s");
  }
}

}  // namespace

ReconcilerEnv& ReconcilerEnv::get() {
  static ReconcilerEnv env;
  return env;
}

ReconcilerEnv::ReconcilerEnv() {
  kube::testing::SimProcessOptions options;
  options.faultsJson = kFaults;
  host_ = std::make_unique<kube::testing::SimProcess>(FLOTILLA_SIM_BINARY, options);
  installCrds(host_->config());
}

const kube::RestConfig& ReconcilerEnv::member() {
  if (!member_) {
    kube::testing::SimProcessOptions options;
    options.name = "member1";
    options.member = true;
    options.faultsJson = kFaults;
    member_ = std::make_unique<kube::testing::SimProcess>(FLOTILLA_SIM_BINARY, options);
    // One Ready node, so the member's scheduler and kubelet run what lands there.
    net::testing::IoThread io;
    auto client = clientFor(io, member_->config());
    const json::object resources{{"cpu", "8"}, {"memory", "32Gi"}, {"pods", "110"}};
    json::object node{
        {"apiVersion", "v1"},
        {"kind", "Node"},
        {"metadata", json::object{{"name", "member1-node-0"}}},
        {"status",
         json::object{{"capacity", resources},
                      {"allocatable", resources},
                      {"conditions",
                       json::array{json::object{
                           {"type", "Ready"}, {"status", "True"}, {"reason", "KubeletReady"}}}},
                      {"nodeInfo", json::object{{"kubeletVersion", "v1.32.0"}}}}}};
    const kube::ResourceId nodes{"", "v1", "nodes", false, "Node"};
    auto created = io.run(client->create(nodes, "", node));
    if (!created)
      throw std::runtime_error("creating the member's node: " + created.error().message);
  }
  return member_->config();
}

void RecordingEvents::event(const json::object&, const std::string&, const std::string& reason,
                            const std::string& message) {
  std::lock_guard lock(mutex_);
  auto& entry = byReason_[reason];
  ++entry.first;
  entry.second = message;
}

int RecordingEvents::count(const std::string& reason) const {
  std::lock_guard lock(mutex_);
  auto it = byReason_.find(reason);
  return it == byReason_.end() ? 0 : it->second.first;
}

std::string RecordingEvents::message(const std::string& reason) const {
  std::lock_guard lock(mutex_);
  auto it = byReason_.find(reason);
  return it == byReason_.end() ? "" : it->second.second;
}

json::object parseObject(std::string_view text) {
  auto value = json::parse(text);
  return value.as_object();
}

void ReconcilerTest::SetUp() {
  auto& env = ReconcilerEnv::get();
  client = clientFor(io, env.host());
  std::mt19937_64 rng(std::random_device{}());
  ns = "rt-" + std::to_string(rng() % 1'000'000'000);
  json::object object{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", json::object{{"name", ns}}}};
  auto created = io.run(client->create(kNamespaceResource, "", object));
  ASSERT_TRUE(created) << created.error();
}

void ReconcilerTest::TearDown() {
  for (auto& informer : informers_) informer->stop();
  for (auto& informer : informers_) informer->join();
  informers_.clear();
}

kube::SharedInformer& ReconcilerTest::informer(const kube::ResourceId& resource) {
  return informerOn(*client, resource);
}

kube::SharedInformer& ReconcilerTest::informerOn(kube::RestClient& on,
                                                 const kube::ResourceId& resource) {
  auto informer = std::make_unique<kube::SharedInformer>(on, resource);
  informer->start(io.io().get_executor());
  EXPECT_TRUE(net::testing::eventually([&] { return informer->hasSynced(); }, 30s))
      << resource.resource << ": " << informer->lastError();
  informers_.push_back(std::move(informer));
  return *informers_.back();
}

kube::RestClient& ReconcilerTest::conflictClient() {
  if (!conflict_) conflict_ = clientFor(io, ReconcilerEnv::get().host(), kConflictAgent);
  return *conflict_;
}

kube::RestClient& ReconcilerTest::droppingClient() {
  if (!dropping_) dropping_ = clientFor(io, ReconcilerEnv::get().host(), kDropAgent);
  return *dropping_;
}

kube::RestClient& ReconcilerTest::memberClient() {
  if (!member_) member_ = clientFor(io, ReconcilerEnv::get().member());
  return *member_;
}

json::object ReconcilerTest::create(const kube::ResourceId& resource, std::string_view text) {
  return create(*client, resource, parseObject(text));
}

json::object ReconcilerTest::create(kube::RestClient& on, const kube::ResourceId& resource,
                                    json::object object) {
  if (resource.namespaced) object["metadata"].as_object()["namespace"] = ns;
  auto created = io.run(on.create(resource, resource.namespaced ? ns : "", object));
  EXPECT_TRUE(created) << resource.resource << ": " << created.error();
  return created ? std::move(*created) : json::object{};
}

json::object ReconcilerTest::get(const kube::ResourceId& resource, const std::string& name) {
  return get(*client, resource, resource.namespaced ? ns : "", name);
}

json::object ReconcilerTest::get(kube::RestClient& on, const kube::ResourceId& resource,
                                 const std::string& objectNs, const std::string& name) {
  auto got = io.run(on.get(resource, objectNs, name));
  return got ? std::move(*got) : json::object{};
}

namespace {
std::string resourceVersionOf(const json::object& object) {
  const auto* meta = object.if_contains("metadata");
  const auto* rv =
      meta && meta->is_object() ? meta->as_object().if_contains("resourceVersion") : nullptr;
  return rv && rv->is_string() ? std::string(rv->as_string()) : "";
}
}  // namespace

void ReconcilerTest::caughtUp(const kube::SharedInformer& informer, const std::string& name) {
  caughtUpOn(*client, informer, informer.resource().namespaced ? ns : "", name);
}

void ReconcilerTest::caughtUpOn(kube::RestClient& on, const kube::SharedInformer& informer,
                                const std::string& objectNs, const std::string& name) {
  const std::string key = objectNs.empty() ? name : objectNs + "/" + name;
  const bool ok = net::testing::eventually([&] {
    const std::string server = resourceVersionOf(get(on, informer.resource(), objectNs, name));
    const auto cached = informer.store().get(key);
    const std::string local = cached ? resourceVersionOf(*cached) : "";
    return server == local;
  });
  ASSERT_TRUE(ok) << "the " << informer.resource().resource << " informer did not catch up with "
                  << key;
}

uint64_t ReconcilerTest::writes(kube::RestClient& on) {
  const std::string path = "/metrics";
  auto text = io.run(on.getRaw(path));
  EXPECT_TRUE(text) << text.error();
  if (!text) return 0;
  uint64_t total = 0;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("apiserver_request_total{", 0) != 0) continue;
    const bool write = line.find("verb=\"CREATE\"") != std::string::npos ||
                       line.find("verb=\"UPDATE\"") != std::string::npos ||
                       line.find("verb=\"POST\"") != std::string::npos ||
                       line.find("verb=\"PUT\"") != std::string::npos ||
                       line.find("verb=\"PATCH\"") != std::string::npos ||
                       line.find("verb=\"APPLY\"") != std::string::npos ||
                       line.find("verb=\"DELETE\"") != std::string::npos;
    if (!write || line.find("resource=\"events\"") != std::string::npos ||
        line.find("resource=\"leases\"") != std::string::npos)
      continue;
    total += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

}  // namespace flotilla::controllers::testing
