#pragma once
// Contexts for tests: the shared default one, and ones with a given thread count and budget
// (results must not depend on either).

#include <cstdint>

#include "strata/core/context.hpp"

namespace strata::testing {

/// \brief Default resources (all hardware threads, half the memory), shared by a test binary.
inline const Context& test_ctx() {
  static const Context ctx;
  return ctx;
}

/// \brief A fresh context with `threads` workers and a memory budget (0 = default).
inline Context make_test_context(int threads, int64_t memory_budget = 0) {
  ContextOptions o;
  o.threads = threads;
  o.memory_budget = memory_budget;
  return *Context::make(o);
}

}  // namespace strata::testing
