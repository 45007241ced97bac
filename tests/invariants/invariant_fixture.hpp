#pragma once
// The invariants every algorithm is held to, as one reusable check: the same bits for 1, 2 and
// 3 threads, for every storage layout of the input (two chunkings, in memory or on disk), and
// in core or out of core (a budget too small to hold the data), with the peak of tracked
// memory inside the budget of the out-of-core runs.

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/context.hpp"
#include "testing/testing.hpp"

namespace strata::testing {

/// What an algorithm run returns for comparison: every number of its result, in a fixed order.
using ResultBits = std::vector<double>;

/// One algorithm under test. `run(ctx, layout)` runs it on storage layout `layout` (0 ..
/// layouts-1) with the resources of `ctx` and returns its numbers.
struct InvariantCase {
  std::string name;
  int layouts = 1;
  std::function<Result<ResultBits>(const Context&, int layout)> run;
  /// Out-of-core budget: small enough that the algorithm must stream; 0 = skip that check.
  int64_t small_budget = 0;
};

inline bool same_bits(const ResultBits& a, const ResultBits& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline Context invariant_context(int threads, int64_t budget) {
  ContextOptions o;
  o.threads = threads;
  o.memory_budget = budget;
  return *Context::make(o);
}

/// Run every combination and compare with layout 0, 1 thread, default budget.
inline void expect_invariants(const InvariantCase& c) {
  SCOPED_TRACE(c.name);
  auto ref = c.run(invariant_context(1, 0), 0);
  ASSERT_TRUE(ref.ok()) << ref.status().to_string();
  ASSERT_FALSE(ref->empty());
  for (int layout = 0; layout < c.layouts; ++layout) {
    for (int threads : {1, 2, 3}) {
      auto r = c.run(invariant_context(threads, 0), layout);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      EXPECT_TRUE(same_bits(*r, *ref)) << "layout " << layout << ", " << threads << " threads";
    }
  }
  if (c.small_budget > 0) {
    for (int threads : {1, 3}) {
      reset_peak_memory();
      const Context ctx = invariant_context(threads, c.small_budget);
      auto r = c.run(ctx, 0);
      ASSERT_TRUE(r.ok()) << r.status().to_string();
      EXPECT_TRUE(same_bits(*r, *ref)) << "out of core, " << threads << " threads";
      const int64_t peak = ctx.report().snapshot().peak_tracked_bytes;
      EXPECT_LE(peak, c.small_budget) << "peak tracked memory " << format_bytes(peak) << " over the budget "
                                      << format_bytes(c.small_budget);
    }
  }
}

}  // namespace strata::testing
