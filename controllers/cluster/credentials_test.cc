#include "controllers/cluster/credentials.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace flotilla::controllers::cluster {
namespace {

namespace json = boost::json;

json::object secretAnnotated(json::value annotations) {
  return json::object{{"metadata", json::object{{"name", "member1-credentials"},
                                                {"annotations", std::move(annotations)}}},
                      {"data", json::object{{"token", "dG9r"}}}};
}

TEST(CredentialsBinding, OnlyTheClusterTheSecretNames) {
  const auto bound = secretAnnotated(json::object{{"flotilla.io/cluster", "member1"}});
  EXPECT_EQ(credentialsBindingError(bound, "member1"), std::nullopt);

  // The attack of docs/security.md H1: another FederatedCluster names member1's Secret.
  auto stolen = credentialsBindingError(bound, "evil");
  ASSERT_TRUE(stolen);
  EXPECT_EQ(*stolen,
            "the Secret belongs to cluster \"member1\" (annotation flotilla.io/cluster), not to "
            "this one");

  for (const json::value& annotations :
       {json::value(json::object{}), json::value(nullptr), json::value("x"),
        json::value(json::object{{"flotilla.io/cluster", 3}}),
        json::value(json::object{{"flotilla.io/clusters", "member1"}})}) {
    auto unbound = credentialsBindingError(secretAnnotated(annotations), "member1");
    ASSERT_TRUE(unbound) << json::serialize(annotations);
    EXPECT_NE(unbound->find("annotate the Secret flotilla.io/cluster=member1"), std::string::npos);
  }
  EXPECT_TRUE(credentialsBindingError(json::object{}, "member1"));
  EXPECT_TRUE(credentialsBindingError(json::object{{"metadata", 1}}, "member1"));
  // A prefix or an empty name is not a match.
  EXPECT_TRUE(credentialsBindingError(secretAnnotated(json::object{{"flotilla.io/cluster", ""}}),
                                      "member1"));
  EXPECT_TRUE(credentialsBindingError(
      secretAnnotated(json::object{{"flotilla.io/cluster", "member"}}), "member1"));
}

}  // namespace
}  // namespace flotilla::controllers::cluster
