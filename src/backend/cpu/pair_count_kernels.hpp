#pragma once
// Pair-count kernels of the CPU backend (strata/backend/backend.hpp, pair_code_counts): joint
// counts of genotype codes for every pair of a tile of samples, from bit planes (one bit per
// variant for "het", "hom-alt" and "observed") with AND + popcount. Integer sums, so every
// implementation returns the same bits.

#include <cstdint>

#include "strata/backend/backend.hpp"

namespace strata::backend::cpu {

/// Offset of plane p, word w of sample s in a planes buffer of `words` words per sample
/// (backend.hpp's CodePlanesView layout); shared by every level's kernels.
inline int64_t plane_at(int64_t s, int64_t words, int64_t w, int64_t p) {
  return (((s / kCodePlaneLanes) * words + w) * kCodePlaneCount + p) * kCodePlaneLanes + s % kCodePlaneLanes;
}
/// Columns of a count tile: cols rounded up to a plane group.
inline int64_t round8(int64_t x) { return (x + kCodePlaneLanes - 1) / kCodePlaneLanes * kCodePlaneLanes; }

/// counts[(f·rows + i)·ldc + j] += the pair counts of field f (backend.hpp's PairCountField)
/// of samples row0 + i and col0 + j over words [0, words) of the planes; ldc = cols rounded up
/// to 8, col0 a multiple of 8.
using PairCountsFn = void (*)(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                              int64_t cols, int64_t* counts);

/// Bit planes of `rows` packed code rows (≤ 64 per word, variant k of the block at bit k):
/// writes word `word` of every sample's three planes (het, hom-alt, observed).
using CodePlanesFn = void (*)(const uint8_t* codes, int64_t stride, int64_t rows, int64_t samples, uint64_t* planes,
                              int64_t words, int64_t word);

/// The KING counts (backend.hpp's KingCountField), same layout with 5 fields; on a diagonal
/// tile (row0 = col0) pairs with j > i may be skipped.
struct PairCountKernels {
  PairCountsFn counts;
  CodePlanesFn planes;
  PairCountsFn king;
};

const PairCountKernels& pair_counts_portable();
/// The portable level's counts and KING kernels (pair_count_portable.cpp): lanes over a plane
/// group's 8 column samples in plain loops the compiler vectorizes, SWAR byte counts.
void pair_counts_vector_portable(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                 int64_t cols, int64_t* counts);
void king_counts_vector_portable(const uint64_t* planes, int64_t words, int64_t row0, int64_t rows, int64_t col0,
                                 int64_t cols, int64_t* counts);
/// Scalar kernels compiled with the POPCNT instruction; nullptr when the CPU lacks it.
const PairCountKernels* pair_counts_popcnt();
/// AVX2 kernels (nibble lookups, pair_count_avx2.cpp; planes as the POPCNT kernel); nullptr
/// when the CPU lacks AVX2 or POPCNT.
const PairCountKernels* pair_counts_avx2();
/// AVX-512 VPOPCNTDQ kernels; nullptr when the CPU lacks AVX-512 F/VPOPCNTDQ.
const PairCountKernels* pair_counts_avx512();

}  // namespace strata::backend::cpu
