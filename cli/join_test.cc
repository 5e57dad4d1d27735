// join() and unjoin() against in-memory clusters: what they write, in which order, what they
// refuse before writing anything, and that a second run changes nothing.
#include "cli/join.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "api/base64.h"
#include "api/yaml.h"

namespace flotilla::cli {
namespace {
namespace json = boost::json;

api::Error notFound() { return api::Error{api::reason::kNotFound, 404, "not found", {}}; }

// An API server as join sees one: objects by resource/namespace/name, resourceVersions that move
// only when an apply changes something, SelfSubjectAccessReviews answered from a deny list, a
// token controller, and FederatedClusters whose finalizer may hold them.
class FakeCluster : public ClusterApi {
 public:
  explicit FakeCluster(std::string server, std::string id) : server_(std::move(server)) {
    objects_[key("namespaces", "", "kube-system")] =
        json::object{{"metadata", json::object{{"name", "kube-system"}, {"uid", id}}}};
    objects_[key("namespaces", "", "flotilla-system")] =
        json::object{{"metadata", json::object{{"name", "flotilla-system"}, {"uid", "ns"}}}};
  }
  std::string server() const override { return server_; }
  api::Result<json::value> getPath(const std::string& path) override {
    if (!reachable) return api::Error{"", 0, "connection refused", {}};
    if (path == "/version") return json::value(json::object{{"gitVersion", "v1.24.0"}});
    json::array items;
    for (const auto& [k, o] : objects_)
      if (k.rfind("federatedclusters/", 0) == 0) items.push_back(o);
    return json::value(json::object{{"items", items}});
  }
  api::Result<json::object> get(const kube::ResourceId& r, const std::string& ns,
                                const std::string& name) override {
    auto it = objects_.find(key(r.resource, ns, name));
    if (it == objects_.end()) return notFound();
    return it->second;
  }
  api::Result<json::object> apply(const kube::ResourceId& r, const json::object& object) override {
    const auto& m = object.at("metadata").as_object();
    const std::string k = key(r.resource, str(m, "namespace"), str(m, "name"));
    json::object stored = object;
    int64_t version = ++lastVersion_;
    if (auto it = objects_.find(k); it != objects_.end()) {
      // Server-side apply keeps the fields the applier does not set (the token controller's).
      json::object previous = it->second;
      const auto rv = previous["metadata"].as_object()["resourceVersion"];
      previous["metadata"].as_object().erase("resourceVersion");
      stored = previous;
      merge(stored, object);
      if (previous == stored) version = std::stoll(std::string(rv.as_string()));
    } else {
      stored["metadata"].as_object()["uid"] = "uid-" + std::to_string(version);
    }
    applied.push_back(k);
    if (tokenController && str(object, "type") == "kubernetes.io/service-account-token" &&
        !stored.contains("data")) {
      stored["data"] = json::object{{"token", api::base64Encode("member-token")},
                                    {"ca.crt", api::base64Encode("TOKEN CA")}};
      const auto& account =
          objects_.at(key("serviceaccounts", "flotilla-system", "flotilla-member"));
      stored["metadata"]
          .as_object()["annotations"]
          .as_object()["kubernetes.io/service-account.uid"] = account.at("metadata").at("uid");
    }
    json::object withVersion = stored;
    withVersion["metadata"].as_object()["resourceVersion"] = std::to_string(version);
    objects_[k] = withVersion;
    return withVersion;
  }
  api::Result<json::object> create(const kube::ResourceId& r, const std::string& ns,
                                   const json::object& object) override {
    if (r.resource == "selfsubjectaccessreviews") {
      const auto& a = object.at("spec").at("resourceAttributes").as_object();
      const bool no = denied.count(str(a, "verb") + " " + str(a, "resource"));
      return json::object{{"status", json::object{{"allowed", !no}}}};
    }
    const std::string k = key(r.resource, ns, str(object.at("metadata").as_object(), "name"));
    applied.push_back(k);
    objects_[k] = object;
    return object;
  }
  api::Result<json::object> remove(const kube::ResourceId& r, const std::string& ns,
                                   const std::string& name) override {
    auto it = objects_.find(key(r.resource, ns, name));
    if (it == objects_.end()) return notFound();
    json::object last = it->second;
    removed.push_back(it->first);
    if (r.resource == "federatedclusters" && finalizerHolds) {
      it->second.at("metadata").as_object()["deletionTimestamp"] = "2026-11-26T00:00:00Z";
      return it->second;
    }
    objects_.erase(it);
    return last;
  }

