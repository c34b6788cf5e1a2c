// Tests of parameter sets: ranges, JSON round trips and errors, device checks, the default.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <clsort/clsort.hpp>

#include "radix_kernels.hpp"
#include "support/environment.hpp"
#include "support/error_checks.hpp"
#include "support/opencl_fixture.hpp"
#include "support/param_sets.hpp"

using namespace clsort;
using clsort::test::message_has;
using clsort::test::shaped_params;
using clsort::test::test_device;
using clsort::test::test_queue;
using nlohmann::json;

namespace {

void expect_json_error(const json& j, const std::string& fragment) {
  BOOST_TEST_CONTEXT("expected: " << fragment) {
    BOOST_CHECK_EXCEPTION(j.get<Params>(), Error,
                          [&](const Error& e) { return message_has(e, fragment); });
  }
}

void expect_invalid(const Params& p, const std::string& fragment) {
  BOOST_TEST_CONTEXT("expected: " << fragment) {
    BOOST_CHECK_EXCEPTION(validate(p), Error,
                          [&](const Error& e) { return message_has(e, fragment); });
  }
}

// Sets `field` of p to `value`, which must round-trip through JSON, and checks that a set
// without the field reads as `absent`.
void expect_optional_field(Params& p, const char* name, int Params::*field, int value, int absent) {
  BOOST_TEST_CONTEXT(name) {
    p.*field = value;
    BOOST_TEST(json(p)[name] == value);
    BOOST_TEST((json(p).get<Params>() == p));
    json without = p;
    without.erase(name);
    const int read = without.get<Params>().*field;
    BOOST_TEST(read == absent);
  }
}

// NVIDIA's local memory per work-group, the budget the layouts below are checked against.
constexpr std::uint64_t kib48 = 48 * 1024;
// warp_match keys-only passes: one word per lane for the atomics of keys past n.
constexpr std::size_t keys_only_lane_sinks = 32 * 4;

}  // namespace

BOOST_AUTO_TEST_SUITE(parameters)

BOOST_AUTO_TEST_CASE(json_round_trip) {
  Params p;
  p.radix_bits = 5;
  p.work_group_size = 48;
  p.elements_per_thread = 3;
  p.ranking = Ranking::bitmask;
  p.algorithm = Algorithm::onesweep;
  p.scan_work_group_size = 32;
  p.scan_elements_per_thread = 7;
  p.prefetch_ahead = 0;
  const json j = p;
  BOOST_TEST(j["prefetch_ahead"] == 0);
  BOOST_TEST(j["radix_bits"].is_number_integer());
  BOOST_TEST(j["ranking"] == "bitmask");
  BOOST_TEST(j["algorithm"] == "onesweep");
  BOOST_TEST((j.get<Params>() == p));
  BOOST_TEST((json::parse(j.dump()).get<Params>() == p));
  p.ranking = Ranking::warp_match;  // the only ranking that may prefetch
  p.work_group_size = 64;
  p.prefetch_ahead = 2;
  p.prefetch_values = 1;
  BOOST_TEST(json(p)["prefetch_ahead"] == 2);
  BOOST_TEST(json(p)["prefetch_values"] == 1);
  BOOST_TEST((json(p).get<Params>() == p));
  p.prefetch_values = 0;
  BOOST_TEST((json(p).get<Params>() == p));
  // Sets written before these fields were known still read: one work-group a tile, the
  // compiler's registers, values staged at once.
  expect_optional_field(p, "resident_groups", &Params::resident_groups, 3, 0);
  expect_optional_field(p, "occupancy_groups", &Params::occupancy_groups, 2, 0);
  expect_optional_field(p, "value_rounds", &Params::value_rounds, 2, 1);
}

