// Tests of tuning profiles: the JSON form, classes of one key type, every way a profile can be
// unusable, the lookup order, the Sorter using (and overriding) what a profile says, and the
// profiles shipped in configs/ (the test device's sorting bit for bit with every class's set).
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <clsort/clsort.hpp>

#include "support/environment.hpp"
#include "support/error_checks.hpp"
#include "support/opencl_fixture.hpp"
#include "support/sort_checks.hpp"

using namespace clsort;
using namespace clsort::test;
namespace fs = std::filesystem;

namespace {

struct ProfileFixture {
  fs::path folder = fs::temp_directory_path() / ("clsort-profiles-" + std::to_string(::getpid()));
  Environment environment;

  ProfileFixture() {
    fs::remove_all(folder);
    fs::create_directories(folder);
    // Nothing from the user's folder or the shipped profiles may interfere: the user folder is
    // here, and the installed and source-tree folders are left out.
    environment.set("XDG_DATA_HOME", (folder / "user").string());
    environment.unset("CLSORT_PROFILE");
    environment.unset("CLSORT_PROFILE_PATH");
    environment.set("CLSORT_SHIPPED_PROFILES", "off");
  }
  ~ProfileFixture() { fs::remove_all(folder); }

  // A profile for the test device whose 32-bit keys-only class up to 2^16 keys uses radix 4.
  static Profile sample() {
    Profile p;
    p.tuner_version = "test";
    p.kernel_hash = kernel_templates_hash();
    p.device = identify(test_device());
    Params small = default_params(test_device(), 4, 0);
    small.radix_bits = 4;
    p.classes.push_back({{32, 0, 0, 1 << 16}, small, 1.5, 1.0});
    return p;
  }

