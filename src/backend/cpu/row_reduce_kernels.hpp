#pragma once
// Row-pair reduction kernels of the CPU backend (strata/backend/backend.hpp, row_pair_reduce):
// the direct forms of the float distance metrics, skipping coordinates where either value is
// NaN. Every implementation sums coordinate k into partial sum k mod 8, in order, and adds the
// eight partials in one fixed tree, so they all return the same bits.

#include <cstdint>

#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {

/// out[i·ldo + j] = reduction of a row i and b row j over d coordinates; observed (may be null)
/// the same layout, counting coordinates where neither is NaN.
using RowReduceFn = void (*)(RowReduce op, double p, const double* a, int64_t lda, int64_t rows, const double* b,
                             int64_t ldb, int64_t cols, int64_t d, double* out, int64_t ldo, int64_t* observed);

void row_reduce_portable(RowReduce op, double p, const double* a, int64_t lda, int64_t rows, const double* b,
                         int64_t ldb, int64_t cols, int64_t d, double* out, int64_t ldo, int64_t* observed);
/// AVX-512 F kernels (Minkowski runs the portable one); nullptr when the CPU lacks AVX-512 F.
RowReduceFn row_reduce_avx512();

}  // namespace strata::backend::cpu
