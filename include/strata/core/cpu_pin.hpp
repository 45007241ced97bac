#pragma once
/// \file
/// \brief STRATA_CPU: one process-wide cap on the CPU instruction-set level that every kernel
/// dispatch uses (the CPU backend's kernel tables, the random module). An AVX-512 machine run
/// with STRATA_CPU=avx2 runs exactly the kernels an AVX2-only CPU runs, so tests and benchmarks
/// on one machine cover what users of every level get. Read once, at the first dispatch.

#include <string>

#include "strata/core/status.hpp"

namespace strata {

/// \brief The levels STRATA_CPU names, lowest first (backend::CpuIsa's order, less Best). The
/// aarch64 level comes last: a pin at any x86 level leaves an aarch64 CPU portable, and "neon"
/// caps nothing on x86.
inline constexpr const char* kCpuLevelNames[] = {"portable", "avx2", "avx2-vnni", "avx512", "avx512-vnni",
                                                 "avx512-amx", "neon"};
inline constexpr int kCpuLevelCount = 7;
/// Indices of kCpuLevelNames that kernels outside the backend test against (cpu_pin().max_level).
inline constexpr int kCpuLevelAvx2 = 1;
inline constexpr int kCpuLevelAvx512 = 3;

/// \brief The cap STRATA_CPU sets.
struct CpuPin {
  std::string text;  ///< the variable as given; "" when unset or empty (no cap)
  /// Highest level allowed, an index into kCpuLevelNames: the named level, kCpuLevelCount - 1
  /// when unset, and 0 (portable) when the text names no level, so a misspelt pin never runs
  /// faster kernels than asked; cpu_pin_status() reports that case.
  int max_level = kCpuLevelCount - 1;
  bool valid = true;
};

/// \brief STRATA_CPU as read once per process.
const CpuPin& cpu_pin();
/// \brief Invalid ("STRATA_CPU='avx3': not a CPU level (portable, avx2, …)") when the variable
/// names no level; OK otherwise. The CLI and the Python module refuse to start on it.
Status cpu_pin_status();

}  // namespace strata