  std::string write(const std::string& name, const std::string& text) const {
    fs::create_directories((folder / name).parent_path());
    std::ofstream(folder / name) << text;
    return (folder / name).string();
  }
  std::string save(const std::string& name, const Profile& p) const {
    return write(name, nlohmann::json(p).dump());
  }
};

// The profile shipped in configs/ for the test device (it may have none).
fs::path shipped_profile_of_test_device() {
  return fs::path(CLSORT_SOURCE_DIR) / "configs" / profile_file_name(identify(test_device()));
}

bool test_device_has_shipped_profile(boost::unit_test::test_unit_id) {
  return fs::exists(shipped_profile_of_test_device());
}

// The key types a class is checked on: its own, else its width's unsigned type and the float
// (8- and 16-bit: signed) type, whose bits the sort flips.
bool checked_type(const ProblemClass& c, KeyType type) {
  if (c.key_type) return type == *c.key_type;
  if (key_bits(type) != c.key_bits) return false;
  return key_kind(type) != KeyKind::signed_integer || c.key_bits < 32;
}

// "32:4 keys 4194304..33554431, {parameters}" for a failure's context.
std::string describe(const TunedClass& c) {
  const std::string keys = c.problem.key_type ? std::string(to_string(*c.problem.key_type))
                                              : std::to_string(c.problem.key_bits);
  return keys + ":" + std::to_string(c.problem.value_bytes) + " keys " +
         std::to_string(c.problem.min_keys) + ".." + std::to_string(c.problem.max_keys) + ", " +
         nlohmann::json(c.params).dump();
}

// Key counts of a class that a host reference checks quickly: its ends and an odd count between
// them, up to `most`; a class that starts above `most` sorts `most` keys with its set.
std::vector<std::uint64_t> checked_sizes(const ProblemClass& c, std::uint64_t most) {
  const std::uint64_t low = std::max<std::uint64_t>(c.min_keys, 1);
  if (low > most) return {most};
  const std::uint64_t high = std::min(c.max_keys, most);
  std::vector<std::uint64_t> sizes{low, std::min(high, (low + (high - low) / 2) | 1), high};
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

// Every distribution up to 2^16 keys; above, the ones that take the most different paths.
std::vector<Distribution> checked_distributions(std::uint64_t n) {
  if (n <= 65537) return all_distributions();
  return {Distribution::uniform, Distribution::few_distinct, Distribution::extremes};
}

template <class K>
void expect_class_sorts(Sorter& sorter, const TunedClass& c, std::uint64_t n) {
  const std::size_t value_bytes = c.problem.value_bytes;
  BOOST_TEST((sorter.params_for(key_type_of<K>(), value_bytes, n) == c.params),
             "n=" << n << " runs another set than the class's");
  const auto check = [&](Distribution d, const SortOptions& o) {
    std::vector<K> keys = make_keys<K>(d, n, n + static_cast<std::uint64_t>(d));
    if (value_bytes == 0)
      expect_sorted_keys(sorter, std::move(keys), o, to_string(d));
    else
      expect_sorted_pairs_of_width(sorter, std::move(keys), o, to_string(d), value_bytes);
  };
  for (Distribution d : checked_distributions(n)) check(d, {});
  check(Distribution::few_distinct, SortOptions{true});
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(profiles, ProfileFixture)

BOOST_AUTO_TEST_CASE(round_trip_and_class_lookup) {
  const Profile original = sample();
  const std::string path = (folder / "p.json").string();
  save_profile(original, path);
  const Profile loaded = load_profile(path);
  BOOST_TEST((loaded.device == original.device));
  BOOST_TEST(loaded.classes.size() == 1u);
  BOOST_TEST((loaded.classes[0].params == original.classes[0].params));
  BOOST_TEST(loaded.params_for(KeyType::f32, 0, 1000).has_value());  // width, not type, counts
  BOOST_TEST(!loaded.params_for(KeyType::u32, 0, 1 << 17).has_value());
  BOOST_TEST(!loaded.params_for(KeyType::u32, 4, 1000).has_value());
  BOOST_TEST(!loaded.params_for(KeyType::u64, 0, 1000).has_value());
  BOOST_TEST(profile_file_name(original.device).find(".json") != std::string::npos);
}

// A class of one key type (floats, say, where they run fastest with other parameters than the
// integers of their width) is taken for that type before the width's class; other types of the
// width, and the type outside its key counts, keep to the width's class.
BOOST_AUTO_TEST_CASE(a_key_types_class_comes_before_its_widths) {
  Profile profile = sample();
  Params floats = default_params(test_device(), 4, 0);
  floats.radix_bits = 3;
  TunedClass float_class{{32, 0, 1000, 3000}, floats, 1.2, 1.0};
  float_class.problem.key_type = KeyType::f32;
  profile.classes.push_back(float_class);  // after the width's, which also holds 2,000 keys
  const std::string path = (folder / "types.json").string();
  save_profile(profile, path);
  BOOST_TEST(!nlohmann::json::parse(std::ifstream(path))["classes"][0].contains("key_type"));
  BOOST_TEST(nlohmann::json::parse(std::ifstream(path))["classes"][1]["key_type"] == "f32");
  const Profile loaded = load_profile(path);
  BOOST_TEST((loaded.classes[1].problem.key_type == std::optional<KeyType>(KeyType::f32)));
  const Params& width = profile.classes[0].params;
  BOOST_TEST((loaded.params_for(KeyType::f32, 0, 2000) == floats));
  BOOST_TEST((loaded.params_for(KeyType::u32, 0, 2000) == width));
  BOOST_TEST((loaded.params_for(KeyType::i32, 0, 2000) == width));
  BOOST_TEST((loaded.params_for(KeyType::f32, 0, 5000) == width));
  BOOST_TEST(!loaded.params_for(KeyType::f32, 4, 2000).has_value());

  save("user/clsort/profiles/" + profile_file_name(profile.device), profile);
  Sorter sorter(test_queue());
  BOOST_TEST((sorter.params_for(KeyType::f32, 0, 2000) == floats));
  std::vector<float> keys(2000);
  for (std::size_t i = 0; i < keys.size(); ++i)
    keys[i] = static_cast<float>(static_cast<int>(i * 2654435761u % 4001) - 2000) / 7;
  std::vector<float> expected = keys;
  std::stable_sort(expected.begin(), expected.end());
  sorter.sort(keys);
  BOOST_TEST(std::memcmp(keys.data(), expected.data(), keys.size() * sizeof(float)) == 0);
}

BOOST_AUTO_TEST_CASE(saving_follows_links_and_writes_into_fifos) {
  const Profile original = sample();
  const fs::path target = folder / "target.json", link = folder / "link.json";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  save_profile(original, link.string());
  BOOST_TEST(fs::is_symlink(link));
  BOOST_TEST((load_profile(target.string()).device == original.device));

  // A FIFO stays a FIFO, and its reader gets the profile. The reader opens it first, without
  // waiting for a writer, and the profile fits the pipe's buffer: nothing blocks.
  const fs::path fifo = folder / "fifo";
  BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  BOOST_REQUIRE(reader >= 0);
  save_profile(original, fifo.string());
  std::string through_fifo;
  char buffer[4096];
  for (ssize_t got; (got = ::read(reader, buffer, sizeof buffer)) > 0;)
    through_fifo.append(buffer, static_cast<std::size_t>(got));
  ::close(reader);
  BOOST_TEST(fs::is_fifo(fifo));
  std::ofstream(folder / "copy.json") << through_fifo;
  BOOST_TEST((load_profile((folder / "copy.json").string()).device == original.device));
}

BOOST_AUTO_TEST_CASE(unusable_profiles_are_explained) {
  nlohmann::json good = sample();
  const auto expect = [&](const std::string& name, const std::string& text,
                          const std::string& fragment) {
    const std::string path = write(name, text);
    BOOST_CHECK_EXCEPTION(load_profile(path), Error, [&](const Error& e) {
      return message_has(e, name) && message_has(e, fragment);
    });
  };
  expect("corrupt.json", "{\"schema_version\": 1, ", "not valid JSON");
  // Found by fuzzing: a number too large for a double escaped as a nlohmann::json exception.
  expect("overflow.json", "{\"schema_version\": 1e963}", "not valid JSON");
  nlohmann::json schema = good;
  schema["schema_version"] = 2;
  expect("schema.json", schema.dump(), "schema_version 2; this library reads version 1");
  nlohmann::json missing = good;
  missing.erase("classes");
  expect("missing.json", missing.dump(), "missing field 'classes'");
  nlohmann::json missing_device = good;
  missing_device["device"].erase("vendor");
  expect("device.json", missing_device.dump(), "missing field 'vendor' in 'device'");
  // Found by fuzzing: a double outside an integer field's range was converted (undefined).
  const std::pair<const char*, nlohmann::json> numbers_out_of_place[] = {
      {"1e30", 1e30}, {"-1", -1}, {"1.5", 1.5}, {"string", "12"}, {"4294967296", 4294967296ull}};
  for (const auto& [label, number] : numbers_out_of_place) {
    nlohmann::json wrong_units = good, wrong_bits = good;
    wrong_units["device"]["compute_units"] = number;
    wrong_bits["classes"][0]["key_bits"] = number;
    if (std::string(label) != "4294967296")
      expect("units.json", wrong_units.dump(),
             "field 'compute_units' in 'device' has the wrong type");
    expect("bits.json", wrong_bits.dump(), "field 'key_bits' in classes[0] has the wrong type");
  }
  nlohmann::json no_type = good, wider_type = good, typed_number = good;
  no_type["classes"][0]["key_type"] = "f33";
  expect("no-type.json", no_type.dump(), "'key_type' in classes[0]: 'f33' is no key type");
  wider_type["classes"][0]["key_type"] = "f64";
  expect("wider-type.json", wider_type.dump(),
         "'key_type' in classes[0]: f64 keys are not 32 bits wide");
  typed_number["classes"][0]["key_type"] = 32;
  expect("typed-number.json", typed_number.dump(),
         "field 'key_type' in classes[0] has the wrong type");
  nlohmann::json stale = good;
  stale["kernel_hash"] = "0123456789abcdef";
  expect("stale.json", stale.dump(), "tuned for other kernels");
  nlohmann::json bad_param = good;
  bad_param["classes"][0]["params"]["radix_bits"] = 12;
  expect("param.json", bad_param.dump(), "classes[0].params");
  BOOST_CHECK_EXCEPTION(load_profile((folder / "absent.json").string()), Error,
                        [](const Error& e) { return message_has(e, "cannot open"); });
}

BOOST_AUTO_TEST_CASE(lookup_order) {
  Profile exact = sample();
  Profile similar = sample();  // same vendor and type, another device name
  similar.device.name = "some other device";
  similar.classes[0].params.radix_bits = 5;

  environment.set("CLSORT_PROFILE_PATH", (folder / "a").string() + ":" + (folder / "b").string());
  save("a/similar.json", similar);
  write("a/corrupt.json", "not json");
  ProfileSearch found = find_profile(test_device());
  BOOST_TEST(found.match == "same vendor and device type");
  BOOST_TEST(found.profile->classes[0].params.radix_bits == 5);
  BOOST_TEST(found.skipped.size() == 1u);
  BOOST_TEST(found.skipped[0].find("corrupt.json: not valid JSON") != std::string::npos);

  // An exact match wins over a similar one, in a later folder (here: the user folder) too.
  const std::string user = save("user/clsort/profiles/" + profile_file_name(exact.device), exact);
  found = find_profile(test_device());
  BOOST_TEST(found.match == "exact device");
  BOOST_TEST(found.path == user);

  // An earlier folder's exact match wins over a later one's.
  const std::string first = save("a/exact.json", exact);
  BOOST_TEST(find_profile(test_device()).path == first);

  // CLSORT_PROFILE overrides the folders, and an explicit path overrides that; both must load.
  const std::string chosen = save("chosen.json", similar);
  environment.set("CLSORT_PROFILE", chosen);
  found = find_profile(test_device());
  BOOST_TEST(found.path == chosen);
  BOOST_TEST(found.match == "given");
  BOOST_TEST(find_profile(test_device(), first).path == first);
  environment.set("CLSORT_PROFILE", (folder / "a/corrupt.json").string());
  BOOST_CHECK_THROW(find_profile(test_device()), Error);
  environment.set("CLSORT_PROFILE", "none");  // profiles off: the built-in defaults
  BOOST_TEST(!find_profile(test_device()).profile);
}

BOOST_AUTO_TEST_CASE(profiles_the_device_cannot_run_are_skipped) {
  // Valid parameters this device cannot run: a work-group beyond its limit where that is
  // below the parameter's range (GPUs), else warp_match ranking on a device without it (CPUs).
  Profile unrunnable = sample();
  Params& p = unrunnable.classes[0].params;
  const auto max_group = test_device().getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  if (max_group * 2 <= 4096) {
    p.work_group_size = static_cast<int>(max_group * 2);
  } else {
    p = Params{};
    p.elements_per_thread = 8;
    p.ranking = Ranking::warp_match;
    p.algorithm = Algorithm::onesweep;
  }
  environment.set("CLSORT_PROFILE_PATH", (folder / "a").string());
  save("a/too-big.json", unrunnable);
  const ProfileSearch found = find_profile(test_device());
  BOOST_TEST(!found.profile);
  BOOST_TEST(found.match == "none");
  BOOST_REQUIRE(found.skipped.size() == 1u);
  BOOST_TEST(found.skipped[0].find("do not run on this device") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_profile_of_the_same_device_with_other_compute_units_is_not_exact) {
  // A CPU profile sizes its blocks by the cores it was tuned on: a CPU with other cores passes it
  // over and says why. A GPU takes it as one of its vendor and type.
  Profile other_units = sample();
  other_units.device.compute_units += 3;
  environment.set("CLSORT_PROFILE_PATH", (folder / "a").string());
  const std::string path = save("a/" + profile_file_name(other_units.device), other_units);
  const ProfileSearch found = find_profile(test_device());
  if (identify(test_device()).type == "CPU") {
    BOOST_TEST(!found.profile);
    BOOST_TEST(found.match == "none");
    BOOST_REQUIRE(found.skipped.size() == 1u);
    const std::string why =
        path + ": tuned for " + std::to_string(other_units.device.compute_units) +
        " compute units; this CPU has " + std::to_string(other_units.device.compute_units - 3);
    BOOST_TEST(found.skipped[0] == why);
  } else {
    BOOST_TEST(found.match == "same vendor and device type");
    BOOST_TEST(found.path == path);
  }
  // With the device's own compute units it is the exact device again.
  const std::string exact = save("a/exact.json", sample());
  BOOST_TEST(find_profile(test_device()).match == "exact device");
  BOOST_TEST(find_profile(test_device()).path == exact);
}

BOOST_AUTO_TEST_CASE(sorter_uses_the_profile_and_overrides) {
  const Profile profile = sample();
  save("user/clsort/profiles/" + profile_file_name(profile.device), profile);
  Sorter sorter(test_queue());  // finds it in the user folder
  BOOST_TEST(sorter.profile_path().find("user/clsort/profiles") != std::string::npos);
  BOOST_TEST((sorter.params_for(KeyType::u32, 0, 5000) == profile.classes[0].params));
  BOOST_TEST((sorter.params_for(KeyType::u32, 0, 1 << 20) ==
              default_params(test_device(), 4, 0)));  // outside the profile's classes

  std::vector<std::uint32_t> keys(5000);
  for (std::size_t i = 0; i < keys.size(); ++i)
    keys[i] = static_cast<std::uint32_t>(i * 2654435761u);
  std::vector<std::uint32_t> expected = keys;
  std::sort(expected.begin(), expected.end());
  sorter.sort(keys);
  BOOST_TEST(keys == expected);

  Params override = default_params(test_device(), 4, 0);
  override.radix_bits = 3;
  sorter.set_params(KeyType::u32, 0, override);
  BOOST_TEST((sorter.params_for(KeyType::u32, 0, 5000) == override));
  for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = static_cast<std::uint32_t>(i * 40503u);
  expected = keys;
  std::sort(expected.begin(), expected.end());
  sorter.sort(keys);
  BOOST_TEST(keys == expected);
  Params impossible = override;
  impossible.work_group_size = 1 << 20;
  BOOST_CHECK_THROW(sorter.set_params(KeyType::u32, 0, impossible), Error);
}

BOOST_AUTO_TEST_CASE(every_shipped_profile_loads_with_these_kernels) {
  // A profile tuned for other kernels or written in another schema would be skipped without a
  // word on its device, which then runs the built-in defaults.
  int profiles = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CLSORT_SOURCE_DIR) / "configs")) {
    if (entry.path().extension() != ".json") continue;
    BOOST_TEST_CONTEXT(entry.path().filename().string()) {
      Profile profile;
      BOOST_REQUIRE_NO_THROW(profile = load_profile(entry.path().string()));
      BOOST_TEST(!profile.classes.empty());
      for (const TunedClass& c : profile.classes) {
        BOOST_CHECK_NO_THROW(validate(c.params));
        // Above a set's capacity the library runs the default, which the class would misname.
        BOOST_TEST(c.problem.max_keys <= most_keys(c.params), describe(c));
      }
    }
    ++profiles;
  }
  BOOST_TEST(profiles >= 4);
}

// Each class of the test device's shipped profile sorts bit for bit with its set, checked at the
// class's ends and between them, at most 2^18 + 1 keys (a class from further up sorts that many
// with its set): the tuner checked its sets on uniform keys only.
BOOST_AUTO_TEST_CASE(the_test_devices_shipped_profile_sorts_with_every_class,
                     *boost::unit_test::precondition(test_device_has_shipped_profile)) {
  const Profile profile = load_profile(shipped_profile_of_test_device().string());
  const std::uint64_t most = (1u << 18) + 1;
  for (const TunedClass& c : profile.classes) {
    BOOST_TEST_CONTEXT(describe(c)) {
      Sorter sorter(test_queue(), c.params);
      for_each_key_type([&](auto tag) {
        using K = typename decltype(tag)::type;
        if (!checked_type(c.problem, key_type_of<K>())) return;
        for (std::uint64_t n : checked_sizes(c.problem, most)) expect_class_sorts<K>(sorter, c, n);
      });
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
