// OverridePolicy rules (docs/design.md §14) on any object: the input is a ClusterOverridePolicy
// and an object, as JSON, separated by a blank line. Any pair is refused by validation or gives
// an overridden object, a list of skipped overriders, or an error naming the rule; never a crash.
// A policy that validates never changes the object's identity (kind, apiVersion, name,
// namespace): the paths that would are refused. The resolution (which rules apply to the object
// on a fixed cluster) gives a subsequence of the policy's rules, in order.
#include "api/json_codec.h"
#include "api/unstructured.h"
#include "api/validation.h"
#include "controllers/override/overriders.h"
#include "controllers/override/resolve.h"
#include "fuzz/fuzz_check.h"

namespace api = flotilla::api;
namespace u = flotilla::api::unstructured;
namespace ov = flotilla::controllers::override;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [policyText, objectText] =
      flotilla::fuzz::split(flotilla::fuzz::text(data, size), "\n\n");
  auto policyJson = api::parseJson(policyText);
  auto objectJson = api::parseJson(objectText);
  if (!policyJson || !objectJson || !objectJson->is_object()) return 0;
  auto policy = api::decode<api::ClusterOverridePolicy>(*policyJson);
  if (!policy) return 0;
  const bool valid = api::validate(*policy).empty();
  std::vector<ov::RuleRef> rules;
  for (size_t i = 0; i < policy->spec.rules.size(); ++i)
    rules.push_back({"cop/fuzz", i, &policy->spec.rules[i]});
  boost::json::object object = objectJson->as_object();
  api::FederatedCluster cluster;
  cluster.metadata.name = "member3";
  cluster.metadata.labels = {{"env", "prod"}};
  cluster.spec.region = "us-east";
  cluster.spec.provider = "gcp";
  cluster.spec.zone = "us-east-1a";
  ov::PolicySet set;
  set.clusterPolicies.push_back(std::make_shared<const api::ClusterOverridePolicy>(*policy));
  const auto workload = flotilla::controllers::policy::workloadOf(object);
  const auto selected = ov::selecting(set, workload);
  const auto resolved = ov::rulesFor(selected, cluster);
  FUZZ_CHECK(selected.policies.empty(), "a ClusterOverridePolicy resolved as an OverridePolicy");
  FUZZ_CHECK(resolved.size() <= policy->spec.rules.size(), "more rules resolved than written");
  for (size_t i = 0; i < resolved.size(); ++i) {
    FUZZ_CHECK(resolved[i].index < policy->spec.rules.size(), "a rule index out of range");
    FUZZ_CHECK(i == 0 || resolved[i - 1].index < resolved[i].index, "rules resolved out of order");
  }
  if (policy->metadata.deletionTimestamp)
    FUZZ_CHECK(resolved.empty(), "a policy being deleted still applies");
  const auto identity = [](const boost::json::object& o) {
    return u::stringAt(o, {"apiVersion"}) + "|" + u::stringAt(o, {"kind"}) + "|" +
           u::stringAt(o, {"metadata", "name"}) + "|" + u::stringAt(o, {"metadata", "namespace"});
  };
  const std::string before = identity(object);
  const auto result = ov::applyRules(object, rules);
  FUZZ_CHECK(result.applied.size() <= 1, "one policy applied more than once");
  if (valid && !result.error)
    FUZZ_CHECK(identity(object) == before, "a valid policy changed the object's identity");
  return 0;
}
