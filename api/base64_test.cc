#include "api/base64.h"

#include <gtest/gtest.h>

namespace flotilla::api {
namespace {

TEST(Base64, RoundTripsRfc4648Vectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64Encode(plain), encoded);
    EXPECT_EQ(base64Decode(encoded), std::string(plain));
  }
  const std::string binary("\x00\xff\x10\x80", 4);
  EXPECT_EQ(base64Decode(base64Encode(binary)), binary);
}

TEST(Base64, RejectsNonCanonicalInput) {
  for (const char* bad : {"Zg", "Zg=", "Z===", "Zm9v!A==", "Zg==Zg==", "Z=g="})
    EXPECT_FALSE(base64Decode(bad)) << bad;
}

}  // namespace
}  // namespace flotilla::api
