#pragma once
/// \file
/// Decode kernels for packed 2-bit genotype codes (see genotype.hpp for the code order).
///
/// Every kernel reads one packed row of `n` codes (⌈n/4⌉ bytes, sample-minor) and writes `n`
/// outputs; rows of a block are decoded independently, so callers parallelise over rows or
/// blocks. The float kernels map code c to `lut[c]` through a per-variant 4-entry table:
/// build it with genomics::make_standardize_lut (strata/genomics/qc.hpp) to get standardized genotypes
/// with missing → 0 after centring (mean imputation). On x86-64 the kernels pick AVX-512 or
/// AVX2 at run time (one `vpermps` maps 8 or 16 codes), with a portable fallback.
/// Kernels do not fail and do not allocate.
///
/// \code
/// float lut[4];
/// genomics::make_standardize_lut(counts[v], genomics::Standardization::Binom2, lut);
/// io::decode_row_f32(block.row(v), block.sample_count, lut, out + v * ld);
/// \endcode

#include <cstdint>
#include <string>

namespace strata::io {

/// \brief out[j] = lut[code j], j < n.
void decode_row_f32(const uint8_t* codes, int64_t n, const float lut[4], float* out);
/// \brief out[j] = lut[code j], j < n.
void decode_row_f64(const uint8_t* codes, int64_t n, const double lut[4], double* out);
/// \brief ALT dosage as int8 (0, 1, 2), missing → −1.
void decode_row_i8(const uint8_t* codes, int64_t n, int8_t* out);

/// \brief Bit planes of one row, ⌈n/64⌉ words each, bit j of word j/64 for sample j:
/// `one` = dosage bit 0 (heterozygous), `two` = dosage bit 1 (homozygous ALT),
/// `observed` = call present. Missing calls and bits past n are 0 in all three, so
/// dosage = one + 2·two and popcount kernels need no masking.
void decode_row_bitplanes(const uint8_t* codes, int64_t n, uint64_t* one, uint64_t* two,
                          uint64_t* observed);

/// \brief Decode a block of `rows` rows (`stride` bytes apart) into a row-major float matrix
/// with leading dimension `ld` ≥ n; `luts` holds 4 entries per row.
void decode_block_f32(const uint8_t* codes, int64_t rows, int64_t n, int64_t stride,
                      const float* luts, float* out, int64_t ld);
/// \brief As decode_block_f32 for double.
void decode_block_f64(const uint8_t* codes, int64_t rows, int64_t n, int64_t stride,
                      const double* luts, double* out, int64_t ld);

/// \brief Counts of each code in one row of n codes: counts[c] for c = 0..3.
void count_codes(const uint8_t* codes, int64_t n, int64_t counts[4]);

/// \brief Which implementation the dispatching kernels use ("avx512", "avx2" or "portable").
std::string decode_kernel_isa();

/// \brief Force an implementation for tests/benchmarks ("avx512", "avx2", "portable"); returns
/// false (and changes nothing) when the CPU lacks it. Not thread-safe with running kernels.
bool set_decode_kernel_isa(const std::string& isa);

}  // namespace strata::io