BOOST_AUTO_TEST_CASE(json_errors_name_the_field) {
  json good = Params{};
  json j = good;
  j.erase("work_group_size");
  expect_json_error(j, "missing field 'work_group_size'");
  j = good;
  j["radix_bits"] = 9;
  expect_json_error(j, "'radix_bits' = 9 is outside [1, 8]");
  j = good;
  j["elements_per_thread"] = "16";
  expect_json_error(j, "'elements_per_thread' must be an integer");
  j = good;
  j["ranking"] = "quantum";
  expect_json_error(j, "field 'ranking' must be one of \"serial\", \"bitmask\", \"warp_match\"");
  j = good;
  j["algorithm"] = "bogosort";
  expect_json_error(j, "field 'algorithm' must be one of");
  j = good;
  j["ranking"] = "warp_match";
  expect_json_error(j, "warp_match needs algorithm = onesweep");
  j = good;
  j["prefetch_ahead"] = 5;
  expect_json_error(j, "'prefetch_ahead' = 5 is outside [0, 4]");
  j = good;
  j["prefetch_ahead"] = 1;  // good is reduce_then_scan with bitmask ranking
  expect_json_error(j, "prefetch_ahead = 1 needs ranking = warp_match");
  j = good;
  j.erase("prefetch_ahead");
  expect_json_error(j, "missing field 'prefetch_ahead'");
  j = good;
  j["prefetch_values"] = 2;
  expect_json_error(j, "'prefetch_values' = 2 is outside [0, 1]");
  j = good;
  j["prefetch_values"] = 1;
  expect_json_error(j, "prefetch_values = 1 needs ranking = warp_match");
  j = good;
  j.erase("prefetch_values");
  expect_json_error(j, "missing field 'prefetch_values'");
  for (const std::string name : {"resident_groups", "occupancy_groups"}) {
    j = good;
    j[name] = 9;
    expect_json_error(j, "'" + name + "' = 9 is outside [0, 8]");
    j = good;
    j[name] = 2;  // good is reduce_then_scan
    expect_json_error(j, name + " = 2 needs algorithm = onesweep");
    j = good;
    j[name] = "2";
    expect_json_error(j, "'" + name + "' must be an integer");
  }
  for (int rounds : {0, 5}) {
    j = good;
    j["value_rounds"] = rounds;
    expect_json_error(j, "'value_rounds' = " + std::to_string(rounds) + " is outside [1, 4]");
  }
  j = good;
  j["radix_bitz"] = 4;
  expect_json_error(j, "unknown field 'radix_bitz'");
  expect_json_error(json::array(), "expected a JSON object");
}

BOOST_AUTO_TEST_CASE(validate_rejects_out_of_range_fields) {
  Params p;
  p.work_group_size = 0;
  expect_invalid(p, "work_group_size = 0");
  p = Params{};
  p.scan_work_group_size = 1;
  p.scan_elements_per_thread = 1;
  expect_invalid(p, "at least 2");
  p = Params{};
  p.algorithm = Algorithm::onesweep;
  p.ranking = Ranking::serial;
  expect_invalid(p, "serial needs algorithm = reduce_then_scan");
  p.ranking = Ranking::warp_match;
  p.work_group_size = 48;
  expect_invalid(p, "multiple of 32");
  p = Params{};
  p.algorithm = Algorithm::onesweep;
  p.prefetch_ahead = 1;  // bitmask ranking: the prefetch is PTX beside warp_match's
  expect_invalid(p, "prefetch_ahead = 1 needs ranking = warp_match");
  p.ranking = Ranking::warp_match;
  BOOST_CHECK_NO_THROW(validate(p));
  p.algorithm = Algorithm::fused_onesweep;  // too small a sort for the prefetch to pay
  expect_invalid(p, "algorithm = onesweep or hybrid");
  p.ranking = Ranking::serial;
  p.prefetch_ahead = 0;
  expect_invalid(p, "serial needs algorithm = reduce_then_scan");
  p.algorithm = Algorithm::onesweep;
  p.ranking = Ranking::warp_match;
  p.prefetch_ahead = -1;
  expect_invalid(p, "prefetch_ahead = -1");
  p = Params{};
  p.algorithm = Algorithm::fused_onesweep;
  p.prefetch_values = 1;  // bitmask ranking: the prefetch is PTX beside warp_match's
  expect_invalid(p, "prefetch_values = 1 needs ranking = warp_match");
  p.ranking = Ranking::warp_match;
  BOOST_CHECK_NO_THROW(validate(p));      // fused_onesweep's tiles may ask for their values
  p.algorithm = Algorithm::single_group;  // no tiles and no look-back to hide the request behind
  expect_invalid(p, "algorithm = onesweep, hybrid or fused_onesweep");
  p = Params{};
  p.radix_bits = 0;
  expect_invalid(p, "radix_bits = 0");
  p = Params{};
  p.algorithm = Algorithm::onesweep;
  p.resident_groups = 2;
  BOOST_CHECK_NO_THROW(validate(p));
  p.algorithm = Algorithm::fused_onesweep;  // its work-groups each take one ticket of all passes
  expect_invalid(p, "resident_groups = 2 needs algorithm = onesweep");
  p.algorithm = Algorithm::hybrid;
  expect_invalid(p, "resident_groups = 2 needs algorithm = onesweep");
  p = Params{};
  p.algorithm = Algorithm::onesweep;
  p.occupancy_groups = 2;
  BOOST_CHECK_NO_THROW(validate(p));
  p.algorithm = Algorithm::hybrid;  // its passes share a program with its segment sorts
  expect_invalid(p, "occupancy_groups = 2 needs algorithm = onesweep");
  p = Params{};
  p.value_rounds = 2;  // reduce_then_scan scatters values without a tile buffer
  expect_invalid(p, "value_rounds = 2 needs algorithm = onesweep, hybrid or fused_onesweep");
  for (Algorithm a : {Algorithm::onesweep, Algorithm::hybrid, Algorithm::fused_onesweep}) {
    p.algorithm = a;
    BOOST_CHECK_NO_THROW(validate(p));
  }
}

