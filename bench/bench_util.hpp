#pragma once
// Helpers shared by the bench/ drivers: wall clock and medians over repeated runs.

#include <algorithm>
#include <chrono>
#include <vector>

namespace strata::bench {

/// Seconds on a monotonic clock.
inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// Median of repeated timings (upper median for an even count); 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace strata::bench
