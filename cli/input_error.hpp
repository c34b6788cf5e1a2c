// InputError: a problem with a user's file or arguments, reported with the file it concerns.
#pragma once

#include <stdexcept>
#include <string>

namespace clsort::cli {

class InputError : public std::runtime_error {
 public:
  InputError(const std::string& file, const std::string& problem)
      : std::runtime_error(file.empty() ? problem : file + ": " + problem) {}
};

}  // namespace clsort::cli