  bool has(const std::string& resource, const std::string& ns, const std::string& name) const {
    return objects_.count(key(resource, ns, name)) > 0;
  }
  const json::object& at(const std::string& resource, const std::string& ns,
                         const std::string& name) const {
    return objects_.at(key(resource, ns, name));
  }
  void put(const std::string& resource, const std::string& ns, const std::string& name,
           json::object o) {
    objects_[key(resource, ns, name)] = std::move(o);
  }

  bool reachable = true;
  bool tokenController = true;
  bool finalizerHolds = false;
  std::set<std::string> denied;  // "verb resource"
  std::vector<std::string> applied, removed;

 private:
  // Server-side apply's merge of maps: the applier's fields over the stored ones, which stay.
  static void merge(json::object& into, const json::object& from) {
    for (const auto& [field, value] : from) {
      auto* existing = into.if_contains(field);
      if (existing && existing->is_object() && value.is_object())
        merge(existing->as_object(), value.as_object());
      else
        into[field] = value;
    }
  }
  static std::string key(const std::string& r, const std::string& ns, const std::string& n) {
    return r + "/" + ns + "/" + n;
  }
  static std::string str(const json::object& o, const char* k) {
    const auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : "";
  }
  std::string server_;
  std::map<std::string, json::object> objects_;
  int64_t lastVersion_ = 100;
};

class JoinTest : public ::testing::Test {
 protected:
  JoinTest() : host_("https://host:6443", "host-id"), member_("https://m3:6443", "m3-id") {
    options_.name = "member3";
    options_.region = "us-east";
    options_.labels = {{"env", "demo"}};
    options_.caPem = "KUBECONFIG CA";
    options_.tokenPolls = 3;
    options_.deletePolls = 3;
  }
  int runJoin() {
    out_.str("");
    err_.str("");
    return join(options_, host_, member_, pause_, out_, err_);
  }
  int runUnjoin(ClusterApi* member) {
    out_.str("");
    err_.str("");
    return unjoin(options_, host_, member, pause_, out_, err_);
  }

