// InputError: a problem with a user's file or arguments, reported with the file it concerns;
// UsageError: options that do not go together (exit status 2, like a parse error).
#pragma once

#include <stdexcept>
#include <string>

namespace clsort::cli {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& problem)
      : std::runtime_error(file.empty() ? problem : file + ": " + problem) {}
};

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace clsort::cli
