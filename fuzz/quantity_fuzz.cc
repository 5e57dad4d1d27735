// Strings a user or a cluster sends as quantities, durations, times, label selectors and base64:
// each parses to a value or an error, and a parsed value prints to a string that parses back to
// the same value (what Flotilla writes, it can read).
#include "api/base64.h"
#include "api/duration.h"
#include "api/label_selector.h"
#include "api/quantity.h"
#include "api/time.h"
#include "fuzz/fuzz_check.h"

namespace api = flotilla::api;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view s = flotilla::fuzz::text(data, size);

  if (auto q = api::Quantity::parse(s)) {
    const std::string printed = q->str();
    auto back = api::Quantity::parse(printed);
    FUZZ_CHECK(back.has_value(), "quantity " + printed + " does not parse back");
    FUZZ_CHECK(*back == *q, "quantity " + printed + " parses back to " + back->str());
    (void)q->value();
    (void)q->milliValue();
    (void)(*q + *q);
    (void)(*q - *back);
  }

  if (auto d = api::parseDuration(s)) {
    const std::string printed = api::formatDuration(*d);
    auto back = api::parseDuration(printed);
    FUZZ_CHECK(back.has_value() && *back == *d, "duration " + printed + " does not parse back");
  }

  if (auto t = api::parseRfc3339(s)) {
    const std::string printed = api::formatRfc3339(*t);
    auto back = api::parseRfc3339(printed);
    FUZZ_CHECK(back.has_value(), "time " + printed + " does not parse back");
    FUZZ_CHECK(api::formatRfc3339(*back) == printed,
               "time " + printed + " changes on a round trip");
  }

  if (auto sel = api::Selector::parse(s)) {
    const std::string printed = sel->str();
    auto back = api::Selector::parse(printed);
    FUZZ_CHECK(back.has_value(), "selector " + printed + " does not parse back");
    FUZZ_CHECK(back->str() == printed, "selector " + printed + " prints as " + back->str());
    const api::Labels labels{{"app", "web"}, {"env", "prod"}, {"tier", ""}};
    FUZZ_CHECK(sel->matches(labels) == back->matches(labels), "selector " + printed);
  }

  if (auto decoded = api::base64Decode(s)) {
    FUZZ_CHECK(api::base64Decode(api::base64Encode(*decoded)) == decoded, "base64");
  }
  return 0;
}
