#include "api/label_selector.h"

#include <gtest/gtest.h>

#include <vector>

namespace flotilla::api {
namespace {

const Labels kProdEast = {{"env", "prod"}, {"region", "east"}, {"tier", "3"}};

bool selects(const char* text, const Labels& labels) {
  auto s = Selector::parse(text);
  EXPECT_TRUE(s.has_value()) << text << ": " << (s ? "" : s.error().message);
  return s && s->matches(labels);
}

TEST(LabelSelectorTest, StringFormMatchesLikeKubernetes) {
  EXPECT_TRUE(selects("", kProdEast));  // empty selects everything
  EXPECT_TRUE(selects("env=prod", kProdEast));
  EXPECT_TRUE(selects("env==prod", kProdEast));
  EXPECT_FALSE(selects("env=dev", kProdEast));
  EXPECT_TRUE(selects("env!=dev", kProdEast));
  EXPECT_TRUE(selects("missing!=x", kProdEast));  // != matches objects without the key
  EXPECT_TRUE(selects("region in (east,west)", kProdEast));
  EXPECT_FALSE(selects("region notin (east, west)", kProdEast));
  EXPECT_TRUE(selects("missing notin (a)", kProdEast));
  EXPECT_TRUE(selects("env", kProdEast));
  EXPECT_FALSE(selects("!env", kProdEast));
  EXPECT_TRUE(selects("!gpu", kProdEast));
  EXPECT_TRUE(selects("tier>2", kProdEast));
  EXPECT_FALSE(selects("tier<2", kProdEast));
  EXPECT_TRUE(selects("a=b,c!=d,e in (x,y),!f", {{"a", "b"}, {"e", "y"}}));
  EXPECT_FALSE(selects("a=b,c!=d,e in (x,y),!f", {{"a", "b"}, {"e", "y"}, {"f", ""}}));
  EXPECT_TRUE(selects("flotilla.io/policy=demo", {{"flotilla.io/policy", "demo"}}));
  // An empty value is legal: `env=` selects objects whose env label is empty.
  EXPECT_TRUE(selects("env=", {{"env", ""}}));
  EXPECT_FALSE(selects("env=", kProdEast));
}

TEST(LabelSelectorTest, StringFormRejectsMalformed) {
  for (const char* bad : {"=prod", "env in prod", "env in (a", "env ~ x", "a,,b", "-bad=x",
                          "env=prod,", "tier>x", "a b"}) {
    auto s = Selector::parse(bad);
    EXPECT_FALSE(s.has_value()) << "\"" << bad << "\" should be rejected";
  }
}

// A selector ending in ',' in a buffer with nothing after it (no NUL as in a literal): the
// parser must not read past the end (found by libFuzzer; ASan checks this test).
TEST(LabelSelectorTest, TrailingCommaAtTheEndOfTheBuffer) {
  const std::vector<char> buffer{'2', ','};
  auto s = Selector::parse(std::string_view(buffer.data(), buffer.size()));
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().message.find("expected a label key after ','"), std::string::npos)
      << s.error().message;
}

// An empty value in a set is a value, and printing keeps it (libFuzzer: "in (a,)" printed as
// "in (a)", which parses back as a different selector).
TEST(LabelSelectorTest, EmptyValueInASetSurvivesPrinting) {
  auto s = Selector::parse("env in (a,)");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->str(), "env in (,a)");
  auto back = Selector::parse(s->str());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->str(), s->str());
  EXPECT_TRUE(s->matches({{"env", ""}}));
}

TEST(LabelSelectorTest, PrintsCanonicalForm) {
  EXPECT_EQ(Selector::parse("b=2, a in (y,x),!c").value().str(), "a in (x,y),b=2,!c");
}

TEST(LabelSelectorTest, StructuredFormMatches) {
  LabelSelector sel;
  sel.matchLabels = {{"env", "prod"}};
  sel.matchExpressions = {{"region", "In", {"east", "west"}},
                          {"gpu", "DoesNotExist", {}},
                          {"tier", "Exists", {}},
                          {"zone", "NotIn", {"z9"}}};
  auto s = Selector::fromLabelSelector(sel);
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->matches(kProdEast));
  Labels withGpu = kProdEast;
  withGpu["gpu"] = "a100";
  EXPECT_FALSE(s->matches(withGpu));
  EXPECT_TRUE(Selector::fromLabelSelector(LabelSelector{}).value().matches({}));
}

TEST(LabelSelectorTest, StructuredFormErrorsHaveFieldPaths) {
  LabelSelector sel;
  sel.matchLabels = {{"bad key!", "v"}};
  sel.matchExpressions = {{"k", "In", {}}, {"k", "Exists", {"x"}}, {"k", "Near", {"x"}}};
  FieldErrors errors = validateLabelSelector(sel, "spec.labelSelector");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].field, "spec.labelSelector.matchLabels[bad key!]");
  EXPECT_EQ(errors[1].field, "spec.labelSelector.matchExpressions[0].values");
  EXPECT_EQ(errors[2].field, "spec.labelSelector.matchExpressions[1].values");
  EXPECT_EQ(errors[3].field, "spec.labelSelector.matchExpressions[2].operator");
  EXPECT_FALSE(Selector::fromLabelSelector(sel).has_value());
}

TEST(LabelSelectorTest, KeyAndValueSyntax) {
  EXPECT_TRUE(isQualifiedName("app"));
  EXPECT_TRUE(isQualifiedName("topology.kubernetes.io/zone"));
  EXPECT_FALSE(isQualifiedName("Bad_Prefix/x"));
  EXPECT_FALSE(isQualifiedName(std::string(64, 'a')));
  EXPECT_TRUE(isLabelValue(""));
  EXPECT_TRUE(isLabelValue("v1.2_3-x"));
  EXPECT_FALSE(isLabelValue("-x"));
}

}  // namespace
}  // namespace flotilla::api
