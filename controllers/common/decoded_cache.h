// Decoded forms of cached objects, decoded once per version of each object.
//
// An informer cache holds JSON; reconcilers decode what they read. Some reads touch every object of
// a kind on every reconcile — the fleet's FederatedClusters for the scheduler, a namespace's
// policies for the federate and binding controllers — and decoding those again each time was a
// large part of the operator's CPU at 100 members. An informer replaces an object's pointer when
// the object changes and keeps it otherwise, so the pointer is the version: a decoded form is
// reused for as long as the cache holds the same pointer.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "api/result.h"
#include "controllers/common/typed.h"
#include "kube/cache/indexer.h"

namespace flotilla::controllers {

template <class T>
class DecodedCache {
 public:
  // The decoded object (shared: callers may keep it past the next change), or the decoding error.
  api::Result<std::shared_ptr<const T>> get(const kube::ObjectPtr& object) {
    std::lock_guard lock(mutex_);
    if (++lookups_ % kSweepEvery == 0) sweepLocked();
    auto it = entries_.find(object.get());
    // The same address is the same object only with the same control block: a freed object's
    // address may have been reused by a new one.
    if (it != entries_.end() && !it->second.object.owner_before(object) &&
        !object.owner_before(it->second.object))
      return it->second.decoded;
    auto decoded = fromObject<T>(*object);
    if (!decoded) return decoded.error();
    auto shared = std::make_shared<const T>(std::move(*decoded));
    entries_.insert_or_assign(object.get(), Entry{object, shared});
    return shared;
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  static constexpr std::size_t kSweepEvery = 1024;
  struct Entry {
    // Weak: the cache must not keep an object alive (several caches may look at the same
    // informer's objects, so "held only by this cache" cannot be told from a count).
    std::weak_ptr<const boost::json::object> object;
    std::shared_ptr<const T> decoded;
  };

  // Drops the entries of objects the informer let go (updated or deleted).
  void sweepLocked() {
    std::erase_if(entries_, [](const auto& e) { return e.second.object.expired(); });
  }

  mutable std::mutex mutex_;
  std::size_t lookups_ = 0;
  std::unordered_map<const boost::json::object*, Entry> entries_;
};

}  // namespace flotilla::controllers
