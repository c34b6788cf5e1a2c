// Interrupt cleanup: on Ctrl-C or termination, temporary files are removed before the exit.
#pragma once

#include <functional>
#include <string>

namespace clsort::cli {

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and so in every thread it starts
/// later) and handles them on a thread of their own: each registered temporary file is removed
/// and the process exits with status 128 + the signal number. Call first thing in main().
void install_interrupt_cleanup();

/// Runs `create` (which makes a file and returns its path) and adds the file to those an
/// interrupt must remove, as one step that an interrupt cannot split: the cleanup never misses a
/// file just made.
std::string create_temporary(const std::function<std::string()>& create);

/// Forgets a registered file (after removing it, or once it has been renamed into place).
void forget_temporary(const std::string& path);

/// Runs `publish` (the rename of `path` into place) and forgets `path` as one step that an
/// interrupt cannot split: the cleanup never removes a file that has just become an output.
void publish_temporary(const std::string& path, const std::function<void()>& publish);

}  // namespace clsort::cli
