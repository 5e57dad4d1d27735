#include "kube/client/watch_decoder.h"

#include <boost/json.hpp>

#include "api/json_arena.h"
#include "api/json_codec.h"
#include "kube/client/status_error.h"

namespace flotilla::kube {
namespace json = boost::json;

const char* toString(WatchEvent::Type type) {
  switch (type) {
    case WatchEvent::Type::kAdded:
      return "ADDED";
    case WatchEvent::Type::kModified:
      return "MODIFIED";
    case WatchEvent::Type::kDeleted:
      return "DELETED";
    case WatchEvent::Type::kBookmark:
      return "BOOKMARK";
    case WatchEvent::Type::kError:
      return "ERROR";
  }
  return "?";
}

static json::parse_options deepOptions() {
  json::parse_options options;
  options.max_depth = api::kMaxJsonDepth;
  return options;
}

struct WatchDecoder::Impl {
  json::stream_parser parser{{}, deepOptions()};
  size_t maxEventBytes;
  size_t pendingBytes = 0;          // consumed bytes of the event being parsed
  bool started = false;             // a non-whitespace byte of the current event was seen
  api::JsonArena* arena = nullptr;  // the current event's (json_arena.h)
  bool failed = false;
};

WatchDecoder::WatchDecoder(size_t maxEventBytes) : impl_(std::make_unique<Impl>()) {
  impl_->maxEventBytes = maxEventBytes;
}
WatchDecoder::~WatchDecoder() = default;
WatchDecoder::WatchDecoder(WatchDecoder&&) noexcept = default;
WatchDecoder& WatchDecoder::operator=(WatchDecoder&&) noexcept = default;

bool WatchDecoder::midEvent() const { return impl_->started; }

namespace {

api::Error decodeError(std::string message) {
  return api::Error{api::reason::kInternalError, 0, "watch stream: " + std::move(message), {}};
}

api::Result<WatchEvent> toEvent(json::value value) {
  if (!value.is_object()) return decodeError("an event is not a JSON object");
  auto& o = value.as_object();
  const auto* type = o.if_contains("type");
  auto* object = o.if_contains("object");
  if (!type || !type->is_string() || !object || !object->is_object())
    return decodeError("an event lacks type or object");
  static const std::pair<const char*, WatchEvent::Type> kTypes[] = {
      {"ADDED", WatchEvent::Type::kAdded},
      {"MODIFIED", WatchEvent::Type::kModified},
      {"DELETED", WatchEvent::Type::kDeleted},
      {"BOOKMARK", WatchEvent::Type::kBookmark},
      {"ERROR", WatchEvent::Type::kError}};
  for (const auto& [name, t] : kTypes) {
    if (type->as_string() == name) return WatchEvent{t, std::move(object->as_object())};
  }
  return decodeError("unknown event type " + std::string(type->as_string()));
}

bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace

api::Result<std::vector<WatchEvent>> WatchDecoder::feed(std::string_view bytes) {
  Impl& s = *impl_;
  if (s.failed) return decodeError("decoder used after an error");
  std::vector<WatchEvent> events;
  while (!bytes.empty()) {
    if (!s.started) {  // skip separators between events without starting a parse
      size_t skip = 0;
      while (skip < bytes.size() && isSpace(bytes[skip])) ++skip;
      bytes.remove_prefix(skip);
      if (bytes.empty()) break;
      s.started = true;
      // Each event's tree in an arena of its own, of about its size: the server ends an event
      // with a newline, usually within this chunk; otherwise the chunk is the estimate and the
      // arena grows (docs/performance.md, "Round 2, fourth part").
      const size_t end = bytes.find('\n');
      auto arena = api::makeJsonArena(
          api::jsonArenaBytes(end == std::string_view::npos ? bytes.size() : end));
      s.arena = api::jsonArenaOf(arena);
      s.parser.reset(std::move(arena));
    }
    boost::system::error_code ec;
    const size_t used = s.parser.write_some(bytes.data(), bytes.size(), ec);
    if (ec) {
      s.failed = true;
      return decodeError("malformed JSON: " + ec.message());
    }
    s.pendingBytes += used;
    bytes.remove_prefix(used);
    if (s.pendingBytes > s.maxEventBytes) {
      s.failed = true;
      return decodeError("an event is larger than " + std::to_string(s.maxEventBytes) + " bytes");
    }
    if (!s.parser.done()) continue;  // all bytes consumed; the event continues in a later chunk
    json::value released = s.parser.release();
    // Sealed before anyone else sees the tree: copies of it then come from the heap. (Here,
    // while `released` keeps the arena alive: a malformed event's tree dies in toEvent.)
    if (s.arena) s.arena->seal();
    s.arena = nullptr;
    auto event = toEvent(std::move(released));
    s.parser.reset();
    s.pendingBytes = 0;
    s.started = false;
    if (!event) {
      s.failed = true;
      return event.error();
    }
    events.push_back(std::move(*event));
  }
  return events;
}

api::Error errorFromWatchEvent(const WatchEvent& event) {
  net::HttpResponse response;
  const auto* code = event.object.if_contains("code");
  response.status = code && code->is_int64() ? static_cast<int>(code->as_int64()) : 500;
  response.body = json::serialize(event.object);
  return errorFromResponse(response);
}

}  // namespace flotilla::kube
