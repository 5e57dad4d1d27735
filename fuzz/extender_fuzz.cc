// What a scheduler extender (an HTTP service the operator calls) answers: any body gives a result
// or an error, and a result only ever speaks of clusters that were sent.
#include <algorithm>

#include "fuzz/fuzz_check.h"
#include "scheduler/extender/extender.h"

namespace sched = flotilla::scheduler;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body = flotilla::fuzz::text(data, size);
  const std::vector<std::string> sent = {"member1", "member2", "member3"};
  auto isSent = [&](const std::string& c) {
    return std::find(sent.begin(), sent.end(), c) != sent.end();
  };
  if (auto filtered = sched::parseFilterResponse(body, sent, "fuzz")) {
    for (const auto& c : filtered->passed) FUZZ_CHECK(isSent(c), "filter passed " + c);
    for (const auto& [c, reason] : filtered->failed) FUZZ_CHECK(isSent(c), "filter failed " + c);
  }
  if (auto scores = sched::parsePrioritizeResponse(body, sent, 3)) {
    for (const auto& [c, score] : *scores) {
      FUZZ_CHECK(isSent(c), "prioritize scored " + c);
      FUZZ_CHECK(score >= 0 && score <= 300, "score out of range for " + c);
    }
  }
  return 0;
}
