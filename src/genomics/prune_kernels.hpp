#pragma once
// The integer kernels of LD pruning (prune_kernels.cpp): a variant's calls over a group of
// samples as bit planes H (homozygous), P (hom REF) and M (called), and the pair sums r² needs,
// one implementation per CPU level (STRATA_CPU caps the choice; the counts are exact at every
// level, so the pruning is the same).
#include <cstdint>

namespace strata::genomics::detail {

// Calls of one variant over one group: planes H (homozygous), P (hom REF), M (called).
// No initializers: fill() sets every field, and the sweep's arrays of them stay cheap.
struct GroupStats {
  int64_t n, sum, ssq, hom_ref, hom_alt;  // sum of +1/0/−1 codes, of squares
  bool complete;
};

// Every kernel sets every field (no initializers: the sweep's arrays of them stay cheap).
struct PairParts {
  int64_t n, dot, sa, qa, sb, qb;
};

// The sums of `a` against each of `b[0, count)`, count <= kMaxBatch: the sweep asks for the
// next few kept variants of a scan at once (a hit among them ends the scan; the pairs after it
// are wasted, and hits are rare), so `a` is loaded once for all of them. With `sa` and every
// `sb` complete only the cross products are counted (n and the sums come from the stats).
inline constexpr int kMaxBatch = 5;
using PairManyFn = void (*)(const uint64_t* a, const uint64_t* const* b, int count, int64_t w, const GroupStats& sa,
                            const GroupStats* const* sb, PairParts* out);

// Planes H, P, M of a packed row of every view sample (`bytes` bytes of codes), `words` words
// each, zero past the samples. Each fill orders the samples its own way; every variant of a
// group is filled by the same one, and pair sums do not depend on the order.
using FillAllFn = void (*)(const uint8_t* row, int64_t bytes, int64_t words, uint64_t* h, uint64_t* p, uint64_t* m);
// Popcounts of a variant's three planes (`w` words each, H then P then M).
using CountFn = void (*)(const uint64_t* planes, int64_t w, int64_t* hom, int64_t* ref, int64_t* n);

// bound_r2 (prune_internal.hpp) of the pairs (a, b[j]), j < count <= kMaxBatch, from their
// cross products `dot`: bit j of *above (*below) is set where it answers kAbove (kBelow).
using BoundFn = void (*)(const int64_t* dot, const GroupStats& a, const GroupStats* const* b, int count,
                         int64_t group, double thresh, uint32_t* above, uint32_t* below);

PairManyFn pick_pair_fn();
BoundFn pick_bound_fn();
FillAllFn pick_fill_all();
CountFn pick_count();

// Words of a group's plane: whole 512-bit vectors (the pair kernels need no tail) that also
// hold the SIMD fills' blocks.
inline int64_t plane_words(int64_t samples) { return (samples + 511) / 512 * 8; }

}  // namespace strata::genomics::detail
