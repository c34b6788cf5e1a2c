// clsort::mpi under mpirun: each rank's slice is, bit for bit, its part of the stable reference.
#define BOOST_TEST_NO_MAIN
#define BOOST_TEST_ALTERNATIVE_INIT_API
#include <boost/mpl/list.hpp>
#include <boost/test/included/unit_test.hpp>

#include <cstring>
#include <string>

#include <clsort/mpi.hpp>

#include "support/inputs.hpp"
#include "support/opencl_fixture.hpp"
#include "support/reference.hpp"

namespace clsort::test {
namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

Sorter& rank_sorter() {
  static Sorter sorter(test_queue());
  return sorter;
}

// How the global input is spread over the ranks before the sort.
enum class Spread { even, growing, first_rank_only, last_rank_only };

// Rank r's share [first, last) of n keys under `spread`.
std::pair<std::size_t, std::size_t> share(std::size_t n, Spread spread, int r, int p) {
  switch (spread) {
    case Spread::even:
      return {n * r / p, n * (r + 1) / p};
    case Spread::growing: {  // rank r holds r + 1 parts: uneven, rank 0 smallest
      const std::size_t parts = static_cast<std::size_t>(p) * (p + 1) / 2;
      const auto before = [&](int q) {
        return n * (static_cast<std::size_t>(q) * (q + 1) / 2) / parts;
      };
      return {before(r), before(r + 1)};
    }
    case Spread::first_rank_only:
      return r == 0 ? std::pair<std::size_t, std::size_t>{0, n}
                    : std::pair<std::size_t, std::size_t>{n, n};
    default:
      return r == p - 1 ? std::pair<std::size_t, std::size_t>{0, n}
                        : std::pair<std::size_t, std::size_t>{0, 0};
  }
}

std::string describe(std::size_t n, Distribution d, Spread s, const SortOptions& o) {
  return "n=" + std::to_string(n) + " " + to_string(d) + " spread " +
         std::to_string(static_cast<int>(s)) + (o.descending ? " descending" : "") + " bits [" +
         std::to_string(o.begin_bit) + ", " +
         (o.end_bit ? std::to_string(*o.end_bit) : std::string("end")) + ") rank " +
         std::to_string(rank()) + "/" + std::to_string(ranks());
}

// Sorts the keys (with their global positions as values, when `pairs`) across the ranks and
// checks this rank's slice: exactly its share of the global order, bit for bit, stable.
template <class K>
void check_distributed(const std::vector<K>& global, Spread spread, const mpi::Options& options,
                       bool pairs, const std::string& what) {
  const int p = ranks(), r = rank();
  const auto [first, last] = share(global.size(), spread, r, p);
  std::vector<K> keys(global.begin() + first, global.begin() + last);
  std::vector<std::uint64_t> positions(keys.size());
  std::iota(positions.begin(), positions.end(), std::uint64_t{first});
  const mpi::Slice slice =
      pairs ? mpi::sort_pairs(MPI_COMM_WORLD, rank_sorter(), keys, positions, options)
            : mpi::sort(MPI_COMM_WORLD, rank_sorter(), keys, options);

  const std::vector<std::size_t> order = reference_permutation(global, options.sort);
  const std::size_t begin = global.size() * r / p, end = global.size() * (r + 1) / p;
  BOOST_TEST_INFO(what);
  BOOST_CHECK_EQUAL(slice.total, global.size());
  BOOST_CHECK_EQUAL(slice.offset, begin);  // exact balance: every rank its share
  BOOST_CHECK_EQUAL(slice.count, end - begin);
  BOOST_REQUIRE_EQUAL(keys.size(), slice.count);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < keys.size() && begin + i < end; ++i) {
    const K expected = global[order[begin + i]];
    if (std::memcmp(&keys[i], &expected, sizeof(K)) != 0) ++wrong;
    if (pairs && positions[i] != order[begin + i]) ++wrong;
  }
  BOOST_CHECK_MESSAGE(wrong == 0, what << ": " << wrong << " keys or values differ");
}

