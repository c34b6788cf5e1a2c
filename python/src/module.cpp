// clsort._clsort: the nanobind bridge from the Python package to clsort::Sorter, one per device.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include <clsort/clsort.hpp>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// Contiguous host arrays of any element type: the package hands over keys and values so.
using HostArray = nb::ndarray<nb::c_contig, nb::device::cpu>;
// The same, only read (a NumPy array that is not writeable is accepted).
using HostInput = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;

// A device's Sorter and the lock that keeps its calls one at a time (the GIL is released while
// a sort runs, and a Sorter is not thread-safe).
struct DeviceSorter {
  std::mutex lock;
  std::unique_ptr<clsort::Sorter> sorter;
  std::string description;
};

DeviceSorter& sorter_for(const std::string& spec) {
  static std::mutex registry_lock;
  static std::map<std::string, std::unique_ptr<DeviceSorter>> sorters;
  const std::lock_guard<std::mutex> guard(registry_lock);
  std::unique_ptr<DeviceSorter>& entry = sorters[spec];
  if (!entry) {
    const clsort::DeviceEntry device = clsort::find_device(spec);
    auto created = std::make_unique<DeviceSorter>();
    created->sorter = std::make_unique<clsort::Sorter>(clsort::make_queue(device.device));
    created->description =
        device.description.device_name + " (" + device.description.platform_name + ")";
    entry = std::move(created);
  }
  return *entry;
}

clsort::KeyType key_type_named(const std::string& name) {
  const std::optional<clsort::KeyType> type = clsort::parse_key_type(name);
  if (!type) throw nb::value_error(("unknown key type '" + name + "'").c_str());
  return *type;
}

// Sorts keys_in (with values_in of value_bytes each, or none) into keys_out (values_out), which
// may be the same arrays.
void sort_into(const void* keys_in, void* keys_out, std::size_t n, const std::string& key_type,
               const void* values_in, void* values_out, std::size_t value_bytes, bool descending,
               const std::string& device) {
  const clsort::KeyType type = key_type_named(key_type);
  DeviceSorter& d = sorter_for(device);
  clsort::SortOptions options;
  options.descending = descending;
  nb::gil_scoped_release released;
  const std::lock_guard<std::mutex> guard(d.lock);
  d.sorter->sort_host_bytes_into(keys_in, keys_out, n, type, values_in, values_out, value_bytes,
                                 options);
}

void sort_keys(HostArray keys, const std::string& key_type, bool descending,
               const std::string& device) {
  sort_into(keys.data(), keys.data(), keys.size(), key_type, nullptr, nullptr, 0, descending,
            device);
}

void sort_keys_into(HostInput keys, HostArray sorted, const std::string& key_type, bool descending,
                    const std::string& device) {
  if (sorted.nbytes() != keys.nbytes()) throw nb::value_error("sorted must be the size of keys");
  sort_into(keys.data(), sorted.data(), keys.size(), key_type, nullptr, nullptr, 0, descending,
            device);
}

void check_values(std::size_t value_total, std::size_t n, std::size_t value_bytes) {
  if (value_total != n * value_bytes)
    throw nb::value_error("values must hold one element of value_bytes per key");
}

void sort_pairs(HostArray keys, HostArray values, std::size_t value_bytes,
                const std::string& key_type, bool descending, const std::string& device) {
  check_values(values.nbytes(), keys.size(), value_bytes);
  sort_into(keys.data(), keys.data(), keys.size(), key_type, values.data(), values.data(),
            value_bytes, descending, device);
}

void sort_pairs_into(HostInput keys, HostInput values, HostArray sorted_keys,
                     HostArray sorted_values, std::size_t value_bytes, const std::string& key_type,
                     bool descending, const std::string& device) {
  check_values(values.nbytes(), keys.size(), value_bytes);
  if (sorted_keys.nbytes() != keys.nbytes() || sorted_values.nbytes() != values.nbytes())
    throw nb::value_error("sorted_keys and sorted_values must be the sizes of keys and values");
  sort_into(keys.data(), sorted_keys.data(), keys.size(), key_type, values.data(),
            sorted_values.data(), value_bytes, descending, device);
}

