// The key a distributed sort orders by, read from an array of keys: what splitters and merges
// compare.
#pragma once

#include <cstdint>

#include <clsort/key_order.hpp>
#include <clsort/types.hpp>

namespace clsort::mpi {

// The key the sort orders by: the ordered bits in [begin_bit, end_bit), as an integer.
template <class K>
class SortKeys {
 public:
  SortKeys(const K* keys, std::uint64_t n, const SortOptions& options)
      : keys_(keys), n_(n), descending_(options.descending), begin_(options.begin_bit) {
    const unsigned end = options.end_bit.value_or(sizeof(K) * 8);
    width_ = end > begin_ ? end - begin_ : 0;
  }

  std::uint64_t max() const { return width_ == 0 ? 0 : ~std::uint64_t{0} >> (64 - width_); }
  unsigned width() const { return width_; }

  std::uint64_t at(std::uint64_t i) const {
    if (width_ == 0) return 0;
    return (static_cast<std::uint64_t>(ordered_bits(keys_[i], descending_)) >> begin_) & max();
  }
  /// Keys whose sort key is below `v` (the keys are sorted by it).
  std::uint64_t count_below(std::uint64_t v) const {
    std::uint64_t first = 0, last = n_;
    while (first < last) {
      const std::uint64_t middle = first + (last - first) / 2;
      if (at(middle) < v)
        first = middle + 1;
      else
        last = middle;
    }
    return first;
  }
  /// Keys whose sort key is `v` or below.
  std::uint64_t count_up_to(std::uint64_t v) const { return v == max() ? n_ : count_below(v + 1); }

 private:
  const K* keys_;
  std::uint64_t n_;
  bool descending_;
  unsigned begin_;
  unsigned width_ = 0;
};

}  // namespace clsort::mpi
