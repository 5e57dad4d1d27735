// Kubernetes resource.Quantity with the API server's exact semantics.
//
// A quantity is stored as a signed 128-bit count of nano-units, which holds every value the
// Kubernetes parser can produce exactly (it rounds to nano precision and caps binary values at
// 2^63-1), so arithmetic and comparison never go through floating point.
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "api/result.h"

namespace flotilla::api {

class Quantity {
 public:
  // How a quantity prints; kept from the parsed string like Kubernetes does.
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;
  static Result<Quantity> parse(std::string_view text);
  // Quantities built from code: n units, or n milli-units, in DecimalSI.
  static Quantity fromUnits(int64_t units, Format format = Format::kDecimalSI);
  static Quantity fromMilli(int64_t milli);

  // Canonical form, as `kubectl get -o yaml` prints it: "100m", "1500m", "2Gi", "1k", "1e3".
  std::string str() const;

  // Rounded up (away from zero) like Quantity.Value() / MilliValue().
  int64_t value() const;
  int64_t milliValue() const;
  __int128 nanoValue() const { return nanos_; }
  Format format() const { return format_; }
  bool isZero() const { return nanos_ == 0; }
  int sign() const { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }

  Quantity& operator+=(const Quantity& other);
  Quantity& operator-=(const Quantity& other);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  // Comparison is by value only: 1k == 1000 == 1e3.
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.nanos_ == b.nanos_; }
  friend std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.nanos_ <=> b.nanos_;
  }

 private:
  Quantity(__int128 nanos, Format format) : nanos_(nanos), format_(format) {}

  __int128 nanos_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace flotilla::api