// Sorters of callers' own queues (pyopencl's), by queue handle; each keeps its queue retained.
DeviceSorter& sorter_for_queue(std::uintptr_t handle) {
  static std::mutex registry_lock;
  static std::map<std::uintptr_t, std::unique_ptr<DeviceSorter>> sorters;
  const std::lock_guard<std::mutex> guard(registry_lock);
  std::unique_ptr<DeviceSorter>& entry = sorters[handle];
  if (!entry) {
    auto created = std::make_unique<DeviceSorter>();
    cl::CommandQueue queue(reinterpret_cast<cl_command_queue>(handle), /*retainObject=*/true);
    created->sorter = std::make_unique<clsort::Sorter>(std::move(queue));
    entry = std::move(created);
  }
  return *entry;
}

// Enqueues a sort of device buffers on a caller's queue, into keys_out and values_out (0: in
// place); returns once it is enqueued.
void sort_buffers(std::uintptr_t queue, std::uintptr_t keys, std::size_t n,
                  const std::string& key_type, std::uintptr_t values, std::size_t value_bytes,
                  bool descending, std::uintptr_t keys_out, std::uintptr_t values_out) {
  const clsort::KeyType type = key_type_named(key_type);
  DeviceSorter& d = sorter_for_queue(queue);
  clsort::SortOptions options;
  options.descending = descending;
  // Python never sees the event, and the queue orders what follows: no event spares NVIDIA's
  // driver about 2 us a sort.
  options.return_event = false;
  const auto buffer = [](std::uintptr_t handle, std::uintptr_t otherwise) {
    return cl::Buffer(reinterpret_cast<cl_mem>(handle ? handle : otherwise),
                      /*retainObject=*/true);
  };
  const cl::Buffer key_buffer = buffer(keys, 0), key_output = buffer(keys_out, keys);
  nb::gil_scoped_release released;
  const std::lock_guard<std::mutex> guard(d.lock);
  if (value_bytes == 0) {
    d.sorter->sort_into(key_buffer, key_output, n, type, options);
    return;
  }
  const cl::Buffer value_buffer = buffer(values, 0), value_output = buffer(values_out, values);
  d.sorter->sort_pairs_into(key_buffer, value_buffer, key_output, value_output, n, type,
                            value_bytes, options);
}

// (specification, platform, device, kind, profile path, how it matched) for every device.
std::vector<
    std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>>
devices() {
  std::vector<
      std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>>
      result;
  for (const clsort::DeviceEntry& entry : clsort::list_devices()) {
    const clsort::DeviceDescription& d = entry.description;
    const clsort::ProfileSearch profile = clsort::find_profile(entry.device);
    result.emplace_back(std::to_string(d.platform_index) + ":" + std::to_string(d.device_index),
                        d.platform_name, d.device_name,
                        d.is_gpu ? "gpu" : (d.is_cpu ? "cpu" : "other"), profile.path,
                        profile.match);
  }
  return result;
}

// (device description, profile path or "" for the built-in defaults) of a device specification.
std::tuple<std::string, std::string> device_in_use(const std::string& spec) {
  DeviceSorter& d = sorter_for(spec);
  return {d.description, d.sorter->profile_path()};
}

}  // namespace

NB_MODULE(_clsort, m) {
  m.doc() = "clsort's C++ library; use the functions of the clsort package instead.";
  nb::exception<clsort::Error>(m, "Error", PyExc_RuntimeError);
  m.def("sort_keys", &sort_keys, "keys"_a, "key_type"_a, "descending"_a, "device"_a);
  m.def("sort_keys_into", &sort_keys_into, "keys"_a, "sorted"_a, "key_type"_a, "descending"_a,
        "device"_a);
  m.def("sort_pairs_into", &sort_pairs_into, "keys"_a, "values"_a, "sorted_keys"_a,
        "sorted_values"_a, "value_bytes"_a, "key_type"_a, "descending"_a, "device"_a);
  m.def("sort_pairs", &sort_pairs, "keys"_a, "values"_a, "value_bytes"_a, "key_type"_a,
        "descending"_a, "device"_a);
  m.def("sort_buffers", &sort_buffers, "queue"_a, "keys"_a, "n"_a, "key_type"_a, "values"_a,
        "value_bytes"_a, "descending"_a, "keys_out"_a, "values_out"_a);
  m.def("devices", &devices);
  m.def("device_in_use", &device_in_use, "device"_a);
}
