// Includes OpenCL-CLHPP (CL/opencl.hpp) configured the way clsort is built: OpenCL 1.2 API level.
#pragma once

// clsort targets the OpenCL 1.2 API so that it runs on every OpenCL device; include this header
// (or define the same macros) before any other inclusion of CL/opencl.hpp in your program.
#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif

#include <CL/opencl.hpp>
