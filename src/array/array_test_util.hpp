#pragma once
// Helpers shared by the array and exec unit tests.

#include <cstring>
#include <vector>

#include "core/test_context.hpp"
#include "strata/array/ops.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/exec/run.hpp"
#include "testing/testing.hpp"

namespace strata::testing {

/// Chunkings exercised by most tests: 1-element, uneven edges, one chunk, larger than the array.
inline std::vector<Shape> chunkings_2d() { return {{1, 1}, {2, 3}, {3, 2}, {4, 5}, {7, 7}, {100, 100}}; }

/// Compute `a` with `threads` threads (0 = the default) on a fresh context and return its
/// values as T; `report` (optional) receives what the run recorded.
template <class T>
std::vector<T> values(const Array& a, int threads = 0, RunReport* report = nullptr) {
  const Context ctx = make_test_context(threads);
  auto r = compute(ctx, a);
  if (report) *report = ctx.report().snapshot();
  EXPECT_TRUE(r.ok()) << r.status().to_string();
  if (!r.ok()) return {};
  return r->template to_vector<T>();
}

/// A host array of shape `shape` with values f(i) for C-order index i.
template <class T, class F>
Array host(const Shape& shape, const Shape& chunks, F f) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<T>(f(i));
  auto h = HostArray::from_vector(v, shape);
  EXPECT_TRUE(h.ok());
  return Array::from_host(*h, chunks);
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

}  // namespace strata::testing
