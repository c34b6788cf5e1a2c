// The clsort library: include this one header for the whole public API.
#pragma once

#include "clsort/device.hpp"
#include "clsort/error.hpp"
#include "clsort/key_order.hpp"
#include "clsort/opencl.hpp"
#include "clsort/params.hpp"
#include "clsort/profile.hpp"
#include "clsort/sorter.hpp"
#include "clsort/types.hpp"
#include "clsort/version.hpp"
