// Run files hold tuples (item, value, position); the merge pops the smallest field from a heap.
#include "run_merge.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <queue>

#include "atomic_file.hpp"
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
    const std::size_t bytes =
        static_cast<std::size_t>(std::min<std::uint64_t>(remaining_ * tuple_, buffer_.size()));
    const ssize_t got = ::pread(fd_, buffer_.data(), bytes, static_cast<off_t>(offset_));
    if (got != static_cast<ssize_t>(bytes))
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
    if (::pwrite(fd_, block.data(), block.size(), static_cast<off_t>(end_ + start * tuple)) !=
        static_cast<ssize_t>(block.size()))
      throw InputError(folder_,
                       std::string("cannot write a temporary run (-T): ") + std::strerror(errno));
  }
  runs_.push_back({end_, sorted.count});
  end_ += sorted.count * tuple;
  items_ += sorted.count;
}

void RunMerger::merge(std::uint64_t buffer_bytes, std::uint64_t batch_items, bool unique,
                      const std::function<void(Chunk&)>& emit) {
  const std::size_t tuple = tuple_size(), item = spec_.layout.item_size;
  const std::size_t buffer_tuples = buffer_bytes / std::max<std::size_t>(runs_.size(), 1) / tuple;
  std::vector<RunCursor> cursors;
  for (const Run& run : runs_)
    cursors.emplace_back(fd_, run.offset, run.count, tuple, buffer_tuples, folder_);

  using Head = std::pair<std::uint64_t, std::size_t>;  // (field, run): ties go to earlier runs
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heads;
  const SortField field(spec_);
  for (std::size_t r = 0; r < cursors.size(); ++r)
    if (!cursors[r].done()) heads.emplace(field(cursors[r].current()), r);

  Chunk batch;
  const auto flush = [&] {
    if (batch.count) emit(batch);
    batch.first += batch.count;
    batch.count = 0;
    batch.items.clear();
    batch.values.clear();
    batch.positions.clear();
  };
  bool emitted = false;
  std::uint64_t last_field = 0;
  while (!heads.empty()) {
    const auto [key, r] = heads.top();
    heads.pop();
    const char* source = cursors[r].current();
    if (!unique || !emitted || key != last_field) {
      batch.items.insert(batch.items.end(), source, source + item);
      batch.values.insert(batch.values.end(), source + item, source + item + spec_.value_size);
      if (spec_.positions) {
        std::uint64_t position;
        std::memcpy(&position, source + item + spec_.value_size, 8);
        batch.positions.push_back(position);
      }
      emitted = true;
      last_field = key;
      if (++batch.count == batch_items) flush();
    }
    cursors[r].advance();
    if (!cursors[r].done()) heads.emplace(field(cursors[r].current()), r);
  }
  flush();
}

}  // namespace clsort::cli
