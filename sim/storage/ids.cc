#include "sim/storage/ids.h"

#include <cstdint>
#include <cstdio>
#include <random>

namespace flotilla::sim {

std::string newUid() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  const uint64_t a = rng();
  const uint64_t b = rng();
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-4%03x-%04x-%012llx", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffff), static_cast<unsigned>(a & 0xfff),
                static_cast<unsigned>(0x8000 | ((b >> 48) & 0x3fff)),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

std::string randomNameSuffix() {
  static constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
  thread_local std::mt19937 rng{std::random_device{}()};
  std::string out;
  for (int i = 0; i < 5; ++i) out += kAlphabet[rng() % (sizeof kAlphabet - 1)];
  return out;
}

}  // namespace flotilla::sim
