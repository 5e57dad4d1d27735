#include "sim/storage/store.h"

#include <fcntl.h>
#include <unistd.h>

#include <boost/crc.hpp>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace flotilla::sim {
namespace json = boost::json;

const char* eventTypeName(StoredEvent::Type type) {
  switch (type) {
    case StoredEvent::Type::kAdded:
      return "ADDED";
    case StoredEvent::Type::kModified:
      return "MODIFIED";
    case StoredEvent::Type::kDeleted:
      return "DELETED";
  }
  return "MODIFIED";
}

namespace {

std::string collectionKey(const ObjectKey& key) { return key.namespace_ + "/" + key.name; }

api::Error ioError(const std::string& what) {
  return api::Error{api::reason::kInternalError, 500, what + ": " + std::strerror(errno), {}};
}

uint32_t crc32(std::string_view data) {
  boost::crc_32_type crc;
  crc.process_bytes(data.data(), data.size());
  return crc.checksum();
}

std::string hex8(uint32_t v) {
  char buf[9];
  std::snprintf(buf, sizeof buf, "%08x", v);
  return buf;
}

// One log line: "<crc32 of json, 8 hex> <json>\n".
std::string logLine(const json::object& record) {
  std::string body = json::serialize(record);
  return hex8(crc32(body)) + " " + body + "\n";
}

void setVersion(json::object& object, int64_t version) {
  auto& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object{};
  meta.as_object()["resourceVersion"] = std::to_string(version);
}

bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool syncDirectory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return false;
  const bool ok = ::fsync(fd) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

Store::Store(StoreOptions options) : options_(std::move(options)) {}

Store::~Store() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  commitWake_.notify_all();
  if (commitThread_.joinable()) commitThread_.join();
  if (logFd_ >= 0) ::close(logFd_);
}

api::Result<std::unique_ptr<Store>> Store::open(StoreOptions options) {
  std::unique_ptr<Store> store(new Store(std::move(options)));
  if (!store->options_.dataDir.empty()) {
    auto loaded = store->load();
    if (!loaded) return loaded.error();
    store->commitThread_ = std::thread([s = store.get()] { s->commitLoop(); });
  }
  return store;
}

