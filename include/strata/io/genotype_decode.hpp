#pragma once
/// \file
/// Integer decoders for packed 2-bit genotype codes (see genotype.hpp for the code order).
///
/// Every decoder reads one packed row of `n` codes (⌈n/4⌉ bytes, sample-minor) and writes `n`
/// outputs; they do not fail and do not allocate. Decoding to float through a per-variant
/// table and counting codes are backend operations, vectorized per instruction set:
/// strata::backend::Backend::decode and count_codes (strata/backend/backend.hpp), with tables
/// from genomics::make_standardize_lut (strata/genomics/qc.hpp).
///
/// \code
/// const auto& be = strata::backend::of(ctx);
/// STRATA_RETURN_NOT_OK(be.decode({block.row(0), rows, n, block.stride}, luts, backend::row_major(out, rows, n)));
/// \endcode

#include <cstdint>

namespace strata::io {

/// \brief ALT dosage as int8 (0, 1, 2), missing → −1.
void decode_row_i8(const uint8_t* codes, int64_t n, int8_t* out);

/// \brief Bit planes of one row, ⌈n/64⌉ words each, bit j of word j/64 for sample j:
/// `one` = dosage bit 0 (heterozygous), `two` = dosage bit 1 (homozygous ALT),
/// `observed` = call present. Missing calls and bits past n are 0 in all three, so
/// dosage = one + 2·two and popcount kernels need no masking.
void decode_row_bitplanes(const uint8_t* codes, int64_t n, uint64_t* one, uint64_t* two,
                          uint64_t* observed);

/// \brief The even bits of `x` gathered into the low 32 bits (bit 2k → bit k): one bit of each
/// 2-bit code of a packed word.
inline uint64_t compact_even_bits(uint64_t x) {
  x &= 0x5555555555555555ull;
  x = (x | (x >> 1)) & 0x3333333333333333ull;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0Full;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFull;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFull;
  return (x | (x >> 16)) & 0x00000000FFFFFFFFull;
}

}  // namespace strata::io
