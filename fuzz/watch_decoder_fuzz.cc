// The watch stream decoder sees whatever a member's API server (or something posing as one) sends.
// The input's first byte chooses how the rest is cut into chunks, as a transport would cut it;
// the events decoded must not depend on the cut.
#include "fuzz/fuzz_check.h"
#include "kube/client/watch_decoder.h"

namespace kube = flotilla::kube;

namespace {

// Events (or the error) from feeding `s` in chunks of `chunk` bytes (0: all at once).
std::string decodeAll(std::string_view s, size_t chunk, bool* failed) {
  kube::WatchDecoder decoder(4096);  // a small limit, so the oversized-event path runs too
  std::string out;
  *failed = false;
  const size_t step = chunk == 0 ? std::max<size_t>(s.size(), 1) : chunk;
  for (size_t at = 0; at < s.size(); at += step) {
    auto events = decoder.feed(s.substr(at, step));
    if (!events) {
      *failed = true;
      return out;
    }
    for (const auto& e : *events) {
      out += kube::toString(e.type);
      out += ' ';
      out += std::to_string(e.object.size());
      out += '\n';
      if (e.type == kube::WatchEvent::Type::kError) (void)kube::errorFromWatchEvent(e);
    }
  }
  if (decoder.midEvent()) out += "(cut)\n";
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t chunk = data[0] % 17;
  const std::string_view s = flotilla::fuzz::text(data + 1, size - 1);
  bool failedWhole = false, failedCut = false;
  const std::string whole = decodeAll(s, 0, &failedWhole);
  const std::string cut = decodeAll(s, chunk, &failedCut);
  FUZZ_CHECK(failedWhole == failedCut, "the outcome depends on how the stream was cut");
  if (!failedWhole) FUZZ_CHECK(whole == cut, "events depend on the cut:\n" + whole + "vs\n" + cut);
  return 0;
}