using KeyTypes =
    boost::mpl::list<std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                     std::int16_t, std::int32_t, std::int64_t, float, double>;

}  // namespace

BOOST_AUTO_TEST_SUITE(mpi_sort)

BOOST_AUTO_TEST_CASE_TEMPLATE(every_distribution_spread_and_order, K, KeyTypes) {
  for (Distribution d : all_distributions())
    for (Spread spread : {Spread::even, Spread::growing})
      for (bool descending : {false, true}) {
        mpi::Options options;
        options.sort.descending = descending;
        const std::vector<K> global = make_keys<K>(d, 4099, 17 + static_cast<int>(d));
        check_distributed(global, spread, options, true, describe(4099, d, spread, options.sort));
      }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(tiny_inputs_and_empty_ranks, K, KeyTypes) {
  for (std::size_t n :
       {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{5}})
    for (Spread spread : {Spread::even, Spread::first_rank_only, Spread::last_rank_only}) {
      const std::vector<K> global = make_keys<K>(Distribution::extremes, n, 3 + n);
      check_distributed(global, spread, {}, true, describe(n, Distribution::extremes, spread, {}));
      check_distributed(global, spread, {}, false, describe(n, Distribution::extremes, spread, {}));
    }
}

using MergeKeyTypes = boost::mpl::list<std::uint32_t, std::int16_t, double>;

BOOST_AUTO_TEST_CASE_TEMPLATE(merged_on_the_host_or_the_device, K, MergeKeyTypes) {
  // Either place gives the same stable slices (PoCL's CPU device chooses the host by default).
  for (mpi::MergePlace place : {mpi::MergePlace::host, mpi::MergePlace::device})
    for (Distribution d : {Distribution::few_distinct, Distribution::extremes})
      for (bool descending : {false, true}) {
        mpi::Options options;
        options.merge = place;
        options.sort.descending = descending;
        const std::vector<K> global = make_keys<K>(d, 5003, 31 + static_cast<int>(d));
        check_distributed(global, Spread::growing, options, true,
                          describe(5003, d, Spread::growing, options.sort) + " merged on the " +
                              (place == mpi::MergePlace::host ? "host" : "device"));
      }
}

BOOST_AUTO_TEST_CASE(bit_ranges) {
  for (auto [begin, end] : {std::pair<unsigned, unsigned>{0, 8}, {8, 24}, {28, 32}, {5, 5}}) {
    mpi::Options options;
    options.sort.begin_bit = begin;
    options.sort.end_bit = end;
    for (bool descending : {false, true}) {
      options.sort.descending = descending;
      const auto global = make_keys<std::uint32_t>(Distribution::uniform, 10007, begin);
      check_distributed(global, Spread::growing, options, true,
                        describe(10007, Distribution::uniform, Spread::growing, options.sort));
      const auto doubles = make_keys<double>(Distribution::extremes, 3001, end);
      options.sort.end_bit = end + 32;
      check_distributed(doubles, Spread::even, options, true,
                        describe(3001, Distribution::extremes, Spread::even, options.sort));
      options.sort.end_bit = end;
    }
  }
}

BOOST_AUTO_TEST_CASE(skewed_keys_stay_balanced) {
  // 90% one key, the rest spread: slices still exact, the equal keys shared in rank order.
  std::vector<std::int32_t> global = make_keys<std::int32_t>(Distribution::uniform, 20011, 5);
  for (std::size_t i = 0; i < global.size(); ++i)
    if (i % 10 != 0) global[i] = INT32_MIN;
  check_distributed(global, Spread::last_rank_only, {}, true, "skewed to INT_MIN");
}

BOOST_AUTO_TEST_CASE(exchange_in_small_messages) {
  mpi::Options options;
  options.max_message_bytes = 1000;  // pieces of a few KiB go as several messages
  const auto global = make_keys<std::uint64_t>(Distribution::few_distinct, 30011, 9);
  check_distributed(global, Spread::growing, options, true, "1000-byte messages");
}

BOOST_AUTO_TEST_CASE(a_few_million_keys) {
  const auto global = make_keys<std::uint32_t>(Distribution::uniform, (1u << 21) + 3, 11);
  check_distributed(global, Spread::even, {}, false, "2^21 + 3 u32 keys");
}

// Device buffers in and out, merged at `place`.
void check_device_buffers(mpi::MergePlace place) {
  const int p = ranks(), r = rank();
  const auto global = make_keys<float>(Distribution::extremes, 5003, 21);
  const auto [first, last] = share(global.size(), Spread::growing, r, p);
  const std::size_t n = last - first;
  std::vector<std::uint32_t> positions(n);
  std::iota(positions.begin(), positions.end(), static_cast<std::uint32_t>(first));
  const cl::CommandQueue& queue = test_queue();
  cl::Buffer keys(test_context(), CL_MEM_READ_WRITE, std::max<std::size_t>(1, n * sizeof(float)));
  cl::Buffer values(test_context(), CL_MEM_READ_WRITE, std::max<std::size_t>(1, n * 4));
  if (n) {
    queue.enqueueWriteBuffer(keys, CL_TRUE, 0, n * sizeof(float), global.data() + first);
    queue.enqueueWriteBuffer(values, CL_TRUE, 0, n * 4, positions.data());
  }
  mpi::Options options;
  options.sort.descending = true;
  options.merge = place;
  const mpi::DeviceSlice slice =
      mpi::sort_device(MPI_COMM_WORLD, rank_sorter(), keys, n, KeyType::f32, &values, 4, options);
  const std::size_t begin = global.size() * r / p, end = global.size() * (r + 1) / p;
  BOOST_REQUIRE_EQUAL(slice.slice.count, end - begin);
  std::vector<float> sorted(slice.slice.count);
  std::vector<std::uint32_t> moved(slice.slice.count);
  if (!sorted.empty()) {
    queue.enqueueReadBuffer(slice.keys, CL_TRUE, 0, sorted.size() * sizeof(float), sorted.data());
    queue.enqueueReadBuffer(slice.values, CL_TRUE, 0, moved.size() * 4, moved.data());
  }
  const std::vector<std::size_t> order = reference_permutation(global, options.sort);
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    BOOST_CHECK_EQUAL(moved[i], order[begin + i]);
    BOOST_CHECK(std::memcmp(&sorted[i], &global[order[begin + i]], sizeof(float)) == 0);
  }
}

