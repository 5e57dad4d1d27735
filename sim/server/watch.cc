// Watch: a chunked stream of {"type","object"} events per line, from a resourceVersion, with
// bookmarks, Table objects for kubectl get -w, 410 Gone as an ERROR event, and an end after
// timeoutSeconds. Each watch has its own queue, so a slow client never blocks the store or other
// watchers; a client too slow to keep up with 10,000 queued events is told to relist (410).
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/json.hpp>
#include <deque>
#include <mutex>

#include "sim/server/faults.h"
#include "sim/server/internal.h"
#include "sim/server/status.h"

namespace flotilla::sim {
namespace asio = boost::asio;
namespace json = boost::json;
using namespace internal;

namespace {

constexpr size_t kMaxQueued = 10'000;

class WatchSink final : public EventSink {
 public:
  WatchSink(std::string resource, std::string namespace_, std::shared_ptr<asio::steady_timer> wake)
      : resource_(std::move(resource)), namespace_(std::move(namespace_)), wake_(std::move(wake)) {}

  void deliver(const EventPtr& event) override {
    if (event->resource != resource_) return;
    if (!namespace_.empty() && event->namespace_ != namespace_) return;
    {
      std::lock_guard lock(mutex_);
      if (queue_.size() >= kMaxQueued) {
        overflow_ = true;
      } else {
        queue_.push_back(event);
      }
    }
    auto wake = wake_;
    asio::post(wake->get_executor(), [wake] { wake->cancel(); });
  }

  bool pending() {
    std::lock_guard lock(mutex_);
    return !queue_.empty() || overflow_;
  }

  std::deque<EventPtr> take(bool& overflow) {
    std::lock_guard lock(mutex_);
    overflow = overflow_;
    return std::exchange(queue_, {});
  }

 private:
  std::string resource_;
  std::string namespace_;
  std::shared_ptr<asio::steady_timer> wake_;
  std::mutex mutex_;
  std::deque<EventPtr> queue_;
  bool overflow_ = false;
};

std::string eventLine(const char* type, const json::value& object) {
  return json::serialize(json::object{{"type", type}, {"object", object}}) + "\n";
}

}  // namespace

asio::awaitable<void> ApiServer::serveWatch(net::HttpExchange& ex, Request& req) {
  const auto& r = *req.resource;
  auto filter = parseFilter(req.query, &r);
  if (!filter) {
    {
      auto reply = errorReply(filter.error(), &r);
      co_await ex.respond(std::move(reply));
    }
    co_return;
  }
  const std::string rvParam = req.param("resourceVersion");
  std::optional<int64_t> from;
  if (!rvParam.empty()) {
    from = parseVersion(rvParam);
    if (!from) {
      {
        auto reply = errorReply(badRequest("invalid resourceVersion \"" + rvParam + "\""), &r);
        co_await ex.respond(std::move(reply));
      }
      co_return;
    }
  }
  const bool bookmarks = queryFlag(req.query, "allowWatchBookmarks");
  const std::string ns = r.namespaced ? req.path.namespace_ : "";
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (auto timeout = parseVersion(req.param("timeoutSeconds")); timeout && *timeout > 0)
    deadline = start + std::chrono::seconds(*timeout);

  auto wake = std::make_shared<asio::steady_timer>(ex.executor());
  auto sink = std::make_shared<WatchSink>(r.storageKey(), ns, wake);
  // Without a version (or "0"): the current state as ADDED events first, then changes after it.
  std::vector<json::object> initial;
  int64_t after = from.value_or(0);
  if (!from || *from == 0) {
    auto listed =
        store_.list(r.storageKey(), ns, [&](const json::object& o) { return filter->matches(o); });
    initial = std::move(listed.items);
    after = listed.resourceVersion;
  }
  auto subscription = store_.subscribe(after, sink);

  net::Headers headers = {{"Content-Type", "application/json"},
                          {"Cache-Control", "no-cache, private"}};
  if (!co_await ex.startStream(200, std::move(headers))) co_return;
  bool headersSent = false;
  auto encode = [&](const json::object& object) -> json::value {
    if (!req.wantsTable) return servedAs(object, r);
    json::object table = makeTable(r, {servedAs(object, r)}, options_.now(), req.include,
                                   !headersSent, metaString(object, "resourceVersion"));
    headersSent = true;
    return table;
  };
  if (!subscription) {
    // As kube-apiserver does: 200, then one ERROR event carrying the 410 Status.
    api::Error gone = subscription.error();
    gone.reason = "Expired";
    std::string line = eventLine("ERROR", statusBody(gone));
    co_await ex.writeChunk(std::move(line));
    co_await ex.endStream();
    co_return;
  }
  const uint64_t subscriptionId = *subscription;
  int64_t lastVersion = after;
  bool open = true;
  // Fault injection: the stream may be cut after any event, without its last chunk, as a
  // dropped connection or a proxy's reset cuts it.
  bool cut = false;
  auto cutHere = [&] {
    cut = req.watchCut > 0 && options_.faults->cutWatch(req.watchCut);
    if (cut) ex.abandon();
    return cut;
  };
  for (const auto& object : initial) {
    std::string line = eventLine("ADDED", encode(object));
    if (!(open = co_await ex.writeChunk(std::move(line)))) break;
    if (cutHere()) break;
  }
  auto nextBookmark = std::chrono::steady_clock::now() + options_.bookmarkInterval;
  while (open) {
    bool overflow = false;
    for (const auto& event : sink->take(overflow)) {
      lastVersion = std::max(lastVersion, event->resourceVersion);
      if (!filter->matches(event->object)) continue;
      std::string line;
      if (!req.wantsTable && event->object.contains("apiVersion") &&
          event->object.at("apiVersion") == r.groupVersion().c_str()) {
        line = std::string("{\"type\":\"") + eventTypeName(event->type) +
               "\",\"object\":" + event->objectJson +
               "}\n";  // the common case: no re-serialization per watcher
      } else {
        line = eventLine(eventTypeName(event->type), encode(event->object));
      }
      if (!(open = co_await ex.writeChunk(std::move(line)))) break;
      if (cutHere()) break;
    }
    if (!open || cut) break;
    if (overflow) {
      api::Error slow{"Expired", 410, "the watch fell too far behind; relist and watch again", {}};
      std::string line = eventLine("ERROR", statusBody(slow));
      co_await ex.writeChunk(std::move(line));
      break;
    }
    const auto now = std::chrono::steady_clock::now();
    if (deadline && now >= *deadline) break;
    if (now >= nextBookmark) {
      if (bookmarks) {
        json::object bookmark{
            {"kind", r.kind},
            {"apiVersion", r.groupVersion()},
            {"metadata", json::object{{"resourceVersion", std::to_string(lastVersion)}}}};
        std::string line = eventLine("BOOKMARK", bookmark);
        if (!(open = co_await ex.writeChunk(std::move(line)))) break;
      }
      if (ex.clientGone()) break;
      nextBookmark = now + options_.bookmarkInterval;
    }
    // Events queued while we were writing: their wake-ups found no wait to cancel.
    if (sink->pending()) continue;
    auto wakeAt = nextBookmark;
    if (deadline) wakeAt = std::min(wakeAt, *deadline);
    wake->expires_at(wakeAt);
    // From here to the wait nothing suspends, and deliver() posts its cancel to this strand: an
    // event arriving now cancels the wait below.
    auto [ec] = co_await wake->async_wait(asio::as_tuple(asio::use_awaitable));
    (void)ec;
  }
  store_.unsubscribe(subscriptionId);
  if (open && !cut) co_await ex.endStream();
}

}  // namespace flotilla::sim
