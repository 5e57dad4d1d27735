#include "api/quantity.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace flotilla::api {
namespace {

constexpr __int128 kNanosPerUnit = 1'000'000'000;
// Largest magnitude we store: 10^36 nano-units (10^27 units). Kubernetes' decimal quantities are
// unbounded in theory; nothing a cluster schedules comes near this, and it keeps x100 in
// canonicalisation free of overflow.
constexpr __int128 kMaxNanos = static_cast<__int128>(1'000'000'000'000'000'000) *
                               static_cast<__int128>(1'000'000'000'000'000'000);
// Kubernetes caps BinarySI quantities at 2^63-1 units.
constexpr __int128 kMaxBinaryNanos = static_cast<__int128>(INT64_MAX) * kNanosPerUnit;

// Minimal unsigned big integer (base 10^9 limbs, little endian) for exact parsing of arbitrarily
// long digit strings and exponents before they are rounded to nano precision.
class BigUint {
 public:
  void mulAdd(uint32_t mul, uint32_t add) {
    uint64_t carry = add;
    for (auto& limb : limbs_) {
      uint64_t cur = static_cast<uint64_t>(limb) * mul + carry;
      limb = static_cast<uint32_t>(cur % kBase);
      carry = cur / kBase;
    }
    while (carry > 0) {
      limbs_.push_back(static_cast<uint32_t>(carry % kBase));
      carry /= kBase;
    }
  }
  // Divides in place; returns true when the remainder was non-zero.
  bool divInexact(uint32_t div) {
    uint64_t rem = 0;
    for (auto it = limbs_.rbegin(); it != limbs_.rend(); ++it) {
      uint64_t cur = rem * kBase + *it;
      *it = static_cast<uint32_t>(cur / div);
      rem = cur % div;
    }
    trim();
    return rem != 0;
  }
  bool isZero() const { return limbs_.empty(); }
  size_t digits() const { return limbs_.size() * 9; }
  // Returns false when the value exceeds `limit`.
  bool toInt128(__int128 limit, __int128* out) const {
    if (limbs_.size() > 5) return false;
    __int128 v = 0;
    for (auto it = limbs_.rbegin(); it != limbs_.rend(); ++it) {
      // Checked before multiplying: five limbs reach 10^45, past what __int128 holds.
      if (v > (limit - *it) / static_cast<__int128>(kBase)) return false;
      v = v * kBase + *it;
    }
    *out = v;
    return true;
  }