BOOST_AUTO_TEST_CASE(device_buffers) {
  check_device_buffers(mpi::MergePlace::host);
  check_device_buffers(mpi::MergePlace::device);
}

BOOST_AUTO_TEST_CASE(a_failing_rank_fails_every_rank) {
  // The last rank asks for an impossible bit range: its local sort throws, and every rank
  // must throw the same error naming it, instead of waiting for it in the exchange.
  const int p = ranks(), r = rank();
  std::vector<std::uint32_t> keys = make_keys<std::uint32_t>(Distribution::uniform, 1000, r);
  mpi::Options options;
  if (r == p - 1) options.sort.begin_bit = 40;
  try {
    mpi::sort(MPI_COMM_WORLD, rank_sorter(), keys, options);
    BOOST_ERROR("rank " << r << ": no error");
  } catch (const Error& e) {
    const std::string text = e.what();
    BOOST_CHECK_MESSAGE(text.find("rank " + std::to_string(p - 1) + ":") != std::string::npos,
                        text);
    BOOST_CHECK_MESSAGE(text.find("local sort") != std::string::npos, text);
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace clsort::test

bool init_unit_test() {
  boost::unit_test::framework::master_test_suite().p_name.value = "clsort-mpi";
  return true;
}

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  const int status = boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
  int worst = status;
  MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return worst;
}
