// A range's merge takes the smallest field from a tournament tree over its run slices' heads; the
// ranges are independent, so several merge at once and are emitted in order.
#include "run_merge.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <future>
#include <optional>

namespace clsort::cli {
namespace {

// Reads one run slice's columns in order through buffers of its own.
class SliceCursor {
 public:
  SliceCursor(const RunStore& runs, std::size_t run, RunSlice slice, std::uint64_t buffer_items)
      : runs_(&runs),
        run_(run),
        next_(slice.begin),
        end_(slice.end),
        buffer_items_(std::max<std::uint64_t>(1, buffer_items)) {
    for (int c = 0; c < 3; ++c) buffers_[c].resize(buffer_items_ * runs.column_width(c));
  }

  bool done() const { return position_ == filled_ && next_ == end_; }
  // The current item's column `c`.
  const char* current(int c) {
    if (position_ == filled_) refill();
    return buffers_[c].data() + position_ * runs_->column_width(c);
  }
  void advance() { ++position_; }

 private:
  void refill() {
    const std::uint64_t count = std::min(buffer_items_, end_ - next_);
    for (int c = 0; c < 3; ++c)
      if (runs_->column_width(c)) runs_->read(c, run_, next_, count, buffers_[c].data());
    next_ += count;
    position_ = 0;
    filled_ = count;
  }

  const RunStore* runs_;
  std::size_t run_;
  std::uint64_t next_, end_, buffer_items_;
  std::vector<char> buffers_[3];
  std::uint64_t position_ = 0, filled_ = 0;
};

// The smallest power of two >= n (1 for 0).
std::size_t power_of_two_at_least(std::size_t n) {
  std::size_t power = 1;
  while (power < n) power <<= 1;
  return power;
}

// A tournament over the slices' head items: node i holds the winner of its subtree, the slice
// with the smallest (field, run index); taking an item replays only the winner's path (log k).
class Tournament {
 public:
  explicit Tournament(std::size_t runs)
      : leaves_(power_of_two_at_least(runs)),
        field_(leaves_),
        done_(leaves_, true),
        tree_(2 * leaves_) {
    for (std::size_t i = 0; i < leaves_; ++i) tree_[leaves_ + i] = static_cast<std::uint32_t>(i);
  }

  void set(std::size_t run, std::optional<std::uint64_t> field) {
    done_[run] = !field;
    field_[run] = field.value_or(0);
  }
  void build() {
    for (std::size_t node = leaves_ - 1; node > 0; --node) replay(node);
  }
  void update(std::size_t run) {
    for (std::size_t node = (leaves_ + run) / 2; node > 0; node /= 2) replay(node);
  }
  bool empty() const { return done_[winner()]; }
  std::size_t winner() const { return leaves_ > 1 ? tree_[1] : 0; }

 private:
  void replay(std::size_t node) {
    const std::uint32_t a = tree_[2 * node], b = tree_[2 * node + 1];
    const bool a_wins =
        !done_[a] && (done_[b] || field_[a] < field_[b] || (field_[a] == field_[b] && a < b));
    tree_[node] = a_wins ? a : b;
  }
  std::size_t leaves_;
  std::vector<std::uint64_t> field_;
  std::vector<char> done_;
  std::vector<std::uint32_t> tree_;
};

}  // namespace

void merge_range(const RunStore& runs, const MergeRange& range, Chunk& out) {
  const std::size_t k = range.slices.size();
  const std::size_t item = runs.column_width(0), value = runs.column_width(1);
  const bool positions = runs.column_width(2) != 0;
  out.count = range.items;
  out.items.resize(range.items * item);
  out.values.resize(range.items * value);
  out.positions.resize(positions ? range.items : 0);

  // A few MiB of read buffers in all, however many runs there are.
  const std::uint64_t tuple = item + value + (positions ? 8 : 0);
  const std::uint64_t buffer_items = std::max<std::uint64_t>(256, (4u << 20) / tuple / k);
  std::vector<SliceCursor> cursors;
  cursors.reserve(k);
  for (std::size_t run = 0; run < k; ++run)
    cursors.emplace_back(runs, run, range.slices[run],
                         std::min(buffer_items, range.slices[run].size()));

  const SortField field(runs.spec());
  Tournament tournament(k);
  const auto head = [&](std::size_t run) {
    return cursors[run].done() ? std::nullopt : std::optional(field(cursors[run].current(0)));
  };
  for (std::size_t run = 0; run < k; ++run) tournament.set(run, head(run));
  tournament.build();
  for (std::uint64_t i = 0; !tournament.empty(); ++i) {
    const std::size_t run = tournament.winner();
    SliceCursor& cursor = cursors[run];
    std::memcpy(out.items.data() + i * item, cursor.current(0), item);
    if (value) std::memcpy(out.values.data() + i * value, cursor.current(1), value);
    if (positions) std::memcpy(&out.positions[i], cursor.current(2), 8);
    cursor.advance();
    tournament.set(run, head(run));
    tournament.update(run);
  }
}

void merge_on_host(const RunStore& runs, const std::vector<MergeRange>& ranges, unsigned workers,
                   const std::function<void(Chunk&)>& emit) {
  std::deque<std::future<Chunk>> merging;
  std::size_t next = 0;
  std::uint64_t first = 0;
  const auto launch = [&] {
    const MergeRange* range = &ranges[next++];
    merging.push_back(std::async(std::launch::async, [&runs, range] {
      Chunk merged;
      merge_range(runs, *range, merged);
      return merged;
    }));
  };
  try {
    while (next < ranges.size() || !merging.empty()) {
      while (next < ranges.size() && merging.size() < std::max(1u, workers)) launch();
      Chunk merged = merging.front().get();
      merging.pop_front();
      merged.first = first;
      first += merged.count;
      emit(merged);
    }
  } catch (...) {
    for (std::future<Chunk>& pending : merging) pending.wait();  // they read the run files
    throw;
  }
}

}  // namespace clsort::cli
