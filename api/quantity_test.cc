#include "api/quantity.h"

#include <gtest/gtest.h>

namespace flotilla::api {
namespace {

struct Case {
  const char* input;
  const char* canonical;  // nullptr: the input must be rejected
};

// Expected canonical forms follow k8s.io/apimachinery/pkg/api/resource: decimal values print with
// the largest SI suffix whose exponent is a multiple of three and keeps an integer mantissa,
// binary values with the largest exact power of 1024, and exponent notation stays exponent.
const Case kCases[] = {
    {"0", "0"},
    {"0.0", "0"},
    {"001", "1"},
    {"100m", "100m"},
    {"1.5", "1500m"},
    {"0.1", "100m"},
    {"0.001", "1m"},
    {"1000m", "1"},
    {"1500m", "1500m"},
    {"1000", "1k"},
    {"1024", "1024"},
    {"1k", "1k"},
    {"1.5k", "1500"},
    {"1.25M", "1250k"},
    {"1M", "1M"},
    {"1G", "1G"},
    {"1T", "1T"},
    {"1P", "1P"},
    {"1E", "1E"},
    {"10E", "10E"},
    {"250u", "250u"},
    {"1n", "1n"},
    {"0.1n", "1n"},  // rounded up to the smallest representable amount
    {"5000000000n", "5"},
    {"-1", "-1"},
    {"-100m", "-100m"},
    {"+1k", "1k"},
    {"1.G", "1G"},  // Kubernetes accepts an empty fraction
    {"1Ki", "1Ki"},
    {"512Ki", "512Ki"},
    {"1024Ki", "1Mi"},
    {"500Mi", "500Mi"},
    {"2000Mi", "2000Mi"},
    {"3072Mi", "3Gi"},
    {"2Gi", "2Gi"},
    {"0.5Gi", "512Mi"},
    {"1.5Gi", "1536Mi"},
    {"1Ti", "1Ti"},
    {"1Pi", "1Pi"},
    {"1Ei", "1Ei"},
    {"8Ei", "9223372036854775807"},  // binary quantities are capped at 2^63-1
    {"1e3", "1e3"},
    {"1E3", "1e3"},
    {"12e6", "12e6"},
    {"1e-3", "1e-3"},
    {"100e-3", "100e-3"},
    {"1.5e3", "1500"},
    // invalid
    {"", nullptr},
    {"abc", nullptr},
    {"1.2.3", nullptr},
    {"1K", nullptr},
    {"1 Gi", nullptr},
    {" 1", nullptr},
    {"1Gb", nullptr},
    {"--1", nullptr},
    {"1e", nullptr},
    {"1i", nullptr},
    {"1Kii", nullptr},
    {"1e3.5", nullptr},
    {"0x10", nullptr},
    {"1,000", nullptr},
    {"1mm", nullptr},
    {"1m1", nullptr},
    {"1E+", nullptr},
    {"1e999999999999", nullptr},
};

TEST(QuantityTest, ParsesAndCanonicalisesLikeKubernetes) {
  int valid = 0;
  int invalid = 0;
  for (const auto& c : kCases) {
    auto q = Quantity::parse(c.input);
    if (c.canonical == nullptr) {
      EXPECT_FALSE(q.has_value()) << "\"" << c.input << "\" should be rejected, got "
                                  << (q ? q->str() : "");
      ++invalid;
    } else {
      ASSERT_TRUE(q.has_value()) << "\"" << c.input << "\": " << q.error().message;
      EXPECT_EQ(q->str(), c.canonical) << "input \"" << c.input << "\"";
      // Canonical output parses back to the same value and prints the same.
      auto again = Quantity::parse(q->str());
      ASSERT_TRUE(again.has_value());
      EXPECT_EQ(*again, *q);
      EXPECT_EQ(again->str(), q->str());
      ++valid;
    }
  }
  EXPECT_GE(valid + invalid, 40);
}

TEST(QuantityTest, ErrorNamesTheInput) {
  auto q = Quantity::parse("12Q");
  ASSERT_FALSE(q.has_value());
  EXPECT_EQ(q.error().reason, reason::kBadRequest);
  EXPECT_NE(q.error().message.find("\"12Q\""), std::string::npos);
}

// Found by fuzz/quantity_fuzz.cc: a 41-digit number overflowed the 128-bit accumulator and came
// back negative ("-126561577554719285963374972837072845824n").
TEST(QuantityTest, HugeIntegersAreTooLargeNotWrapped) {
  auto huge = Quantity::parse("12345678901290345678901234567890123456890");
  ASSERT_FALSE(huge.has_value());
  EXPECT_NE(huge.error().message.find("too large"), std::string::npos) << huge.error().message;
  auto largest = Quantity::parse("999999999999999999999999999");  // 10^27 - 1 units: fits
  ASSERT_TRUE(largest.has_value());
  EXPECT_EQ(largest->sign(), 1);
}

Quantity q(const char* s) { return Quantity::parse(s).value(); }

TEST(QuantityTest, ComparesByValueAcrossFormats) {
  EXPECT_EQ(q("1k"), q("1000"));
  EXPECT_EQ(q("1e3"), q("1000"));
  EXPECT_EQ(q("1Ki"), q("1024"));
  EXPECT_GT(q("1Gi"), q("1G"));
  EXPECT_LT(q("999m"), q("1"));
  EXPECT_LT(q("-1"), q("0"));
}

TEST(QuantityTest, ExactArithmetic) {
  EXPECT_EQ((q("100m") + q("1.5")).str(), "1600m");
  EXPECT_EQ((q("1Gi") - q("512Mi")).str(), "512Mi");
  // 0.1 + 0.2 is exactly 0.3: no floating point anywhere.
  EXPECT_EQ(q("0.1") + q("0.2"), q("0.3"));
  Quantity sum;
  for (int i = 0; i < 10; ++i) sum += q("100m");
  EXPECT_EQ(sum, q("1"));
  EXPECT_EQ((q("1") - q("1500m")).str(), "-500m");
  EXPECT_TRUE((q("2Gi") - q("2Gi")).isZero());
}

TEST(QuantityTest, SumsSaturateInsteadOfOverflowing) {
  // Doubling the largest parsable quantity overflows 128 bits after ~65 steps; it must stay the
  // largest value (UBSan would stop the test on a signed overflow).
  Quantity big = q("9223372036854775807");
  Quantity sum = big;
  for (int i = 0; i < 200; ++i) sum += sum;
  EXPECT_GT(sum, big);
  EXPECT_EQ(sum.value(), INT64_MAX);
  Quantity debt;
  for (int i = 0; i < 200; ++i) debt -= sum;
  EXPECT_LT(debt, Quantity());
  EXPECT_EQ(debt.value(), INT64_MIN);
}

TEST(QuantityTest, ValueAndMilliValueRoundUpLikeKubernetes) {
  EXPECT_EQ(q("1.5").milliValue(), 1500);
  EXPECT_EQ(q("100m").milliValue(), 100);
  EXPECT_EQ(q("1n").milliValue(), 1);
  EXPECT_EQ(q("100m").value(), 1);
  EXPECT_EQ(q("2Gi").value(), 2147483648);
  EXPECT_EQ(q("-1500m").value(), -2);
  EXPECT_EQ(Quantity::fromMilli(250).str(), "250m");
  EXPECT_EQ(Quantity::fromUnits(3, Quantity::Format::kBinarySI).str(), "3");
  EXPECT_EQ(Quantity::fromUnits(4096, Quantity::Format::kBinarySI).str(), "4Ki");
}

}  // namespace
}  // namespace flotilla::api
