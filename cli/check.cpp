// Sortedness check: compares each key's sort field with the previous one, across chunk ends.
#include "check.hpp"

#include <optional>

#include "chunk_sort.hpp"
#include "input_error.hpp"
#include "text_keys.hpp"

namespace clsort::cli {
namespace {

// Position of the first item whose field is smaller than the one before it, within a row.
class OrderCheck {
 public:
  OrderCheck(const SortSpec& spec) : field_(spec), row_length_(spec.row_length) {}

  // Looks at `count` items of `size` bytes; false at the first one out of order.
  bool feed(const char* items, std::uint64_t count, std::size_t size) {
    for (std::uint64_t i = 0; i < count; ++i, ++position_) {
      const std::uint64_t current = field_(items + i * size);
      const bool row_start = row_length_ && position_ % row_length_ == 0;
      if (previous_ && !row_start && current < *previous_) return false;
      previous_ = current;
    }
    return true;
  }
  std::uint64_t position() const { return position_; }

 private:
  SortField field_;
  std::uint64_t row_length_;
  std::optional<std::uint64_t> previous_;
  std::uint64_t position_ = 0;
};

std::string where(const SortSpec& spec, std::uint64_t position) {
  if (!spec.row_length) return "element " + std::to_string(position);
  return "row " + std::to_string(position / spec.row_length) + ", element " +
         std::to_string(position % spec.row_length);
}

}  // namespace

bool check_sorted(const std::string& path, const ReadOptions& read, const SortOptions& options,
                  std::uint64_t memory_budget, std::ostream& out) {
  InputFile input(path, read);
  SortSpec spec;
  spec.layout = input.layout();
  spec.options = options;
  std::optional<TextKeys> text;
  if (input.format() == FileFormat::text) {
    text = parse_text_keys(input.read_rest(), input.name(), input.layout().key_type);
    spec.layout = {text->type, key_size(text->type), 0, false};
  }
  if (!spec.layout.key_type)
    throw InputError(input.name(), "dtype '" + input.descr() + "' cannot be a sort key");
  if (input.format() == FileFormat::npy && input.shape().size() > 1)
    spec.row_length = input.shape().back();

  OrderCheck check(spec);
  bool sorted = true;
  if (text) {
    sorted = check.feed(text->keys.data(), text->lines.size(), spec.layout.item_size);
  } else {
    const std::uint64_t chunk = std::max<std::uint64_t>(1, memory_budget / spec.layout.item_size);
    std::vector<char> items;
    while (sorted) {
      items.clear();
      const std::uint64_t count = input.read_items(items, chunk);
      if (count == 0) break;
      sorted = check.feed(items.data(), count, spec.layout.item_size);
    }
  }
  if (sorted)
    out << input.name() << ": sorted (" << check.position() << " keys)\n";
  else
    out << input.name() << ": not sorted: " << where(spec, check.position())
        << " is out of order\n";
  return sorted;
}

}  // namespace clsort::cli
