#include <gtest/gtest.h>

#include <sstream>

#include "cli/commands.h"

namespace flotilla::cli {
namespace {

struct CommandResult {
  int code;
  std::string out;
  std::string err;
};

CommandResult validateStdin(const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out;
  std::ostringstream err;
  int code = runValidate({"-f", "-"}, in, out, err);
  return {code, out.str(), err.str()};
}

TEST(ValidateCommandTest, ValidObjectsExitZero) {
  CommandResult r = validateStdin(R"(
apiVersion: flotilla.io/v1alpha1
kind: SchedulingProfile
metadata: {name: fast}
---
apiVersion: v1
kind: List
items:
  - {apiVersion: flotilla.io/v1alpha1, kind: SchedulingProfile, metadata: {name: slow}}
)");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SchedulingProfile fast: valid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("items[0]: SchedulingProfile slow: valid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 object(s) checked: all valid"), std::string::npos);
}

TEST(ValidateCommandTest, InvalidObjectPrintsEveryErrorWithPath) {
  CommandResult r = validateStdin(R"(
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: p}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    spreadConstraints: [{spreadByField: cluster, minGroups: 3, maxGroups: 2}]
    replicaScheduling: {type: Split}
)");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("PropagationPolicy p: invalid"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  spec.placement.spreadConstraints[0].maxGroups: must be >= minGroups"),
            std::string::npos);
  EXPECT_NE(r.out.find("  spec.placement.replicaScheduling.type: Unsupported value: \"Split\""),
            std::string::npos);
}

TEST(ValidateCommandTest, MalformedInputIsAnErrorNotACrash) {
  CommandResult badYaml = validateStdin("kind: [unclosed\n");
  EXPECT_EQ(badYaml.code, 1);
  EXPECT_NE(badYaml.err.find("yaml: line"), std::string::npos) << badYaml.err;

  CommandResult wrongType = validateStdin(
      "apiVersion: flotilla.io/v1alpha1\nkind: FederatedCluster\nmetadata: {name: m}\n"
      "spec: {apiEndpoint: 42, taints: {key: x}}\n");
  EXPECT_EQ(wrongType.code, 1);
  EXPECT_NE(wrongType.out.find("spec.apiEndpoint: expected string, got integer"), std::string::npos)
      << wrongType.out;
  EXPECT_NE(wrongType.out.find("spec.taints: expected array, got object"), std::string::npos);

  CommandResult unknownKind = validateStdin("apiVersion: flotilla.io/v1alpha1\nkind: Gadget\n");
  EXPECT_EQ(unknownKind.code, 1);
  EXPECT_NE(
      unknownKind.out.find("no matches for kind \"Gadget\" in version \"flotilla.io/v1alpha1\""),
      std::string::npos);

  CommandResult typo = validateStdin(
      "apiVersion: flotilla.io/v1alpha1\nkind: SchedulingProfile\nmetadata: {name: s}\n"
      "spec: {plugin: {}}\n");
  EXPECT_EQ(typo.code, 1);
  EXPECT_NE(typo.out.find("spec.plugin: unknown field \"plugin\""), std::string::npos) << typo.out;

  CommandResult binary = validateStdin(std::string("\x00\xff\xfe{{{", 6));
  EXPECT_EQ(binary.code, 1);
}

TEST(ValidateCommandTest, OversizedInputIsRefused) {
  CommandResult r = validateStdin(std::string(17 * 1024 * 1024, '#'));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("input is larger than 16 MiB"), std::string::npos) << r.err;
}

TEST(ValidateCommandTest, UsageErrors) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(runValidate({}, in, out, err), 2);
  EXPECT_EQ(runValidate({"--bogus"}, in, out, err), 2);
  EXPECT_EQ(runValidate({"-f", "/definitely/not/here.yaml"}, in, out, err), 1);
  EXPECT_NE(err.str().find("cannot open /definitely/not/here.yaml"), std::string::npos);
}

}  // namespace
}  // namespace flotilla::cli
