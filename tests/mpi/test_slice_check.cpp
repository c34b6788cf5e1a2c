// clsort-mpi bench's output check under mpirun: it passes a sorted output and names each fault.
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <clsort/error.hpp>

#include "mpi/tool/slice_check.hpp"

namespace clsort::test {
namespace {

using Damage =
    std::function<void(std::vector<std::uint32_t>& keys, std::vector<std::uint32_t>& values, int)>;

// Rank r's slice of 1,000 sorted u32 keys (key i / 10 at global position i, so that every key
// has ten equal neighbours) with their positions as values, after `damage` on this rank; then
// the check's error text, or "" if it passed. The input's digest is taken before the damage, or
// after it with `same_records` (to see the order checks alone).
std::string check_after(const Damage& damage, bool same_records = false) {
  int r = 0, p = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  const std::uint32_t n = 1000, first = n * r / p, last = n * (r + 1) / p;
  std::vector<std::uint32_t> keys, positions;
  for (std::uint32_t i = first; i < last; ++i) {
    keys.push_back(i / 10);
    positions.push_back(i);
  }
  const auto digest = [&] {
    return mpi::records_digest(keys.data(), positions.data(), keys.size(), KeyType::u32,
                               sizeof(std::uint32_t), 1);
  };
  std::uint64_t input = digest();
  damage(keys, positions, r);
  if (same_records) input = digest();
  try {
    mpi::check_sorted_slices(MPI_COMM_WORLD, keys.data(), positions.data(), keys.size(),
                             KeyType::u32, sizeof(std::uint32_t), input);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

bool mentions(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int last_rank() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p - 1;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(slice_check)

BOOST_AUTO_TEST_CASE(passes_a_sorted_output) {
  BOOST_TEST(check_after([](auto&, auto&, int) {}) == "");
}

BOOST_AUTO_TEST_CASE(names_keys_out_of_order_and_their_rank) {
  const std::string text = check_after([](auto& keys, auto& positions, int r) {
    if (r != last_rank()) return;
    std::swap(keys[3], keys.back());
    std::swap(positions[3], positions.back());
  });
  BOOST_TEST_INFO(text);
  BOOST_TEST(mentions(text, "rank " + std::to_string(last_rank()) + ": "));
  BOOST_TEST(mentions(text, "keys out of order at slice positions 3 and 4"));
}

BOOST_AUTO_TEST_CASE(names_equal_keys_out_of_input_order) {
  const std::string text = check_after([](auto&, auto& positions, int r) {
    if (r == 0) std::swap(positions[0], positions[1]);  // keys 0 and 1 are equal
  });
  BOOST_TEST_INFO(text);
  BOOST_TEST(mentions(text, "rank 0: "));
  BOOST_TEST(mentions(text, "equal keys out of their input order at slice positions 0 and 1"));
}

BOOST_AUTO_TEST_CASE(names_a_record_lost_or_changed) {
  const std::string text = check_after([](auto&, auto& positions, int r) {
    if (r == 0) positions[5] += 1000;  // still increasing: only the digest sees it
  });
  BOOST_TEST_INFO(text);
  BOOST_TEST(mentions(text, "the sorted records over all ranks are not the input's"));
}

BOOST_AUTO_TEST_CASE(names_slices_out_of_rank_order) {
  if (last_rank() == 0) return;  // one rank has no boundary to break
  const std::string text = check_after(
      [](auto& keys, auto&, int r) {
        if (r == 0) keys.back() += 1000;  // above every key of rank 1
      },
      true);
  BOOST_TEST_INFO(text);
  BOOST_TEST(mentions(text, "rank 1: "));
  BOOST_TEST(mentions(text, "between rank 0's last key and this rank's first"));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace clsort::test
