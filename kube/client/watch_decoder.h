// Turns the bytes of a watch response into events. The server sends one JSON object per event
// (`{"type":"ADDED","object":{...}}`), but the transport splits them arbitrarily: an event may span
// many chunks and one chunk may carry several events, so parsing is incremental.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace flotilla::kube {

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  boost::json::object object;  // for kError: the Status object
};
const char* toString(WatchEvent::Type type);

class WatchDecoder {
 public:
  explicit WatchDecoder(size_t maxEventBytes = size_t{64} << 20);
  ~WatchDecoder();
  WatchDecoder(WatchDecoder&&) noexcept;
  WatchDecoder& operator=(WatchDecoder&&) noexcept;

  // Feeds bytes; returns the events completed by them (possibly none). A malformed event or one
  // larger than the limit is an error; the decoder is unusable afterwards.
  api::Result<std::vector<WatchEvent>> feed(std::string_view bytes);
  // True when bytes of an unfinished event are buffered (a stream ending now was cut short).
  bool midEvent() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The error an ERROR event carries (its Status), e.g. 410 Gone "too old resource version".
api::Error errorFromWatchEvent(const WatchEvent& event);

}  // namespace flotilla::kube
