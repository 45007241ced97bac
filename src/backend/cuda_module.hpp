#pragma once
// The boundary between the library and the CUDA module (libstrata_cuda.so, src/backend/cuda/):
// the module exports one C symbol returning this table; cuda_loader.cpp opens the module and
// calls through it. Both sides are built from this header by the same build, and the table
// carries its version, so a module from another build is refused rather than misread.
#include <string>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/result.hpp"

namespace strata::backend::cuda_module {

inline constexpr int kApiVersion = 3;  // 3: capability interfaces, BenchDeviceOps
inline constexpr const char* kEntrySymbol = "strata_cuda_module_api";
inline constexpr const char* kModuleFile = "libstrata_cuda.so";

struct Api {
  int version = kApiVersion;
  /// Devices visible to the CUDA runtime; Unsupported "no CUDA device (cudaGetDeviceCount: …)"
  /// when the driver or a device is missing.
  Result<int> (*device_count)() = nullptr;
  /// A backend on `devices` (one, or cuda:all's); operations it does not offload run on `cpu`
  /// (same contracts), and so do small dense ones when `small_dense_on_host`.
  Result<BackendPtr> (*make)(const std::vector<int>& devices, BackendPtr cpu, bool small_dense_on_host) = nullptr;
  /// "nvcc 13.0, sm_80;90" — what the module was built with.
  const char* build_info = "";
};

}  // namespace strata::backend::cuda_module

extern "C" const strata::backend::cuda_module::Api* strata_cuda_module_api();
