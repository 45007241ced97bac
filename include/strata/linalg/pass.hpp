#pragma once
/// \file
/// The sink through which a tall factor (U, Q) leaves an algorithm block by block instead of
/// being held, and the pass settings the streaming linear algebra takes (strata::PassOptions:
/// rows per block; threads, budget and progress come from the Context).

#include <cstdint>
#include <functional>

#include "strata/core/pass_engine.hpp"
#include "strata/core/status.hpp"

namespace strata::linalg {

/// \brief Receives rows [row0, row0 + nrows) of a tall rows × k factor as a row-major
/// nrows × k block. Called from pool threads, possibly concurrently, for disjoint row ranges
/// covering every row exactly once (in no particular order). An error stops the pass.
using FactorSink = std::function<Status(int64_t row0, int64_t nrows, int64_t k, const double* block)>;

}  // namespace strata::linalg
