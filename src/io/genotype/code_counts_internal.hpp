#pragma once
// Counting the 2-bit codes of a packed row (sample j in bits 2(j mod 4) of byte j/4) inside the
// genotype layer, for sources that count straight from their storage (GenotypeView::
// count_genotypes) without handing rows to the backend.

#include <cstdint>

namespace strata::io::detail {

/// counts[c] += samples of the first n of `row` with code c (0-3). Pairs past n are ignored.
void add_code_counts(const uint8_t* row, int64_t n, int64_t counts[4]);

/// Set bits among the first `bits` bits of `p` (bit k of byte k/8).
int64_t count_set_bits(const uint8_t* p, int64_t bits);

}  // namespace strata::io::detail
