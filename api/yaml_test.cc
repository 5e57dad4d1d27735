#include "api/yaml.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace flotilla::api {
namespace {

namespace json = boost::json;

json::value one(std::string_view yaml) {
  auto docs = parseManifests(yaml);
  EXPECT_TRUE(docs.has_value()) << (docs ? "" : docs.error().message);
  return docs && !docs->empty() ? docs->front().value : json::value();
}

TEST(YamlTest, ScalarsResolveLikeKubectl) {
  EXPECT_EQ(one("a: 1\nb: -2\nc: 1.5\nd: true\ne: ~\nf: null\ng: hello\nh: '1'\ni: \"true\"\n"
                "j: yes\nk: off\nl: 1e3\nm: 0777\nn: 100m\no:\np: 0x1F\nq: 1_000\n"),
            json::parse(R"({"a": 1, "b": -2, "c": 1.5, "d": true, "e": null, "f": null,
                            "g": "hello", "h": "1", "i": "true", "j": true, "k": false,
                            "l": 1000.0, "m": 511, "n": "100m", "o": null,
                            "p": 31, "q": 1000})"));
}

TEST(YamlTest, MultipleDocumentsSkipEmptyOnes) {
  auto docs =
      parseManifests("# header\n---\na: 1\n---\n---\n# only a comment\n---\nb: [x, {c: d}]\n");
  ASSERT_TRUE(docs.has_value());
  ASSERT_EQ(docs->size(), 2u);
  EXPECT_EQ((*docs)[0].value, json::parse(R"({"a": 1})"));
  EXPECT_EQ((*docs)[1].value, json::parse(R"({"b": ["x", {"c": "d"}]})"));
  EXPECT_GT((*docs)[1].index, (*docs)[0].index);
}

TEST(YamlTest, JsonInputIsParsedAsJson) {
  auto docs = parseManifests("  {\"kind\": \"List\", \"items\": []}");
  ASSERT_TRUE(docs.has_value());
  EXPECT_EQ(docs->front().value, json::parse(R"({"kind": "List", "items": []})"));
}

TEST(YamlTest, ErrorsNameTheLine) {
  auto bad = parseManifests("a: 1\nb: [1, 2\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().reason, reason::kBadRequest);
  EXPECT_NE(bad.error().message.find("yaml: line"), std::string::npos) << bad.error().message;

  auto dup = parseManifests("metadata:\n  name: a\n  name: b\n");
  ASSERT_FALSE(dup.has_value());
  EXPECT_EQ(dup.error().message, "yaml: line 3: duplicate key \"name\" in metadata");

  std::string deep = "a: ";
  for (int i = 0; i < 5000; ++i) deep += "[";
  EXPECT_FALSE(parseManifests(deep).has_value());  // an error, not a stack overflow
}

// Found by fuzz/yaml_fuzz.cc. Each was a hang growing memory without bound (yaml-cpp 0.7 returns
// empty documents for ever at a stray flow entry), a value JSON cannot carry, an exponential
// expansion, or bytes that do not read back as they were written.
TEST(YamlTest, HostileInputIsAnErrorNotAHang) {
  for (std::string_view text : {",", "- a\n,", "\"a\",", "---\n,", ",a"}) {
    auto r = parseManifests(text);
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_NE(r.error().message.find("did not find expected node content"), std::string::npos)
        << r.error().message;
  }
  auto inf = parseManifests("replicas: 1e309\n");
  ASSERT_FALSE(inf.has_value());
  EXPECT_EQ(inf.error().message, "yaml: line 1: number out of range: 1e309");

  // An alias inside the node its own anchor names is a cycle (fuzz_yaml: a stack overflow).
  auto cycle = parseManifests("a: &x [1,off b: *x, 2]\nb: *x\n: *x\n: *x\ne-");
  ASSERT_FALSE(cycle.has_value());
  EXPECT_NE(cycle.error().message.find("exceeded max depth of 1000"), std::string::npos)
      << cycle.error().message;

  auto utf8 = parseManifests("a: b\nc: \"--\xb8\"\n");
  ASSERT_FALSE(utf8.has_value());
  EXPECT_EQ(utf8.error().message, "yaml: line 2: invalid UTF-8");
  EXPECT_TRUE(parseManifests("a: \"caf\xc3\xa9 \xf0\x9f\x9a\xa2\"\n").has_value());

  // Control characters (libFuzzer: a NUL changed the document on a round trip); tab, CR and the
  // C1 NEL are allowed, as YAML 1.2 says.
  const std::string control("a: b\nc: \x01\0d\n", 12);
  auto nul = parseManifests(control);
  ASSERT_FALSE(nul.has_value());
  EXPECT_EQ(nul.error().message, "yaml: line 2: control characters are not allowed");
  EXPECT_FALSE(parseManifests("a: \"b\xc2\x9f\"\n").has_value());
  EXPECT_FALSE(parseManifests("a: b\x7f\n").has_value());
  EXPECT_TRUE(parseManifests("a: \"b\tc\"\r\nd: \"e\xc2\x85\"\n").has_value());

  // Lone CRs are line breaks (libFuzzer: "\r\r" was read as a two-character string).
  auto crs = parseManifests("\r\r");
  ASSERT_TRUE(crs.has_value());
  EXPECT_TRUE(crs->empty());
  auto mac = parseManifests("a: 1\rb: two\r");
  ASSERT_TRUE(mac.has_value());
  ASSERT_EQ(mac->size(), 1u);
  EXPECT_EQ(boost::json::serialize((*mac)[0].value), R"({"a":1,"b":"two"})");

  // Billion laughs: nine levels of ten aliases each would be 10^9 values.
  std::string bomb = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  auto laughs = parseManifests(bomb);
  ASSERT_FALSE(laughs.has_value());
  EXPECT_NE(laughs.error().message.find("excessive aliasing"), std::string::npos);
  // Ordinary aliases still work.
  EXPECT_EQ(one("a: &x [1, 2]\nb: *x\n"), json::parse(R"({"a":[1,2],"b":[1,2]})"));
}

TEST(YamlTest, EmitterQuotesWhatWouldChangeType) {
  json::value v = json::parse(R"({"s": "true", "n": "123", "e": "", "c": "a: b", "x": "plain",
      "list": [1, "2", null, false], "empty": {}, "none": [], "dash": "-x", "f": 2.5,
      "big": 18446744073709551615, "star": "*", "path": ".status.conditions[?(@.type==\"Ready\")].status"})");
  auto back = parseManifests(toYaml(v));
  ASSERT_TRUE(back.has_value()) << toYaml(v);
  EXPECT_EQ(back->front().value, v) << toYaml(v);
}

}  // namespace
}  // namespace flotilla::api
