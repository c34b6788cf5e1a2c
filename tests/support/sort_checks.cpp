// The whole-sort checks of every key type and value width, compiled once for every suite.
#include "support/sort_checks.hpp"

namespace clsort::test {
CLSORT_SORT_CHECKS()
}  // namespace clsort::test