api::Result<void> Store::load() {
  std::error_code ec;
  std::filesystem::create_directories(options_.dataDir, ec);
  if (ec)
    return api::Error{api::reason::kInternalError,
                      500,
                      "data directory " + options_.dataDir.string() + ": " + ec.message(),
                      {}};
  auto apply = [this](const json::object& record) -> bool {
    const auto* op = record.if_contains("op");
    const auto* resource = record.if_contains("r");
    const auto* key = record.if_contains("k");
    const auto* version = record.if_contains("v");
    if (!op || !resource || !key || !version || !op->is_string() || !resource->is_string() ||
        !key->is_string() || !version->is_int64())
      return false;
    auto& collection = collections_[std::string(resource->as_string())];
    const std::string k(key->as_string());
    if (op->as_string() == "put") {
      const auto* object = record.if_contains("o");
      if (!object || !object->is_object()) return false;
      collection[k] =
          Entry{std::make_shared<const json::object>(object->as_object()), version->as_int64()};
    } else {
      collection.erase(k);
    }
    version_ = std::max(version_, version->as_int64());
    return true;
  };

  const auto snapshotPath = options_.dataDir / "snapshot.json";
  if (std::filesystem::exists(snapshotPath)) {
    std::ifstream in(snapshotPath, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    boost::system::error_code jec;
    json::value snapshot = json::parse(text.str(), jec);
    if (jec || !snapshot.is_object() || !snapshot.as_object().contains("records"))
      return api::Error{api::reason::kInternalError,
                        500,
                        "snapshot " + snapshotPath.string() + " is corrupt",
                        {}};
    for (const auto& record : snapshot.at("records").as_array()) {
      if (!record.is_object() || !apply(record.as_object()))
        return api::Error{api::reason::kInternalError,
                          500,
                          "snapshot " + snapshotPath.string() + " has an invalid record",
                          {}};
    }
    if (const auto* v = snapshot.as_object().if_contains("resourceVersion"); v && v->is_int64())
      version_ = std::max(version_, v->as_int64());
  }

  const auto logPath = options_.dataDir / "wal.log";
  std::string log;
  {
    std::ifstream in(logPath, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    log = text.str();
  }
  size_t offset = 0;
  size_t valid = 0;
  while (offset < log.size()) {
    const size_t end = log.find('\n', offset);
    const bool last = end == std::string::npos || end + 1 == log.size();
    std::string_view line(log.data() + offset,
                          (end == std::string::npos ? log.size() : end) - offset);
    bool ok = end != std::string::npos && line.size() > 9 && line[8] == ' ';
    json::value record;
    if (ok) {
      const std::string_view body = line.substr(9);
      ok = hex8(crc32(body)) == line.substr(0, 8);
      boost::system::error_code jec;
      if (ok) record = json::parse(body, jec);
      ok = ok && !jec && record.is_object() && apply(record.as_object());
    }
    if (!ok) {
      // A torn tail is a write that was never acknowledged; anything before it is corruption.
      if (!last)
        return api::Error{
            api::reason::kInternalError,
            500,
            "write-ahead log " + logPath.string() + " is corrupt at byte " + std::to_string(offset),
            {}};
      break;
    }
    offset = end + 1;
    valid = offset;
  }
  logFd_ = ::open(logPath.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (logFd_ < 0) return ioError("opening " + logPath.string());
  if (::ftruncate(logFd_, static_cast<off_t>(valid)) != 0 ||
      ::lseek(logFd_, static_cast<off_t>(valid), SEEK_SET) < 0)
    return ioError("truncating " + logPath.string());
  logBytes_ = valid;
  // Version numbers survive restarts: the next write continues after the highest seen.
  return {};
}

void Store::setWriteObserver(std::function<void(const std::string& resource)> observer) {
  std::lock_guard lock(mutex_);
  writeObserver_ = std::move(observer);
}

uint64_t Store::appendLocked(StoredEvent::Type type, const ObjectKey& key,
                             const json::object& object, int64_t version) {
  if (writeObserver_) writeObserver_(key.resource);
  auto event = std::make_shared<StoredEvent>();
  event->type = type;
  event->resourceVersion = version;
  event->resource = key.resource;
  event->namespace_ = key.namespace_;
  event->object = object;
  event->objectJson = json::serialize(object);
  if (options_.dataDir.empty()) {
    publishLocked(std::move(event));
    return 0;
  }
  json::object record{{"op", type == StoredEvent::Type::kDeleted ? "del" : "put"},
                      {"r", key.resource},
                      {"k", collectionKey(key)},
                      {"v", version}};
  if (type != StoredEvent::Type::kDeleted) record["o"] = object;
  pendingLog_ += logLine(record);
  pendingEvents_.push_back(std::move(event));
  ++appendedSeq_;
  commitWake_.notify_one();
  return appendedSeq_;
}

void Store::publishLocked(EventPtr event) {
  window_.push_back(event);
  while (window_.size() > options_.eventWindow) window_.pop_front();
  for (auto& [id, subscription] : sinks_) {
    if (event->resourceVersion > subscription.after) subscription.sink->deliver(event);
  }
}

void Store::commitLoop() {
  std::unique_lock lock(mutex_);
  while (true) {
    commitWake_.wait(lock, [&] { return stopping_ || !pendingLog_.empty(); });
    if (pendingLog_.empty() && stopping_) break;
    std::string batch = std::move(pendingLog_);
    pendingLog_.clear();
    std::vector<EventPtr> events = std::move(pendingEvents_);
    pendingEvents_.clear();
    const uint64_t seq = appendedSeq_;
    lock.unlock();
    // One write and one fdatasync for every record that arrived meanwhile (group commit).
    bool ok = writeAll(logFd_, batch) && ::fdatasync(logFd_) == 0;
    const std::string error = ok ? "" : std::string("write-ahead log: ") + std::strerror(errno);
    lock.lock();
    ++fsyncs_;
    if (!ok) {
      diskError_ = error;  // later writes fail; these waiters are released (their write failed)
    } else {
      logBytes_ += batch.size();
      for (auto& e : events) publishLocked(std::move(e));
    }
    durableSeq_ = seq;
    auto last = durableWaiters_.upper_bound(seq);
    std::vector<std::function<void()>> ready;
    for (auto it = durableWaiters_.begin(); it != last; ++it)
      ready.push_back(std::move(it->second));
    durableWaiters_.erase(durableWaiters_.begin(), last);
    if (ok && logBytes_ > options_.compactAfterBytes) {
      if (auto compacted = compactLocked(); !compacted) diskError_ = compacted.error().message;
    }
    lock.unlock();
    for (auto& done : ready) done();
    lock.lock();
    // flush() returns only once the callbacks of everything it waited for have run.
    releasedSeq_ = seq;
    durableWake_.notify_all();
  }
}

api::Result<void> Store::compactLocked() {
  // The snapshot may include writes still in pendingLog_; replaying them again later is harmless
  // because log records are idempotent (put = set, del = erase).
  json::array records;
  for (const auto& [resource, collection] : collections_) {
    for (const auto& [key, entry] : collection) {
      records.push_back(json::object{
          {"op", "put"}, {"r", resource}, {"k", key}, {"v", entry.version}, {"o", *entry.object}});
    }
  }
  const std::string text =
      json::serialize(json::object{{"resourceVersion", version_}, {"records", std::move(records)}});
  const auto tmp = options_.dataDir / "snapshot.json.tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return ioError("writing snapshot");
  const bool ok = writeAll(fd, text) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return ioError("writing snapshot");
  std::error_code ec;
  std::filesystem::rename(tmp, options_.dataDir / "snapshot.json", ec);
  if (ec || !syncDirectory(options_.dataDir)) return ioError("installing snapshot");
  if (::ftruncate(logFd_, 0) != 0 || ::lseek(logFd_, 0, SEEK_SET) < 0 || ::fdatasync(logFd_) != 0)
    return ioError("truncating the write-ahead log");
  logBytes_ = 0;
  return {};
}

api::Result<json::object> Store::get(const ObjectKey& key) const {
  std::lock_guard lock(mutex_);
  auto c = collections_.find(key.resource);
  if (c != collections_.end()) {
    auto it = c->second.find(collectionKey(key));
    if (it != c->second.end()) return *it->second.object;
  }
  return api::Error{api::reason::kNotFound, 404, "not found", {}};
}

std::shared_ptr<const json::object> Store::getShared(const ObjectKey& key) const {
  std::lock_guard lock(mutex_);
  auto c = collections_.find(key.resource);
  if (c == collections_.end()) return nullptr;
  auto it = c->second.find(collectionKey(key));
  return it == c->second.end() ? nullptr : it->second.object;
}

namespace {

// The entries of one namespace (keys "namespace/name"), or all of them for "".
template <class Collection>
std::pair<typename Collection::const_iterator, typename Collection::const_iterator> namespaceRange(
    const Collection& collection, const std::string& namespace_) {
  if (namespace_.empty()) return {collection.begin(), collection.end()};
  return {collection.lower_bound(namespace_ + "/"),
          collection.lower_bound(namespace_ + "0")};  // '0' follows '/'
}

}  // namespace

Store::Listed Store::list(const std::string& resource, const std::string& namespace_,
                          const std::function<bool(const json::object&)>& filter) const {
  std::lock_guard lock(mutex_);
  Listed out;
  out.resourceVersion = version_;
  auto c = collections_.find(resource);
  if (c == collections_.end()) return out;
  auto [begin, end] = namespaceRange(c->second, namespace_);
  for (auto it = begin; it != end; ++it) {
    if (!filter || filter(*it->second.object)) out.items.push_back(*it->second.object);
  }
  return out;
}

std::vector<std::shared_ptr<const json::object>> Store::listShared(
    const std::string& resource, const std::string& namespace_) const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<const json::object>> out;
  auto c = collections_.find(resource);
  if (c == collections_.end()) return out;
  auto [begin, end] = namespaceRange(c->second, namespace_);
  out.reserve(static_cast<size_t>(std::distance(begin, end)));
  for (auto it = begin; it != end; ++it) out.push_back(it->second.object);
  return out;
}

Store::Page Store::listPage(const std::string& resource, const std::string& namespace_,
                            const std::function<bool(const json::object&)>& filter,
                            const std::string& afterKey, size_t limit) const {
  std::lock_guard lock(mutex_);
  Page out;
  out.resourceVersion = version_;
  auto c = collections_.find(resource);
  if (c == collections_.end()) return out;
  auto [begin, end] = namespaceRange(c->second, namespace_);
  if (!afterKey.empty()) {  // only ever move forward, and never past `end`
    auto after = c->second.upper_bound(afterKey);
    if (begin != c->second.end() && (after == c->second.end() || after->first > begin->first))
      begin = after;
    if (begin == c->second.end() || (end != c->second.end() && begin->first >= end->first))
      begin = end;
  }
  for (auto it = begin; it != end; ++it) {
    if (filter && !filter(*it->second.object)) continue;
    if (limit == 0 || out.items.size() < limit) {
      out.items.push_back(*it->second.object);
      out.lastKey = it->first;
    } else {
      ++out.remaining;
    }
  }
  return out;
}

api::Result<Store::Written> Store::create(const ObjectKey& key, json::object object) {
  std::lock_guard lock(mutex_);
  if (!diskError_.empty()) return api::Error{api::reason::kInternalError, 500, diskError_, {}};
  auto& collection = collections_[key.resource];
  const std::string k = collectionKey(key);
  if (collection.count(k))
    return api::Error{api::reason::kAlreadyExists, 409, "already exists", {}};
  const int64_t version = ++version_;
  setVersion(object, version);
  const uint64_t seq = appendLocked(StoredEvent::Type::kAdded, key, object, version);
  collection[k] = Entry{std::make_shared<const json::object>(object), version};
  return Written{std::move(object), seq};
}

api::Result<std::pair<Store::Collection*, Store::Collection::iterator>> Store::findForWriteLocked(
    const ObjectKey& key, std::optional<int64_t> expectedVersion) {
  if (!diskError_.empty()) return api::Error{api::reason::kInternalError, 500, diskError_, {}};
  auto& collection = collections_[key.resource];
  auto it = collection.find(collectionKey(key));
  if (it == collection.end()) return api::Error{api::reason::kNotFound, 404, "not found", {}};
  if (expectedVersion && *expectedVersion != it->second.version)
    return api::Error{api::reason::kConflict,
                      409,
                      "the object has been modified; please apply your changes to the latest "
                      "version and try again",
                      {}};
  return std::pair<Collection*, Collection::iterator>{&collection, it};
}

api::Result<Store::Written> Store::update(const ObjectKey& key, json::object object,
                                          std::optional<int64_t> expectedVersion) {
  std::lock_guard lock(mutex_);
  auto found = findForWriteLocked(key, expectedVersion);
  if (!found) return found.error();
  auto& [collection, it] = *found;
  const int64_t version = ++version_;
  setVersion(object, version);
  const uint64_t seq = appendLocked(StoredEvent::Type::kModified, key, object, version);
  it->second = Entry{std::make_shared<const json::object>(object), version};
  return Written{std::move(object), seq};
}

api::Result<Store::Written> Store::remove(const ObjectKey& key,
                                          std::optional<int64_t> expectedVersion) {
  std::lock_guard lock(mutex_);
  auto found = findForWriteLocked(key, expectedVersion);
  if (!found) return found.error();
  auto& [collection, it] = *found;
  // A deletion has its own version: watchers see the DELETED event at it (as etcd does).
  const int64_t version = ++version_;
  json::object last = *it->second.object;
  setVersion(last, version);
  collection->erase(it);
  const uint64_t seq = appendLocked(StoredEvent::Type::kDeleted, key, last, version);
  return Written{std::move(last), seq};
}

api::Result<uint64_t> Store::removeAll(const std::string& resource) {
  std::lock_guard lock(mutex_);
  if (!diskError_.empty()) return api::Error{api::reason::kInternalError, 500, diskError_, {}};
  auto c = collections_.find(resource);
  uint64_t seq = 0;
  if (c == collections_.end()) return seq;
  for (auto& [k, entry] : c->second) {
    const int64_t version = ++version_;
    json::object last = *entry.object;
    setVersion(last, version);
    const size_t slash = k.find('/');
    ObjectKey key{resource, k.substr(0, slash), k.substr(slash + 1)};
    seq = appendLocked(StoredEvent::Type::kDeleted, key, last, version);
  }
  collections_.erase(c);
  return seq;
}

void Store::onDurable(uint64_t commitSeq, std::function<void()> done) {
  {
    std::lock_guard lock(mutex_);
    if (commitSeq > durableSeq_ && !options_.dataDir.empty()) {
      durableWaiters_.emplace(commitSeq, std::move(done));
      return;
    }
  }
  done();
}

void Store::flush() {
  std::unique_lock lock(mutex_);
  const uint64_t target = appendedSeq_;
  durableWake_.wait(lock, [&] { return releasedSeq_ >= target || options_.dataDir.empty(); });
}

int64_t Store::resourceVersion() const {
  std::lock_guard lock(mutex_);
  return version_;
}

api::Result<uint64_t> Store::subscribe(int64_t fromVersion, std::shared_ptr<EventSink> sink) {
  std::lock_guard lock(mutex_);
  if (fromVersion > 0) {
    // Resuming needs every event after fromVersion: the window must reach back that far.
    const int64_t oldest = window_.empty() ? version_ + 1 : window_.front()->resourceVersion;
    if (fromVersion + 1 < oldest && fromVersion < version_)
      return api::Error{api::reason::kGone,
                        410,
                        "too old resource version: " + std::to_string(fromVersion) + " (" +
                            std::to_string(oldest - 1) + ")",
                        {}};
    for (const auto& event : window_) {
      if (event->resourceVersion > fromVersion) sink->deliver(event);
    }
  }
  const uint64_t id = nextSink_++;
  sinks_.emplace(id, Subscription{std::move(sink), fromVersion});
  return id;
}

void Store::unsubscribe(uint64_t id) {
  std::lock_guard lock(mutex_);
  sinks_.erase(id);
}

uint64_t Store::fsyncs() const {
  std::lock_guard lock(mutex_);
  return fsyncs_;
}

size_t Store::objectCount() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& [resource, c] : collections_) n += c.size();
  return n;
}

}  // namespace flotilla::sim