BOOST_AUTO_TEST_CASE(device_limits_are_enforced) {
  const cl::Device device = test_device();
  const auto max_wg = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  Params p;  // reduce_then_scan with bitmask ranking: valid on every device
  if (max_wg < 4096) {
    p.work_group_size = static_cast<int>(max_wg) + 1;
    BOOST_CHECK_EXCEPTION(validate_for_device(p, device), Error, [](const Error& e) {
      return message_has(e, "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    });
  }
  // Bitmask ranking needs local memory that grows with the work-group size; a Sorter refuses a
  // set that needs more than the device has, naming the limit.
  p = Params{};
  p.work_group_size = 4096;
  const auto local = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  BOOST_TEST(local_memory_bytes(p, 4, 0) == 256u * (128u * 4u + 8u));
  if (static_cast<std::size_t>(p.work_group_size) <= max_wg && local_memory_bytes(p, 4, 0) > local)
    BOOST_CHECK_EXCEPTION(Sorter(test_queue(), p), Error, [](const Error& e) {
      return message_has(e, "CL_DEVICE_LOCAL_MEM_SIZE");
    });
  // Serial ranking orders each work-item's block of keys and values in local memory.
  p = Params{};
  p.ranking = Ranking::serial;
  p.work_group_size = 64;
  p.elements_per_thread = 65536;
  BOOST_TEST(local_memory_bytes(p, 8, 16) == 64u * 65536u * 24u + 16u);
  BOOST_TEST(local_memory_bytes(p, 8, 16) > local);
  BOOST_CHECK_EXCEPTION(validate_for_device(p, device, 8, 16), Error,
                        [](const Error& e) { return message_has(e, "CL_DEVICE_LOCAL_MEM_SIZE"); });
}

// single_group's serial and warp_match rankings count slots in 16 bits; warp_match's tables
// (a mask per warp and digit, 16-bit counters, digit starts) leave 4,096 pairs of 32-bit keys and
// values within 48 KiB at 256 work-items.
BOOST_AUTO_TEST_CASE(single_group_slot_counters_bound_its_capacity) {
  Params p;
  p.algorithm = Algorithm::single_group;
  p.ranking = Ranking::warp_match;
  p.radix_bits = 8;
  p.work_group_size = 256;
  p.elements_per_thread = 16;
  BOOST_TEST(local_memory_bytes(p, 4, 4) ==
             4096u * 8u + 8u * 256u * 6u + 256u * 4u + 256u * 4u + 16u);
  BOOST_TEST(local_memory_bytes(p, 4, 4) <= 48u * 1024u);
  p.work_group_size = 32;
  p.elements_per_thread = 2047;
  BOOST_CHECK_NO_THROW(validate(p));
  p.elements_per_thread = 2048;
  expect_invalid(p,
                 "ranking = warp_match holds at most 65535 keys; work_group_size * "
                 "elements_per_thread = 65536");
  p.ranking = Ranking::serial;
  BOOST_CHECK_NO_THROW(validate(p));
  p.elements_per_thread = 2049;
  expect_invalid(p, "ranking = serial holds at most 65536 keys");
  p.ranking = Ranking::bitmask;
  BOOST_CHECK_NO_THROW(validate(p));
}

BOOST_AUTO_TEST_CASE(onesweep_limits_are_enforced) {
  const cl::Device device = test_device();
  Params p;
  p.algorithm = Algorithm::onesweep;
  p.work_group_size = 32;
  p.elements_per_thread = 65536;  // a tile of 2M keys cannot fit any device's local memory
  BOOST_CHECK_EXCEPTION(validate_for_device(p, device, 8, 16), Error, [](const Error& e) {
    return message_has(e, "elements_per_thread = 65536") &&
           message_has(e, "CL_DEVICE_LOCAL_MEM_SIZE");
  });
  p.elements_per_thread = 4;
  p.ranking = Ranking::warp_match;
  const bool nvidia = device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_nv_device_attribute_query") !=
                      std::string::npos;
  if (!nvidia)
    BOOST_CHECK_EXCEPTION(validate_for_device(p, device), Error, [](const Error& e) {
      return message_has(e, "warp_match needs an NVIDIA GPU");
    });
}

// The pass kernel's local memory: keys and then values take turns in one tile buffer, and pairs
// keep each slot's digit where ranking's tables were, so u32 pairs fit the 256 x 24 tile of u32
// keys in 48 KiB (keys alone add a word per lane for the atomics of keys past n). warp_match
// ranking keeps its digit masks in a table of their own where that fits (keys then land as they
// are ranked), else in the tile buffer, the layout validation asks room for.
BOOST_AUTO_TEST_CASE(pairs_reuse_the_tile_buffer_and_masks_go_where_they_fit) {
  using clsort::detail::onesweep_layout;
  Params p = shaped_params(Algorithm::onesweep, Ranking::warp_match, 256, 16);
  constexpr std::size_t warp_table = 256 / 32 * 256 * 4;
  for (int ept : {16, 24}) {
    p.elements_per_thread = ept;
    const auto keys = onesweep_layout(p, 4, 0, kib48);
    const auto pairs = onesweep_layout(p, 4, 4, kib48);
    BOOST_TEST(keys.scatter_while_ranking, "u32 keys, 256 x " << ept);
    BOOST_TEST(pairs.scatter_while_ranking, "u32 pairs, 256 x " << ept);
    BOOST_TEST(pairs.local_bytes + keys_only_lane_sinks == keys.local_bytes);
    BOOST_TEST(pairs.tile_buffer_bytes == 256u * ept * 4);
    BOOST_TEST(pairs.scratch_bytes == 2 * warp_table);
    BOOST_TEST(local_memory_bytes(p, 4, 4) + warp_table == pairs.local_bytes);
  }
  // u32 keys with u64 values: the buffer is as large as the values.
  BOOST_TEST(onesweep_layout(p, 4, 8, kib48).tile_buffer_bytes == 256u * 24 * 8);
  p.elements_per_thread = 16;
  const auto u64_keys = onesweep_layout(p, 8, 0, kib48);
  BOOST_TEST(!u64_keys.scatter_while_ranking);  // the tile is 32 KiB; masks in it fit
  BOOST_TEST(u64_keys.local_bytes <= kib48);
  BOOST_TEST(u64_keys.scratch_bytes == warp_table);
  BOOST_TEST(onesweep_layout(p, 8, 0, 64 * 1024).scatter_while_ranking);
  // Slot digits outgrow ranking's tables where digits are few: 6-bit digits, 256 x 24.
  p.radix_bits = 6;
  p.elements_per_thread = 24;
  BOOST_TEST(onesweep_layout(p, 4, 4, kib48).scratch_bytes == 256u * 24);
  BOOST_TEST(onesweep_layout(p, 4, 0, kib48).scratch_bytes == 2u * 256 / 32 * 64 * 4);
  // Masks in the tile buffer need it to hold them: u8 keys, 256 x 1, no room for their own.
  p.radix_bits = 8;
  p.elements_per_thread = 1;
  BOOST_TEST(onesweep_layout(p, 1, 0, 2 * warp_table).tile_buffer_bytes == warp_table);
  p.elements_per_thread = 16;
  p.ranking = Ranking::bitmask;
  BOOST_TEST(!onesweep_layout(p, 4, 0, kib48).scatter_while_ranking);
}

// Compact digit tables (each work-item's digit state in registers) only where they, and not the
// full tables, let a tile scatter while ranking: 256 x 28-30 u32 keys, alone or with u32 values,
// in 48 KiB.
BOOST_AUTO_TEST_CASE(compact_digit_tables_only_where_they_let_tiles_scatter_while_ranking) {
  using clsort::detail::onesweep_layout;
  Params p = shaped_params(Algorithm::onesweep, Ranking::warp_match, 256, 27);
  BOOST_TEST(onesweep_layout(p, 4, 0, kib48).scatter_while_ranking);
  BOOST_TEST(!onesweep_layout(p, 4, 0, kib48).compact_digit_tables);
  for (int ept : {28, 30}) {
    p.elements_per_thread = ept;
    const auto keys = onesweep_layout(p, 4, 0, kib48);
    BOOST_TEST(keys.scatter_while_ranking, "256 x " << ept);
    BOOST_TEST(keys.compact_digit_tables, "256 x " << ept);
    BOOST_TEST(keys.local_bytes <= kib48);
    const auto pairs = onesweep_layout(p, 4, 4, kib48);
    BOOST_TEST(pairs.scatter_while_ranking, "pairs, 256 x " << ept);
    BOOST_TEST(pairs.compact_digit_tables, "pairs, 256 x " << ept);
    BOOST_TEST(pairs.local_bytes + keys_only_lane_sinks == keys.local_bytes);
  }
  p.elements_per_thread = 31;
  BOOST_TEST(!onesweep_layout(p, 4, 0, kib48).scatter_while_ranking);
  BOOST_TEST(!onesweep_layout(p, 4, 0, kib48).compact_digit_tables);
  // Only with one digit per work-item: 128 items of 73 keys would scatter with compact tables
  // (45.5 KiB) and do not with full ones (48.02 KiB), but 8-bit digits are two per item.
  p.work_group_size = 128;
  p.elements_per_thread = 73;
  BOOST_TEST(!onesweep_layout(p, 4, 0, kib48).scatter_while_ranking);
  BOOST_TEST(!onesweep_layout(p, 4, 0, kib48).compact_digit_tables);
}

// single_group's warp_match ranking takes 32-bit slot counters where they fit beside the keys
// and 16-bit ones (validation's minimum) where only those do; the other rankings keep theirs.
BOOST_AUTO_TEST_CASE(single_group_slot_counters_are_wide_where_they_fit) {
  using clsort::detail::single_group_wide_slots;
  Params p = shaped_params(Algorithm::single_group, Ranking::warp_match, 256, 16);
  BOOST_TEST(single_group_wide_slots(p, 4, 0, kib48));   // 16 KiB of keys
  BOOST_TEST(!single_group_wide_slots(p, 4, 4, kib48));  // 32 KiB of pairs
  BOOST_TEST(!single_group_wide_slots(p, 8, 0, kib48));
  BOOST_TEST(local_memory_bytes(p, 4, 4) <= kib48);
  // The wider counters take half the masks' table more: 4 KiB at 256 work-items.
  BOOST_TEST(single_group_wide_slots(p, 4, 4, local_memory_bytes(p, 4, 4) + 4096));
  BOOST_TEST(!single_group_wide_slots(p, 4, 4, local_memory_bytes(p, 4, 4) + 4095));
  p.ranking = Ranking::serial;
  BOOST_TEST(!single_group_wide_slots(p, 1, 0, kib48));
}

// The middle tier runs every pass in one launch where warps rank (NVIDIA); elsewhere, and for
// 1-byte keys (one pass), those sorts run default_params.
BOOST_AUTO_TEST_CASE(mid_default_is_fused_onesweep_where_warps_rank) {
  const cl::Device device = test_device();
  BOOST_TEST(!default_mid_params(device, 1, 0).has_value());
  for (std::size_t key_bytes : {2, 4, 8})
    for (std::size_t value_bytes : {0, 1, 4, 8, 16}) {
      const std::optional<Params> mid = default_mid_params(device, key_bytes, value_bytes);
      if (!mid) {
        BOOST_TEST((default_params(device, key_bytes, value_bytes).ranking != Ranking::warp_match));
        continue;
      }
      BOOST_TEST((mid->algorithm == Algorithm::fused_onesweep));
      BOOST_CHECK_NO_THROW(validate_for_device(*mid, device, key_bytes, value_bytes));
      BOOST_TEST((built_in_params(device, key_bytes, value_bytes, mid_default_max_keys) == *mid));
    }
}

// The rank_sort default's shapes, on any device: 8 keys a work-item up to 4,096 32-bit keys, then
// 512-wide sets that fill 48 KiB of local memory (their counts 16 bits a key), holding as many
// keys 256 wide.
BOOST_AUTO_TEST_CASE(rank_default_shapes_fill_48_kib) {
  using detail::rank_default_elements_per_thread;
  BOOST_TEST(rank_default_elements_per_thread(4, 1, 512) == 8);
  BOOST_TEST(rank_default_elements_per_thread(4, 4096, 512) == 8);
  BOOST_TEST(rank_default_elements_per_thread(4, 4097, 512) == 15);
  BOOST_TEST(rank_default_elements_per_thread(4, 4097, 256) == 30);
  BOOST_TEST(rank_default_elements_per_thread(8, 1, 512) == 9);
  BOOST_TEST(rank_default_elements_per_thread(8, 99999, 256) == 18);
  for (std::size_t key_bytes : {4, 8}) {
    Params p;
    p.algorithm = Algorithm::rank_sort;
    p.work_group_size = 512;
    p.elements_per_thread = rank_default_elements_per_thread(key_bytes, UINT64_MAX, 512);
    BOOST_TEST(local_memory_bytes(p, key_bytes, 8) <= 48u * 1024);
    ++p.elements_per_thread;
    BOOST_TEST(local_memory_bytes(p, key_bytes, 8) > 48u * 1024);
  }
}

// The smallest sorts rank keys by comparison where warps rank (NVIDIA), for 4- and 8-byte keys:
// up to 4,096 32-bit keys with a set of 8 keys a work-item, above with one that fills local
// memory; elsewhere, and for narrower keys, they run default_small_params.
BOOST_AUTO_TEST_CASE(rank_default_is_rank_sort_where_warps_rank) {
  const cl::Device device = test_device();
  for (std::size_t key_bytes : {1, 2, 4, 8})
    for (std::size_t value_bytes : {0, 1, 4, 8, 16}) {
      const std::optional<Params> rank = default_rank_params(device, key_bytes, value_bytes);
      const std::optional<Params> compact = default_rank_params(device, key_bytes, value_bytes, 0);
      const bool warps =
          default_params(device, key_bytes, value_bytes).ranking == Ranking::warp_match;
      BOOST_TEST(rank.has_value() == (warps && key_bytes >= 4));
      BOOST_TEST(compact.has_value() == rank.has_value());
      if (!rank) continue;
      for (const Params& p : {*compact, *rank}) {
        BOOST_TEST((p.algorithm == Algorithm::rank_sort));
        BOOST_CHECK_NO_THROW(validate_for_device(p, device, key_bytes, value_bytes));
      }
      const std::uint64_t capacity = single_group_capacity(*rank);
      const std::uint64_t compact_capacity = single_group_capacity(*compact);
      BOOST_TEST(capacity == (key_bytes == 4 ? 7680u : 4608u));
      BOOST_TEST(compact_capacity == (key_bytes == 4 ? 4096u : 4608u));
      BOOST_TEST(compact->elements_per_thread <= 9);
      BOOST_TEST(
          (default_rank_params(device, key_bytes, value_bytes, compact_capacity) == compact));
      BOOST_TEST((built_in_params(device, key_bytes, value_bytes, 1) == *compact));
      BOOST_TEST((built_in_params(device, key_bytes, value_bytes, compact_capacity) == *compact));
      BOOST_TEST((built_in_params(device, key_bytes, value_bytes, capacity) == *rank));
      BOOST_TEST((built_in_params(device, key_bytes, value_bytes, capacity + 1) != *rank));
    }
}

// The built-in defaults ask for the values' L2 prefetch exactly where they sort pairs through
// onesweep passes with warp_match ranking (NVIDIA), as every such sort did before the tuner chose.
BOOST_AUTO_TEST_CASE(defaults_prefetch_values_for_warp_match_pairs_only) {
  const cl::Device device = test_device();
  for (std::size_t key_bytes : {1, 2, 4, 8})
    for (std::size_t value_bytes : {0, 1, 4, 8, 16}) {
      std::vector<Params> defaults{default_params(device, key_bytes, value_bytes)};
      for (const auto& tier : {default_mid_params(device, key_bytes, value_bytes),
                               default_rank_params(device, key_bytes, value_bytes)})
        if (tier) defaults.push_back(*tier);
      for (const Params& p : defaults) {
        const bool wanted = value_bytes > 0 && p.ranking == Ranking::warp_match &&
                            runs_onesweep_passes(p.algorithm);
        BOOST_TEST(p.prefetch_values == (wanted ? 1 : 0),
                   json(p).dump() << " for " << key_bytes << "-byte keys, " << value_bytes
                                  << "-byte values");
      }
    }
}

BOOST_AUTO_TEST_CASE(default_fits_the_device_and_is_reported) {
  const cl::Device device = test_device();
  for (std::size_t key_bytes : {1, 2, 4, 8})
    for (std::size_t value_bytes : {0, 1, 4, 8, 16})
      for (const Params& p : {default_params(device, key_bytes, value_bytes),
                              default_small_params(device, key_bytes, value_bytes)})
        BOOST_CHECK_NO_THROW(validate_for_device(p, device, key_bytes, value_bytes));
  test::Environment environment;
  environment.set("CLSORT_PROFILE", "none");  // no profile: the built-in defaults are in use
  Sorter sorter(test_queue());
  const Params small = default_small_params(device, 8, 16);
  BOOST_TEST((small.algorithm == Algorithm::single_group));
  // The smallest sorts take the rank tier where there is one, the larger of the two capacities
  // the tier that holds it.
  const std::optional<Params> rank = default_rank_params(device, 8, 16);
  const std::uint64_t rank_capacity = rank ? single_group_capacity(*rank) : 0;
  const std::uint64_t capacity = std::max(single_group_capacity(small), rank_capacity);
  BOOST_TEST((sorter.params_for(KeyType::f64, 16, 1) == rank.value_or(small)));
  // 32-bit keys take the compact rank set up to its capacity, the larger above.
  if (const std::optional<Params> compact = default_rank_params(device, 4, 0, 0)) {
    const std::uint64_t compact_capacity = single_group_capacity(*compact);
    BOOST_TEST((sorter.params_for(KeyType::u32, 0, compact_capacity) == *compact));
    BOOST_TEST((sorter.params_for(KeyType::u32, 0, compact_capacity + 1) ==
                *default_rank_params(device, 4, 0)));
  }
  BOOST_TEST((sorter.params_for(KeyType::f64, 16, capacity) ==
              (capacity == rank_capacity ? *rank : small)));
  BOOST_TEST((sorter.params_for(KeyType::f64, 16, capacity + 1) ==
              default_mid_params(device, 8, 16).value_or(default_params(device, 8, 16))));
  BOOST_TEST((sorter.params_for(KeyType::f64, 16, mid_default_max_keys) ==
              built_in_params(device, 8, 16, mid_default_max_keys)));
  BOOST_TEST((sorter.params_for(KeyType::f64, 16, mid_default_max_keys + 1) ==
              default_params(device, 8, 16)));
  BOOST_TEST((sorter.params_for(KeyType::u32, 0, 1 << 20) == default_params(device, 4, 0)));
  const Params p = default_params(device);
  Params custom = p;
  custom.radix_bits = 4;
  Sorter custom_sorter(test_queue(), custom);
  BOOST_TEST((custom_sorter.params_for(KeyType::f64, 8, 1 << 20) == custom));
}

// Past onesweep's 2^32 - 1 keys a sort runs reduce_then_scan with the set's shape, without
// onesweep's own fields, which reduce_then_scan would refuse.
BOOST_AUTO_TEST_CASE(sorts_past_onesweeps_keys_drop_its_fields) {
  Params p;
  p.algorithm = Algorithm::onesweep;
  p.ranking = Ranking::bitmask;
  p.resident_groups = 2;
  p.occupancy_groups = 3;
  Sorter sorter(test_queue(), p);
  const std::uint64_t past = std::uint64_t{1} << 32;
  const Params huge = sorter.params_for(KeyType::u32, 0, past);
  BOOST_TEST((huge.algorithm == Algorithm::reduce_then_scan));
  BOOST_TEST(huge.resident_groups == 0);
  BOOST_TEST(huge.occupancy_groups == 0);
  BOOST_TEST(huge.radix_bits == p.radix_bits);
  BOOST_CHECK_NO_THROW(validate(huge));
  BOOST_TEST((sorter.params_for(KeyType::u32, 0, past - 1) == p));
}

BOOST_AUTO_TEST_SUITE_END()
