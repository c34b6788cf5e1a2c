// Run files hold tuples (item, value, position); the merge takes the smallest field from a
// tournament tree over the runs' heads.
#include "run_merge.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>
#include <optional>

#include "fd_io.hpp"
#include "input_error.hpp"

namespace clsort::cli {
namespace {

// Reads one run's tuples in order through its own buffer.
class RunCursor {
 public:
  RunCursor(int fd, std::uint64_t offset, std::uint64_t count, std::size_t tuple,
            std::size_t buffer_tuples, const std::string& folder)
      : fd_(fd),
        offset_(offset),
        remaining_(count),
        tuple_(tuple),
        folder_(&folder),
        buffer_(std::max<std::size_t>(buffer_tuples, 1) * tuple) {}

  bool done() const { return position_ == filled_ && remaining_ == 0; }
  const char* current() {
    if (position_ == filled_) refill();
    return buffer_.data() + position_;
  }
  void advance() { position_ += tuple_; }

 private:
  void refill() {
    const auto bytes =
        static_cast<std::size_t>(std::min<std::uint64_t>(remaining_ * tuple_, buffer_.size()));
    if (!read_fully_at(fd_, buffer_.data(), bytes, offset_))
      throw InputError(*folder_,
                       std::string("cannot read a temporary run back: ") + std::strerror(errno));
    offset_ += bytes;
    remaining_ -= bytes / tuple_;
    position_ = 0;
    filled_ = bytes;
  }

  int fd_;
  std::uint64_t offset_;
  std::uint64_t remaining_;
  std::size_t tuple_;
  const std::string* folder_;
  std::vector<char> buffer_;
  std::size_t position_ = 0;
  std::size_t filled_ = 0;
};

// The smallest power of two >= n (1 for 0).
std::size_t power_of_two_at_least(std::size_t n) {
  std::size_t power = 1;
  while (power < n) power <<= 1;
  return power;
}

// A tournament over the runs' head tuples: node i holds the winner of its subtree, the run with
// the smallest (field, run index); taking a tuple replays only the winner's path (log k).
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
  std::uint64_t winning_field() const { return field_[winner()]; }

 private:
  void replay(std::size_t node) {
    const std::uint32_t a = tree_[2 * node], b = tree_[2 * node + 1];
    const bool a_wins =
        !done_[a] && (done_[b] || field_[a] < field_[b] || (field_[a] == field_[b] && a < b));
    tree_[node] = a_wins ? a : b;
  }
  std::size_t leaves_;
  std::vector<std::uint64_t> field_;
  std::vector<bool> done_;
  std::vector<std::uint32_t> tree_;
};

int unlinked_temporary_file(const std::string& folder) {
  std::string pattern = (std::filesystem::path(folder) / "clsort-run-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    throw InputError(folder,
                     std::string("cannot create a temporary file (-T): ") + std::strerror(errno));
  ::unlink(pattern.c_str());
  return fd;
}

}  // namespace

RunMerger::RunMerger(const SortSpec& spec, const std::string& folder)
    : spec_(spec), folder_(folder), fd_(unlinked_temporary_file(folder)) {}

RunMerger::~RunMerger() {
  ::close(fd_);
}

std::size_t RunMerger::tuple_size() const {
  return spec_.layout.item_size + spec_.value_size + (spec_.positions ? 8 : 0);
}

void RunMerger::add_run(const Chunk& sorted) {
  const std::size_t tuple = tuple_size(), item = spec_.layout.item_size;
  const auto write = [&](const char* data, std::size_t bytes, std::uint64_t offset) {
    if (!write_fully_at(fd_, data, bytes, offset))
      throw InputError(folder_,
                       std::string("cannot write a temporary run (-T): ") + std::strerror(errno));
  };
  if (tuple == item) {  // items alone: written as they are
    write(sorted.items.data(), sorted.count * item, end_);
  } else {
    constexpr std::uint64_t block_tuples = 1 << 14;
    std::vector<char> block;
    for (std::uint64_t start = 0; start < sorted.count; start += block_tuples) {
      const std::uint64_t count = std::min(block_tuples, sorted.count - start);
      block.resize(count * tuple);
      for (std::uint64_t i = 0; i < count; ++i) {
        char* out = block.data() + i * tuple;
        std::memcpy(out, sorted.items.data() + (start + i) * item, item);
        if (spec_.value_size)
          std::memcpy(out + item, sorted.values.data() + (start + i) * spec_.value_size,
                      spec_.value_size);
        if (spec_.positions)
          std::memcpy(out + item + spec_.value_size, &sorted.positions[start + i], 8);
      }
      write(block.data(), block.size(), end_ + start * tuple);
    }
  }
  runs_.push_back({end_, sorted.count});
  end_ += sorted.count * tuple;
  items_ += sorted.count;
}

void RunMerger::merge(std::uint64_t buffer_bytes, std::uint64_t batch_items, bool unique,
                      const std::function<void(Chunk&)>& emit) {
  const std::size_t tuple = tuple_size(), item = spec_.layout.item_size;
  const std::size_t values = spec_.value_size;
  // Large reads are no faster beyond a few MiB; the rest of the budget would only sit idle.
  const std::uint64_t per_run =
      std::min<std::uint64_t>(buffer_bytes / std::max<std::size_t>(runs_.size(), 1), 16 << 20);
  std::vector<RunCursor> cursors;
  for (const Run& run : runs_)
    cursors.emplace_back(fd_, run.offset, run.count, tuple, per_run / tuple, folder_);

  const SortField field(spec_);
  Tournament tournament(cursors.size());
  for (std::size_t r = 0; r < cursors.size(); ++r)
    tournament.set(r,
                   cursors[r].done() ? std::nullopt : std::optional(field(cursors[r].current())));
  tournament.build();

  // Two batches: one is filled while the other is written.
  Chunk batches[2];
  for (Chunk& batch : batches) {
    batch.items.resize(batch_items * item);
    batch.values.resize(batch_items * values);
    if (spec_.positions) batch.positions.resize(batch_items);
  }
  std::future<void> writing;
  std::uint64_t first = 0;
  int filling = 0;
  const auto flush = [&] {
    Chunk& batch = batches[filling];
    if (batch.count == 0) return;
    if (writing.valid()) writing.get();
    batch.first = first;
    first += batch.count;
    writing = std::async(std::launch::async, [&emit, &batch] {
      emit(batch);
      batch.count = 0;
    });
    filling = 1 - filling;
  };

  bool emitted = false;
  std::uint64_t last_field = 0;
  while (!tournament.empty()) {
    const std::size_t r = tournament.winner();
    const std::uint64_t key = tournament.winning_field();
    const char* source = cursors[r].current();
    if (!unique || !emitted || key != last_field) {
      Chunk& batch = batches[filling];
      const std::uint64_t i = batch.count;
      std::memcpy(batch.items.data() + i * item, source, item);
      if (values) std::memcpy(batch.values.data() + i * values, source + item, values);
      if (spec_.positions) std::memcpy(&batch.positions[i], source + item + values, 8);
      emitted = true;
      last_field = key;
      if (++batch.count == batch_items) flush();
    }
    cursors[r].advance();
    tournament.set(r,
                   cursors[r].done() ? std::nullopt : std::optional(field(cursors[r].current())));
    tournament.update(r);
  }
  flush();
  if (writing.valid()) writing.get();
}

}  // namespace clsort::cli
