// Compact storage for the JSON objects an informer cache holds (docs/performance.md, "Round 2,
// fourth part").
//
// Boost.JSON allocates every object table, key and long string of a tree separately: a cached
// 2 KB ResourceBinding became about 8 KB of heap in ~60 allocations, and parsing and freeing
// those allocations was a large part of the operator's CPU. A JsonArena holds one object's
// tree in one or two blocks: parsing bumps a pointer, freeing the object frees the blocks.
//
// A cached object is read by many threads, and Boost.JSON copies an object into the memory
// resource of its source: once sealed, an arena hands out no more of its blocks and serves
// later allocations (copies that controllers make of a cached object) from the heap, which is
// thread-safe. Only an arena's single owner allocates from it before it is sealed.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <cstddef>
#include <vector>

namespace flotilla::api {

class JsonArena final : public boost::container::pmr::memory_resource {
 public:
  // firstBlock: the bytes expected (jsonArenaBytes); a larger tree gets further blocks.
  explicit JsonArena(std::size_t firstBlock);
  ~JsonArena() override;
  JsonArena(const JsonArena&) = delete;
  JsonArena& operator=(const JsonArena&) = delete;

  // From now on allocations come from the heap: the tree may be shared between threads.
  void seal() noexcept { sealed_ = true; }
  bool sealed() const noexcept { return sealed_; }
  // Bytes handed out from the blocks (with alignment padding), and the blocks' size.
  std::size_t used() const noexcept { return used_; }
  std::size_t reserved() const noexcept;
  std::size_t blocks() const noexcept { return blocks_.size(); }
  // True when more than a quarter of the blocks is unused (or the tree spans blocks): worth a
  // compact copy before the object is kept long.
  bool slack() const noexcept { return blocks_.size() > 1 || reserved() > used_ + used_ / 4; }
  // Forgets every allocation and keeps the first block (a scratch arena reused per copy); the
  // caller has destroyed what it allocated.
  void reset() noexcept;

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override;
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override;
  bool do_is_equal(const memory_resource& other) const noexcept override;

  struct Block {
    char* data;
    std::size_t size;
  };
  std::vector<Block> blocks_;
  std::size_t firstBlock_;
  std::size_t offset_ = 0;  // in the last block
  std::size_t used_ = 0;
  bool sealed_ = false;
};

// The first block for a tree parsed from `textBytes` of JSON: a Boost.JSON tree of a Kubernetes
// object takes about three times its text (measured on ResourceBindings, FederatedDeployments and
// Deployments: 2.86-3.04).
std::size_t jsonArenaBytes(std::size_t textBytes);

// A new arena of that first block, shared by the values made in it.
boost::json::storage_ptr makeJsonArena(std::size_t firstBlock);

// The arena `value`'s tree lives in, or nullptr when it lives elsewhere (the heap).
JsonArena* jsonArenaOf(const boost::json::storage_ptr& storage) noexcept;

// A copy of `object` in a sealed arena of its exact size (measured by a first copy into a
// per-thread scratch arena): for trees that were trimmed after parsing or parsed elsewhere.
boost::json::object compactCopy(const boost::json::object& object);

}  // namespace flotilla::api