 private:
  static constexpr uint64_t kBase = 1'000'000'000;
  void trim() {
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
  }
  std::vector<uint32_t> limbs_;
};

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// The pieces of a quantity string, scanned exactly like Kubernetes' parseQuantityString.
struct Scanned {
  bool positive = true;
  std::string_view num;    // integer digits, leading zeros stripped
  std::string_view denom;  // fraction digits
  std::string_view suffix;
};

bool scan(std::string_view s, Scanned* out) {
  size_t pos = 0;
  const size_t end = s.size();
  if (pos < end && (s[0] == '-' || s[0] == '+')) {
    out->positive = s[0] != '-';
    ++pos;
  }
  while (pos < end && s[pos] == '0') ++pos;
  size_t start = pos;
  while (pos < end && isDigit(s[pos])) ++pos;
  out->num = s.substr(start, pos - start);
  if (pos < end && s[pos] == '.') {
    ++pos;
    start = pos;
    while (pos < end && isDigit(s[pos])) ++pos;
    out->denom = s.substr(start, pos - start);
  }
  const size_t suffixStart = pos;
  static constexpr std::string_view kSuffixChars = "eEinumkKMGTP";
  while (pos < end && kSuffixChars.find(s[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (s[pos] == '-' || s[pos] == '+')) ++pos;
  while (pos < end && isDigit(s[pos])) ++pos;
  if (pos != end) return false;  // a character that belongs nowhere
  out->suffix = s.substr(suffixStart);
  return true;
}

struct Suffix {
  int base = 10;  // 10 or 2
  int exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

bool interpretSuffix(std::string_view suffix, Suffix* out) {
  static constexpr std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0},   {"k", 3},
      {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static constexpr std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [text, exp] : kDecimal) {
    if (suffix == text) {
      *out = {10, exp, Quantity::Format::kDecimalSI};
      return true;
    }
  }
  for (const auto& [text, exp] : kBinary) {
    if (suffix == text) {
      *out = {2, exp, Quantity::Format::kBinarySI};
      return true;
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view digits = suffix.substr(1);
    bool negative = false;
    if (digits[0] == '+' || digits[0] == '-') {
      negative = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 9)
      return false;  // also rejects "e+" and absurd exponents
    int exp = 0;
    for (char c : digits) {
      if (!isDigit(c)) return false;
      exp = exp * 10 + (c - '0');
    }
    *out = {10, negative ? -exp : exp, Quantity::Format::kDecimalExponent};
    return true;
  }
  return false;
}

std::string int128ToString(__int128 v) {
  if (v == 0) return "0";
  const bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : v;
  std::string out;
  while (u > 0) {
    out.push_back(static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  if (negative) out.push_back('-');
  std::reverse(out.begin(), out.end());
  return out;
}

// Divides rounding away from zero, as Kubernetes' Value()/MilliValue() do.
int64_t divideUp(__int128 nanos, __int128 per) {
  __int128 q = nanos / per;
  if (nanos % per != 0) q += nanos > 0 ? 1 : -1;
  q = std::clamp<__int128>(q, INT64_MIN, INT64_MAX);
  return static_cast<int64_t>(q);
}

}  // namespace

Result<Quantity> Quantity::parse(std::string_view text) {
  auto fail = [&](const char* why) {
    return badRequest("quantity \"" + std::string(text) + "\": " + why);
  };
  if (text.empty()) return fail("must not be empty");
  Scanned scanned;
  if (!scan(text, &scanned)) {
    return fail("must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  }
  Suffix suffix;
  if (!interpretSuffix(scanned.suffix, &suffix)) return fail("unable to parse quantity's suffix");

  // Exact value = digits * 10^(decimalExponent) * 2^binaryExponent; bring it to nano-units and
  // round up any remainder, as Kubernetes does ("if you want some resources, you get some").
  BigUint digits;
  for (char c : scanned.num) digits.mulAdd(10, static_cast<uint32_t>(c - '0'));
  for (char c : scanned.denom) digits.mulAdd(10, static_cast<uint32_t>(c - '0'));
  int64_t decimalExponent = 9 - static_cast<int64_t>(scanned.denom.size());
  if (suffix.base == 10) {
    decimalExponent += suffix.exponent;
  } else {
    for (int i = 0; i < suffix.exponent; ++i) digits.mulAdd(2, 0);
  }
  bool inexact = false;
  if (!digits.isZero()) {
    for (; decimalExponent > 0; --decimalExponent) {
      digits.mulAdd(10, 0);
      if (digits.digits() > 60) return fail("value is too large");
    }
    for (; decimalExponent < 0 && !digits.isZero(); ++decimalExponent) {
      inexact = digits.divInexact(10) || inexact;
    }
  }
  __int128 nanos = 0;
  if (!digits.toInt128(kMaxNanos, &nanos)) return fail("value is too large");
  if (inexact) nanos += 1;

  Format format = suffix.format;
  if (format == Format::kBinarySI) {
    nanos = std::min(nanos, kMaxBinaryNanos);
    if (nanos > 0 && nanos < kNanosPerUnit) format = Format::kDecimalSI;
  }
  return Quantity(scanned.positive ? nanos : -nanos, format);
}

Quantity Quantity::fromUnits(int64_t units, Format format) {
  return Quantity(static_cast<__int128>(units) * kNanosPerUnit, format);
}

Quantity Quantity::fromMilli(int64_t milli) {
  return Quantity(static_cast<__int128>(milli) * 1'000'000, Format::kDecimalSI);
}

int64_t Quantity::value() const { return divideUp(nanos_, kNanosPerUnit); }
int64_t Quantity::milliValue() const { return divideUp(nanos_, 1'000'000); }

// Sums of many parsed quantities (a cluster's allocatable, a workload's requests) saturate
// instead of overflowing: signed overflow is undefined behaviour, and a saturated value still
// compares as "more than anything" wherever it is used.
namespace {
constexpr __int128 kInt128Max =
    static_cast<__int128>((static_cast<unsigned __int128>(1) << 127) - 1);
constexpr __int128 kInt128Min = -kInt128Max - 1;
}  // namespace

Quantity& Quantity::operator+=(const Quantity& other) {
  if (nanos_ == 0) format_ = other.format_;
  const __int128 add = other.nanos_;  // `other` may be *this
  if (__builtin_add_overflow(nanos_, add, &nanos_)) nanos_ = add > 0 ? kInt128Max : kInt128Min;
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  if (nanos_ == 0) format_ = other.format_;
  const __int128 sub = other.nanos_;  // `other` may be *this
  if (__builtin_sub_overflow(nanos_, sub, &nanos_)) nanos_ = sub < 0 ? kInt128Max : kInt128Min;
  return *this;
}

std::string Quantity::str() const {
  if (nanos_ == 0) return "0";
  Format format = format_;
  if (format == Format::kBinarySI) {
    const __int128 magnitude = nanos_ < 0 ? -nanos_ : nanos_;
    // Small or fractional binary values print as DecimalSI so nothing is rounded.
    if (magnitude < 1024 * kNanosPerUnit || nanos_ % kNanosPerUnit != 0) {
      format = Format::kDecimalSI;
    } else {
      __int128 amount = nanos_ / kNanosPerUnit;
      int power = 0;
      while (power < 6 && amount % 1024 == 0) {
        amount /= 1024;
        ++power;
      }
      static constexpr const char* kBinarySuffix[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      return int128ToString(amount) + kBinarySuffix[power];
    }
  }
  // Decimal: mantissa without trailing zeros, exponent lowered to a multiple of three.
  __int128 mantissa = nanos_;
  int exponent = -9;
  while (mantissa % 10 == 0) {
    mantissa /= 10;
    ++exponent;
  }
  switch (exponent % 3) {
    case 1:
    case -2:
      mantissa *= 10;
      exponent -= 1;
      break;
    case 2:
    case -1:
      mantissa *= 100;
      exponent -= 2;
      break;
    default:
      break;
  }
  std::string suffix;
  if (format == Format::kDecimalSI && exponent >= -9 && exponent <= 18) {
    static constexpr const char* kDecimalSuffix[] = {"n", "u", "m", "",  "k",
                                                     "M", "G", "T", "P", "E"};
    suffix = kDecimalSuffix[(exponent + 9) / 3];
  } else if (exponent != 0) {
    suffix = "e";
    suffix += std::to_string(exponent);
  }
  return int128ToString(mantissa) + suffix;
}

}  // namespace flotilla::api
