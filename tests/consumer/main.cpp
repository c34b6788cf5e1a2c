// Sorts a few keys through an installed clsort; exits 0 only if they come out in order.
#include <clsort/clsort.hpp>

#include <algorithm>
#include <vector>

int main() {
  clsort::Sorter sorter(clsort::make_queue(clsort::find_device("").device));
  std::vector<int> keys{5, -3, 9, 0, -3, 7};
  sorter.sort(keys);
  return std::is_sorted(keys.begin(), keys.end()) ? 0 : 1;
}
