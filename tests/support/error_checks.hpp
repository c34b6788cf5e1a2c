// Whether an error's message names what it should: the predicate of BOOST_CHECK_EXCEPTION.
#pragma once

#include <exception>
#include <string>

#include <boost/test/unit_test.hpp>

namespace clsort::test {

/// Whether the error's message contains `fragment`; where it does not, logs the message.
inline bool message_has(const std::exception& e, const std::string& fragment) {
  const bool found = std::string(e.what()).find(fragment) != std::string::npos;
  if (!found) BOOST_TEST_MESSAGE("message was: " << e.what());
  return found;
}

}  // namespace clsort::test
