// Maps the distinct strings of a grouping (regions, zones, providers) to small integers assigned in
// first-seen order, so per-cluster work compares ints. Keys are views into strings that outlive
// the interner (the snapshot's clusters).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace flotilla::scheduler {

class Interner {
 public:
  int id(std::string_view value) {
    auto [it, inserted] = ids_.try_emplace(value, static_cast<int>(values_.size()));
    if (inserted) values_.push_back(value);
    return it->second;
  }
  std::string value(int id) const { return std::string(values_[static_cast<size_t>(id)]); }
  size_t size() const { return values_.size(); }

 private:
  std::unordered_map<std::string_view, int> ids_;
  std::vector<std::string_view> values_;
};

}  // namespace flotilla::scheduler