  FakeCluster host_, member_;
  JoinOptions options_;
  int pauses_ = 0;
  Pause pause_ = [this] { ++pauses_; };
  std::ostringstream out_, err_;
};

TEST_F(JoinTest, CreatesTheMemberAccountThenTheHostRegistration) {
  member_.put("namespaces", "", "flotilla-system", {});  // replaced below: a member without it
  member_.remove({"", "v1", "namespaces", false, "Namespace"}, "", "flotilla-system");
  ASSERT_EQ(runJoin(), 0) << err_.str();
  EXPECT_EQ(out_.str(),
            "member member3: namespace/flotilla-system created\n"
            "member member3: serviceaccount/flotilla-member created\n"
            "member member3: clusterrole/flotilla-member created\n"
            "member member3: clusterrolebinding/flotilla-member created\n"
            "member member3: secret/flotilla-member-token created\n"
            "host: secret/member3-credentials created\n"
            "host: federatedcluster/member3 created\n"
            "cluster \"member3\" joined (https://m3:6443): `kubectl get fc member3` shows Ready "
            "once the operator has probed it\n");
  const auto& role = member_.at("clusterroles", "", "flotilla-member");
  EXPECT_EQ(role.at("rules"), memberRules());
  const auto& binding = member_.at("clusterrolebindings", "", "flotilla-member");
  EXPECT_EQ(binding.at("subjects").at(0).at("namespace"), "flotilla-system");
  const auto& secret = host_.at("secrets", "flotilla-system", "member3-credentials");
  EXPECT_EQ(api::base64Decode(secret.at("data").at("token").as_string()).value(), "member-token");
  EXPECT_EQ(api::base64Decode(secret.at("data").at("caBundle").as_string()).value(),
            "KUBECONFIG CA");  // the kubeconfig's CA first: what the user reaches it through
  const auto& fc = host_.at("federatedclusters", "", "member3");
  EXPECT_EQ(fc.at("spec").at("apiEndpoint"), "https://m3:6443");
  EXPECT_EQ(fc.at("spec").at("region"), "us-east");
  EXPECT_EQ(fc.at("spec").at("secretRef").at("name"), "member3-credentials");
  EXPECT_EQ(fc.at("metadata").at("labels").at("env"), "demo");
  EXPECT_EQ(fc.at("metadata").at("annotations").at(kClusterIdAnnotation), "m3-id");
}

TEST_F(JoinTest, RunTwiceChangesNothing) {
  ASSERT_EQ(runJoin(), 0) << err_.str();
  ASSERT_EQ(runJoin(), 0) << err_.str();
  EXPECT_EQ(out_.str().find("created"), std::string::npos) << out_.str();
  EXPECT_EQ(out_.str().find("configured"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("host: federatedcluster/member3 unchanged"), std::string::npos);
}

TEST_F(JoinTest, WithoutTheKubeconfigsCaTheTokensCaIsUsed) {
  options_.caPem.clear();
  ASSERT_EQ(runJoin(), 0) << err_.str();
  const auto& secret = host_.at("secrets", "flotilla-system", "member3-credentials");
  EXPECT_EQ(api::base64Decode(secret.at("data").at("caBundle").as_string()).value(), "TOKEN CA");
}

TEST_F(JoinTest, RefusesANameTakenByAnotherClusterBeforeWritingAnything) {
  host_.put("federatedclusters", "", "member3",
            {{"metadata", json::object{{"name", "member3"},
                                       {"annotations", {{kClusterIdAnnotation, "other-id"}}}}},
             {"spec", json::object{{"apiEndpoint", "https://elsewhere:6443"}}}});
  EXPECT_EQ(runJoin(), 1);
  EXPECT_EQ(err_.str(),
            "flotillactl: the name \"member3\" is taken: FederatedCluster \"member3\" registers "
            "another cluster (cluster id other-id); choose another name, or `flotillactl unjoin "
            "member3` first\n");
  EXPECT_TRUE(member_.applied.empty());
  EXPECT_TRUE(host_.applied.empty());
}

TEST_F(JoinTest, RefusesAClusterRegisteredUnderAnotherName) {
  host_.put("federatedclusters", "", "old",
            {{"metadata",
              json::object{{"name", "old"}, {"annotations", {{kClusterIdAnnotation, "m3-id"}}}}}});
  EXPECT_EQ(runJoin(), 1);
  EXPECT_EQ(err_.str(),
            "flotillactl: this cluster (id m3-id) is already registered as \"old\"; "
            "`flotillactl unjoin old` first\n");
  EXPECT_TRUE(member_.applied.empty());
}

TEST_F(JoinTest, NameConflictWithoutAnIdComparesEndpoints) {
  const json::object handMade{{"metadata", json::object{{"name", "m"}}},
                              {"spec", json::object{{"apiEndpoint", "https://a:6443"}}}};
  EXPECT_EQ(nameConflict(handMade, "any", "https://a:6443"), "");
  EXPECT_NE(nameConflict(handMade, "any", "https://b:6443"), "");
}

TEST_F(JoinTest, ListsEveryMissingPermissionBeforeWritingAnything) {
  member_.denied = {"create clusterroles", "list pods", "escalate clusterroles"};
  EXPECT_EQ(runJoin(), 1);
  EXPECT_EQ(err_.str(),
            "flotillactl: member member3: the member kubeconfig lacks permissions join needs:\n"
            "  create clusterroles.rbac.authorization.k8s.io\n"
            "  list pods\n");
  EXPECT_TRUE(member_.applied.empty());
  EXPECT_TRUE(host_.applied.empty());
}

TEST_F(JoinTest, EscalateAndBindStandInForHoldingTheRolesPermissions) {
  member_.denied = {"list pods", "delete deployments"};
  EXPECT_EQ(runJoin(), 0) << err_.str();
}

TEST_F(JoinTest, RefusesAHostKubeconfigThatCannotRegister) {
  host_.denied = {"create federatedclusters"};
  EXPECT_EQ(runJoin(), 1);
  EXPECT_NE(err_.str().find("the host kubeconfig lacks permissions join needs:\n"
                            "  create federatedclusters.flotilla.io\n"),
            std::string::npos)
      << err_.str();
  EXPECT_TRUE(member_.applied.empty());
}

TEST_F(JoinTest, AnUnreachableMemberIsNamed) {
  member_.reachable = false;
  EXPECT_EQ(runJoin(), 1);
  EXPECT_EQ(err_.str(),
            "flotillactl: cannot reach the member cluster at https://m3:6443: connection "
            "refused\n");
}

TEST_F(JoinTest, AHostWithoutFlotillaIsNamed) {
  host_.remove({"", "v1", "namespaces", false, "Namespace"}, "", "flotilla-system");
  EXPECT_EQ(runJoin(), 1);
  EXPECT_EQ(err_.str(),
            "flotillactl: host: namespace flotilla-system does not exist: install Flotilla "
            "first (docs/install.md)\n");
}

TEST_F(JoinTest, ATokenThatNeverComesEndsWithTheReasonAndNoHostWrites) {
  member_.tokenController = false;
  EXPECT_EQ(runJoin(), 1);
  EXPECT_NE(err_.str().find("was not given a token"), std::string::npos) << err_.str();
  EXPECT_EQ(pauses_, 2);  // three reads, a pause between each
  EXPECT_TRUE(host_.applied.empty());
}

TEST_F(JoinTest, ATokenOfAnEarlierServiceAccountIsReplaced) {
  ASSERT_EQ(runJoin(), 0) << err_.str();
  // The account deleted and re-created (a new uid): the Secret's token no longer authenticates.
  member_.remove({"", "v1", "serviceaccounts", true, "ServiceAccount"}, "flotilla-system",
                 "flotilla-member");
  ASSERT_EQ(runJoin(), 0) << err_.str();
  EXPECT_NE(out_.str().find("belongs to an earlier ServiceAccount of that name: replaced\n"
                            "member member3: secret/flotilla-member-token created\n"),
            std::string::npos)
      << out_.str();
  const auto& secret = member_.at("secrets", "flotilla-system", "flotilla-member-token");
  EXPECT_EQ(
      secret.at("metadata").at("annotations").at("kubernetes.io/service-account.uid"),
      member_.at("serviceaccounts", "flotilla-system", "flotilla-member").at("metadata").at("uid"));
}

TEST_F(JoinTest, UnjoinOfAnotherNameLeavesAMemberRegisteredAsSomethingElse) {
  ASSERT_EQ(runJoin(), 0) << err_.str();
  options_.name = "typo";
  EXPECT_EQ(runUnjoin(&member_), 1);
  EXPECT_NE(err_.str().find("is registered as \"member3\" (its credentials are in use): nothing "
                            "was deleted"),
            std::string::npos)
      << err_.str();
  EXPECT_TRUE(member_.removed.empty());
  EXPECT_TRUE(host_.removed.empty());
}

TEST_F(JoinTest, UnjoinRemovesBothSidesAndIsIdempotent) {
  ASSERT_EQ(runJoin(), 0) << err_.str();
  ASSERT_EQ(runUnjoin(&member_), 0) << err_.str();
  EXPECT_EQ(out_.str(),
            "host: federatedcluster/member3 deleted\n"
            "host: secret/member3-credentials deleted\n"
            "member member3: secret/flotilla-member-token deleted\n"
            "member member3: clusterrolebinding/flotilla-member deleted\n"
            "member member3: clusterrole/flotilla-member deleted\n"
            "member member3: serviceaccount/flotilla-member deleted\n"
            "cluster \"member3\" unjoined\n");  // flotilla-system was there before join: kept
  EXPECT_FALSE(host_.has("federatedclusters", "", "member3"));
  EXPECT_TRUE(member_.has("namespaces", "", "flotilla-system"));
  ASSERT_EQ(runUnjoin(&member_), 0) << err_.str();
  EXPECT_NE(out_.str().find("host: federatedcluster/member3 not found"), std::string::npos);
}

TEST_F(JoinTest, UnjoinDeletesTheNamespaceOnlyWhenJoinCreatedIt) {
  member_.remove({"", "v1", "namespaces", false, "Namespace"}, "", "flotilla-system");
  ASSERT_EQ(runJoin(), 0) << err_.str();
  ASSERT_EQ(runUnjoin(&member_), 0) << err_.str();
  EXPECT_FALSE(member_.has("namespaces", "", "flotilla-system"));
}

TEST_F(JoinTest, UnjoinRefusesAKubeconfigOfAnotherCluster) {
  ASSERT_EQ(runJoin(), 0) << err_.str();
  FakeCluster other("https://m9:6443", "m9-id");
  EXPECT_EQ(runUnjoin(&other), 1);
  EXPECT_NE(err_.str().find("registers cluster id m3-id; nothing was deleted"), std::string::npos);
  EXPECT_TRUE(host_.removed.empty());
}

TEST_F(JoinTest, UnjoinKeepsTheCredentialsWhileTheFinalizerHoldsTheCluster) {
  ASSERT_EQ(runJoin(), 0) << err_.str();
  host_.finalizerHolds = true;
  EXPECT_EQ(runUnjoin(&member_), 1);
  EXPECT_NE(err_.str().find("is still terminating"), std::string::npos) << err_.str();
  EXPECT_TRUE(host_.has("secrets", "flotilla-system", "member3-credentials"));
  EXPECT_TRUE(member_.removed.empty());
}

// config/member/member.yaml is generated: a rule changed in cli/join.cc without `make crds`
// fails here, so the by-hand registration grants what join grants.
TEST(MemberManifest, ConfigMemberIsCurrentAndHoldsTheMemberRules) {
  std::ifstream in(std::filesystem::path(FLOTILLA_SOURCE_DIR) / "config/member/member.yaml");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), memberManifest()) << "config/member/member.yaml is stale: run `make crds`";
  auto docs = api::parseManifests(memberManifest());
  ASSERT_TRUE(docs) << docs.error().message;
  ASSERT_EQ(docs->size(), 5u);
  EXPECT_EQ(docs->at(0).value.at("kind"), "Namespace");
  EXPECT_EQ(docs->at(2).value.at("rules"), memberRules());
}

}  // namespace
}  // namespace flotilla::cli
