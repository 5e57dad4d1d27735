// Manifests (what `flotillactl validate/schedule` and the samples read): any bytes give documents
// or an error naming the line, never a crash; a parsed document printed back as YAML parses to
// the same value.
#include <boost/json/serialize.hpp>

#include "api/yaml.h"
#include "fuzz/fuzz_check.h"

namespace api = flotilla::api;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto docs = api::parseManifests(flotilla::fuzz::text(data, size));
  if (!docs) return 0;
  for (const auto& doc : *docs) {
    const std::string printed = api::toYaml(doc.value);
    auto back = api::parseManifests(printed);
    FUZZ_CHECK(back.has_value(), "toYaml output does not parse:\n" + printed +
                                     (back ? "" : "\n" + back.error().message));
    // An empty document (`null`) prints as nothing and is skipped when read back.
    if (doc.value.is_null()) continue;
    FUZZ_CHECK(
        back->size() == 1 && (*back)[0].value == doc.value,
        "YAML round trip changed " + boost::json::serialize(doc.value) + " into:\n" + printed);
  }
  return 0;
}
