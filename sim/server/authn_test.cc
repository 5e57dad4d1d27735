#include "sim/server/authn.h"

#include <gtest/gtest.h>

namespace flotilla::sim {
namespace {

using namespace std::chrono_literals;

TEST(TokenFile, ParsesUsersUidsAndGroups) {
  auto entries = parseTokenFile(
      "t1,alice,uid-1,\"dev,ops\"\n"
      "\n"
      "t2, bob ,uid-2\r\n"
      "t3,carol,uid-3,single\n"
      ",nobody,uid-4\n"
      "t2,bob2,uid-5\n",
      "/etc/tokens.csv");
  ASSERT_TRUE(entries) << entries.error().message;
  ASSERT_EQ(entries->size(), 3u);
  EXPECT_EQ((*entries)[0].token, "t1");
  EXPECT_EQ((*entries)[0].user.name, "alice");
  EXPECT_EQ((*entries)[0].user.uid, "uid-1");
  EXPECT_EQ((*entries)[0].user.groups, (std::vector<std::string>{"dev", "ops"}));
  EXPECT_EQ((*entries)[1].user.name, "carol");
  EXPECT_EQ((*entries)[1].user.groups, std::vector<std::string>{"single"});
  EXPECT_EQ((*entries)[2].user.name, "bob2");  // a repeated token: the last line wins
  EXPECT_TRUE((*entries)[2].user.groups.empty());
}

TEST(TokenFile, MalformedLinesAreClearErrors) {
  auto few = parseTokenFile("t1,alice,uid\nt2,bob\n", "tokens.csv");
  ASSERT_FALSE(few);
  EXPECT_EQ(few.error().message,
            "token file 'tokens.csv' line 2: must have at least 3 columns (token, user name, user "
            "uid), found 2");
  auto quote = parseTokenFile("t1,alice,uid,\"a,b\n", "tokens.csv");
  ASSERT_FALSE(quote);
  EXPECT_EQ(quote.error().message, "token file 'tokens.csv' line 1: unterminated quote");
}

ServiceAccountToken claims(api::Clock::time_point now) {
  ServiceAccountToken c;
  c.ns = "flotilla-system";
  c.name = "flotilla-operator";
  c.uid = "1234";
  c.audiences = {std::string(kApiAudience)};
  c.issuedAt = now;
  c.expiresAt = now + 1h;
  return c;
}

TEST(ServiceAccountTokens, SignedTokensVerifyUntilTheyExpire) {
  const auto now = api::Clock::time_point(std::chrono::seconds(1'800'000'000));
  const std::string key = newSigningKey();
  EXPECT_EQ(key.size(), 64u);
  const std::string token = signServiceAccountToken(key, claims(now));
  EXPECT_TRUE(looksLikeJwt(token));
  auto verified = verifyServiceAccountToken(key, token, now + 10min);
  ASSERT_TRUE(verified) << verified.error().message;
  EXPECT_EQ(verified->ns, "flotilla-system");
  EXPECT_EQ(verified->name, "flotilla-operator");
  EXPECT_EQ(verified->uid, "1234");
  EXPECT_EQ(verified->audiences, std::vector<std::string>{std::string(kApiAudience)});
  EXPECT_EQ(verified->expiresAt, now + 1h);

  auto expired = verifyServiceAccountToken(key, token, now + 1h);
  ASSERT_FALSE(expired);
  EXPECT_EQ(expired.error().message, "token has expired");
  EXPECT_FALSE(verifyServiceAccountToken(newSigningKey(), token, now));  // another sim's key
  std::string tampered = token;
  tampered[tampered.find('.') + 5] ^= 1;  // the payload
  EXPECT_FALSE(verifyServiceAccountToken(key, tampered, now));
  EXPECT_FALSE(verifyServiceAccountToken(key, "not-a-jwt", now));
  EXPECT_FALSE(looksLikeJwt("0123456789abcdef"));
}

TEST(ServiceAccountTokens, UserAndGroups) {
  const auto user = serviceAccountUser("flotilla-system", "op", "u1");
  EXPECT_EQ(user.name, "system:serviceaccount:flotilla-system:op");
  EXPECT_EQ(user.uid, "u1");
  EXPECT_EQ(user.groups, (std::vector<std::string>{"system:serviceaccounts",
                                                   "system:serviceaccounts:flotilla-system",
                                                   "system:authenticated"}));
}

}  // namespace
}  // namespace flotilla::sim
