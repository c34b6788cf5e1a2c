// Tests of the MPI layer's touched host memory: zeroed, whole, and huge-page aligned from 2 MiB.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>

#include "mpi/src/host_threads.hpp"

namespace {

constexpr std::uint64_t huge_page = std::uint64_t{2} << 20;

// Every byte of touched_bytes(bytes) reads zero and takes a write, the last one included.
void check_touched(std::uint64_t bytes, unsigned threads) {
  const clsort::mpi::HostMemory data = clsort::mpi::touched_bytes(bytes, threads);
  BOOST_REQUIRE(data);
  BOOST_TEST(std::all_of(data.get(), data.get() + bytes, [](char c) { return c == 0; }),
             bytes << " bytes");
  std::fill(data.get(), data.get() + std::max<std::uint64_t>(bytes, 1), char{0x5a});
  const auto address = reinterpret_cast<std::uintptr_t>(data.get());
  if (bytes >= huge_page) BOOST_TEST(address % huge_page == 0, bytes << " bytes");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(host_memory)

BOOST_AUTO_TEST_CASE(touched_bytes_of_every_size_class) {
  for (const std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{4097},
                                    huge_page - 1, huge_page, 3 * huge_page / 2 + 5})
    for (const unsigned threads : {1u, 3u}) check_touched(bytes, threads);
}

BOOST_AUTO_TEST_CASE(host_bytes_keep_their_size) {
  const clsort::mpi::HostBytes bytes(huge_page + 3, 2);
  BOOST_TEST(bytes.size == huge_page + 3);
  BOOST_TEST(bytes.data[huge_page + 2] == 0);
}

BOOST_AUTO_TEST_SUITE_END()
