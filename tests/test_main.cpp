// The test runner: Boost.Test, header-only so the binary needs no Boost library where it runs.
#define BOOST_TEST_MODULE clsort
#include <boost/test/included/unit_test.hpp>
