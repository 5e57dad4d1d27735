#include "api/json_arena.h"

#include <algorithm>
#include <new>
#include <typeinfo>

namespace flotilla::api {
namespace json = boost::json;

namespace {
constexpr std::size_t kAlign = alignof(std::max_align_t);
constexpr std::size_t kMinBlock = 64;
// make_shared_resource keeps the arena as a private member of Boost.JSON's reference-counted
// wrapper, which forwards allocate() to it: an allocation of 0 bytes at this alignment (no real
// request asks for it) answers with the arena itself, once the wrapper's type says it is one.
constexpr std::size_t kIdentify = std::size_t{1} << 40;

std::size_t roundUp(std::size_t n, std::size_t align) { return (n + align - 1) & ~(align - 1); }
}  // namespace

JsonArena::JsonArena(std::size_t firstBlock)
    : firstBlock_(roundUp(std::max(firstBlock, kMinBlock), kAlign)) {}

JsonArena::~JsonArena() {
  for (const auto& b : blocks_) ::operator delete(b.data);
}

std::size_t JsonArena::reserved() const noexcept {
  std::size_t n = 0;
  for (const auto& b : blocks_) n += b.size;
  return n;
}

void JsonArena::reset() noexcept {
  for (std::size_t i = 1; i < blocks_.size(); ++i) ::operator delete(blocks_[i].data);
  if (blocks_.size() > 1) blocks_.resize(1);
  offset_ = 0;
  used_ = 0;
}

void* JsonArena::do_allocate(std::size_t bytes, std::size_t align) {
  if (bytes == 0 && align == kIdentify) return this;
  if (sealed_) return ::operator new(bytes);
  // (Boost.JSON asks for no more than max_align_t's alignment, which operator new gives.)
  align = std::max<std::size_t>(align, 1);
  std::size_t at = roundUp(offset_, align);
  if (blocks_.empty() || at + bytes > blocks_.back().size) {
    // A tree larger than expected: a further block as large as all before it (at least the
    // request), so that a first block sized from a fragment of an event (one that spans reads)
    // still ends in a few blocks, not hundreds. The cache compacts what is left with much slack
    // (informer.cc).
    const std::size_t size = blocks_.empty() ? std::max(firstBlock_, roundUp(bytes, kAlign))
                                             : std::max(reserved(), roundUp(bytes, kAlign));
    blocks_.push_back({static_cast<char*>(::operator new(size)), size});
    offset_ = 0;
    at = 0;
  }
  used_ += at - offset_ + bytes;  // (with the padding, so that a copy's needs are exact)
  offset_ = at + bytes;
  return blocks_.back().data + at;
}

void JsonArena::do_deallocate(void* p, std::size_t, std::size_t) {
  // A block's memory is returned with the arena; what the heap served after sealing goes back.
  const auto* c = static_cast<const char*>(p);
  for (const auto& b : blocks_)
    if (c >= b.data && c < b.data + b.size) return;
  ::operator delete(p);
}

bool JsonArena::do_is_equal(const memory_resource& other) const noexcept { return this == &other; }

std::size_t jsonArenaBytes(std::size_t textBytes) { return 3 * textBytes + 256; }

json::storage_ptr makeJsonArena(std::size_t firstBlock) {
  return json::make_shared_resource<JsonArena>(firstBlock);
}

JsonArena* jsonArenaOf(const json::storage_ptr& storage) noexcept {
  if (!storage.is_shared() ||
      typeid(*storage.get()) != typeid(json::detail::shared_resource_impl<JsonArena>))
    return nullptr;
  return static_cast<JsonArena*>(storage->allocate(0, kIdentify));
}

json::object compactCopy(const json::object& object) {
  thread_local JsonArena scratch(64 * 1024);
  std::size_t need = 0;
  {
    const json::object measured(object, json::storage_ptr(&scratch));
    // (A block after the first starts aligned; in one block the same allocation may need up to
    // kAlign - 1 bytes of padding.)
    need = scratch.used() + kAlign * (scratch.blocks() - 1);
  }
  scratch.reset();
  // The same copy makes the same allocations: one block of that size holds it.
  auto storage = makeJsonArena(need);
  json::object out(object, storage);
  jsonArenaOf(storage)->seal();
  return out;
}

}  // namespace flotilla::api
