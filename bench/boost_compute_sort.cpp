// Boost.Compute's sort, isolated in its own file (it includes the OpenCL C headers its own way).
#include "boost_compute_sort.hpp"

#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/iterator/buffer_iterator.hpp>

namespace clsort::bench {

namespace compute = boost::compute;

bool boost_compute_supports(KeyType type, std::size_t value_bytes) {
  const bool key_ok = key_size(type) >= 4;
  return key_ok && (value_bytes == 0 || value_bytes == 4);
}

void boost_compute_sort(const cl::CommandQueue& queue, const cl::Buffer& keys,
                        const cl::Buffer& values, std::uint64_t n, KeyType type,
                        std::size_t value_bytes) {
  compute::command_queue q(queue(), true);
  const compute::buffer key_buffer(keys(), true);
  with_key_type(type, [&](auto tag) {
    using K = typename decltype(tag)::type;
    if constexpr (sizeof(K) >= 4) {
      const auto first = compute::make_buffer_iterator<K>(key_buffer, 0);
      const auto last = compute::make_buffer_iterator<K>(key_buffer, n);
      if (value_bytes == 0) {
        compute::sort(first, last, q);
      } else {
        const compute::buffer value_buffer(values(), true);
        compute::sort_by_key(first, last,
                             compute::make_buffer_iterator<std::uint32_t>(value_buffer, 0), q);
      }
    }
  });
}

}  // namespace clsort::bench
