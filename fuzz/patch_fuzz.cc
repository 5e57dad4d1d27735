// The three PATCH formats flotilla-sim serves (and the sync controller applies for overrides):
// the input is a target document and a patch separated by a blank line; any pair gives a patched
// document or an error, never a crash.
#include "api/json_codec.h"
#include "api/patch.h"
#include "fuzz/fuzz_check.h"

namespace api = flotilla::api;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto [targetText, patchText] =
      flotilla::fuzz::split(flotilla::fuzz::text(data, size), "\n\n");
  auto target = api::parseJson(targetText);
  auto patch = api::parseJson(patchText);
  if (!target || !patch) return 0;
  (void)api::applyMergePatch(*target, *patch);
  (void)api::applyJsonPatch(*target, *patch);
  (void)api::applyStrategicMergePatch(*target, *patch);
  // A merge patch is idempotent (RFC 7386): applying it twice changes nothing more.
  if (auto once = api::applyMergePatch(*target, *patch)) {
    auto twice = api::applyMergePatch(*once, *patch);
    FUZZ_CHECK(twice.has_value() && *twice == *once, "a merge patch is not idempotent");
  }
  return 0;
}
