// Progress drawing: redrawn at most ten times a second, with \r on one line of stderr.
#include "progress.hpp"

#include <cstdio>

namespace clsort::cli {
namespace {

std::string percent(std::uint64_t done, std::uint64_t total) {
  if (total == 0) return "";
  char text[16];
  std::snprintf(text, sizeof text, "%3.0f%%", 100.0 * static_cast<double>(done) / total);
  return text;
}

std::string bar(std::uint64_t done, std::uint64_t total, int width) {
  const int filled = total ? static_cast<int>(static_cast<double>(done) / total * width) : 0;
  return "[" + std::string(filled, '#') + std::string(width - filled, '.') + "]";
}

}  // namespace

Progress::Progress(bool enabled, std::uint64_t total_bytes)
    : enabled_(enabled), total_bytes_(total_bytes) {}

void Progress::start_file(const std::string& name, std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  file_ = name;
  file_bytes_ = bytes;
  file_done_ = 0;
  draw(true);
}

void Progress::advance(std::uint64_t bytes) {
  std::lock_guard lock(mutex_);
  file_done_ += bytes;
  done_bytes_ += bytes;
  draw(false);
}

void Progress::clear() {
  std::lock_guard lock(mutex_);
  if (!shown_) return;
  std::fputs("\r\033[K", stderr);
  shown_ = false;
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? done_bytes_ / seconds : 0;
  std::string eta;
  if (total_bytes_ > done_bytes_ && rate > 0) {
    char text[32];
    std::snprintf(text, sizeof text, " ETA %.0fs", (total_bytes_ - done_bytes_) / rate);
    eta = text;
  }
  std::string name = file_.size() > 32 ? "..." + file_.substr(file_.size() - 29) : file_;
  std::fprintf(stderr, "\r\033[K%s %s %s | total %s %s %.1f MB/s%s", name.c_str(),
               bar(file_done_, file_bytes_, 20).c_str(), percent(file_done_, file_bytes_).c_str(),
               bar(done_bytes_, total_bytes_, 20).c_str(),
               percent(done_bytes_, total_bytes_).c_str(), rate / 1e6, eta.c_str());
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace clsort::cli
