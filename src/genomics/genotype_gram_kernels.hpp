#pragma once
// The per-group arithmetic of the genotype Gram products (genotype_gram.hpp): the fixed
// partition of a pass into groups, tiles and sample slices, and GroupKernels, which computes a
// group's partial wherever its codes are and adds partials into the pass's result. Shared by
// the operator (genotype_gram.cpp) and the workers' group functions.
#include <cstdint>
#include <utility>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/genotype_gram.hpp"
#include "strata/io/genotype.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::backend {
class Backend;
}

namespace strata::genomics::gram {

// Variants per tile of phase 1 (a multiple of the kernels' 6-row blocks).
constexpr int64_t kTileRows = 96;
// Tiles per group: phase 1 runs the group's tiles in parallel, phase 2 its sample slices.
// Fixed (not derived from the thread count) so the summation order never changes.
constexpr int64_t kGroupTiles = 32;
constexpr int64_t kGroupRows = kGroupTiles * kTileRows;
static_assert(kGroupRows == kGenotypeGramGroupVariants);
// Column blocks of the kernels: widths are padded to a multiple of this.
constexpr int64_t kLanes = 8;
// Code buffers end with one spare row (the integer phase-2 kernel reads the partner of an odd
// last row) and this much slack (kernels read up to 7 bytes past a row).
constexpr int64_t kSlack = 64;

// Per-variant terms of the integer path: a code g ∈ {0, 1, 2} standardizes to α·g + β and a
// missing call (code 3) to λ; the integer kernels see the raw code, so a missing call needs the
// correction γ = λ − 3α − β.
struct LinearCode {
  double alpha = 0, beta = 0, gamma = 0;
  bool has_missing = false;
};

// Missing calls of one tile: (row within the group, sample).
using MissingCalls = std::vector<std::pair<int32_t, int32_t>>;

// A dense block rounded for the integer kernels: column c is qscale[c]·qt[c·ld + i] with
// |qt| ≤ 32767; qsum[c] = Σ_i qt[c·ld + i] (exact).
struct Int16Block {
  std::vector<int16_t> qt;
  std::vector<double> qscale;
  std::vector<int64_t> qsum;
  int64_t ld = 0;
};

// The per-group arithmetic every Gram product shares, whether the pass runs here or its groups
// run where the codes are (remote workers): the standardization table of the rows it covers
// and the fixed tile and slice partition. A group's contribution is computed by
// group_partial() and made a dense vector [Zᵀ_g | bias_g] by dense_partial(), in one place;
// the pass sums those in the fixed tree over groups (core/tree_sum.hpp): the same bits
// wherever the partials were computed and however the groups are split across ranks.
class GroupKernels {
 public:
  GroupKernels(const Context& ctx, std::vector<float> luts, std::vector<LinearCode> linear, int64_t n,
               Precision arithmetic);

  // What one pass multiplies: Q (gram) or X (project) prepared for the kernels.
  struct Operand {
    int64_t cols = 0, w = 0;
    std::vector<float> qt;  // float32 path and project: w × n16, transposed
    Int16Block qi;          // int16 and mixed gram
    std::vector<uint8_t> qpacked;  // qi in the backend's own layout (empty: it reads qi.qt)
  };

  int64_t samples() const { return n_; }
  int64_t stride() const { return stride_; }
  Precision arithmetic() const { return arithmetic_; }

  Result<Operand> gram_operand(const linalg::DenseMatrix& q) const;
  Operand project_operand(const linalg::DenseMatrix& x) const;
  // Q as the int16 kernels see it (GramOperator::operand of the mixed arithmetic).
  linalg::DenseMatrix rounded(const linalg::DenseMatrix& q) const;

  // Rows [g0, g0 + rows) of the table (at most kGroupRows) with codes `gcodes` (stride(), one
  // spare row and kSlack bytes readable past them): its phase-2 sums and, for int16, the
  // rounded A_g·Q̃ and missing calls that dense_partial() turns into the centring and missing
  // terms.
  Status group_partial(const Operand& op, int64_t g0, int64_t rows, const uint8_t* gcodes,
                       GenotypeGramPartial& out) const;
  // Group g0's partial as one dense vector: Zᵀ_g (w × n16) with its missing-call terms, then
  // its centring bias (w).
  Result<std::vector<double>> dense_partial(const Operand& op, int64_t g0, GenotypeGramPartial&& part) const;
  int64_t partial_width(const Operand& op) const { return op.w * n16_ + op.w; }
  // Y (n × cols) = Zᵀ + the centring bias, from the summed dense partials.
  linalg::DenseMatrix finish(const Operand& op, const std::vector<double>& total) const;

  // Rows g0.. of A·X (rows × cols, row-major) into `out`.
  Status project_group(const Operand& op, int64_t g0, int64_t rows, const uint8_t* gcodes,
                       std::vector<double>& out) const;

 private:
  ThreadPool& pool() const { return ctx_.pool(); }
  std::vector<float> transposed_f32(const linalg::DenseMatrix& a, int64_t w) const;
  Status tile_products_int16(const backend::Backend& be, const Operand& op, int64_t t, int64_t r0, int64_t rows,
                             const uint8_t* codes, int64_t w, double* tt, MissingCalls& miss) const;
  void round_group(int64_t g0, int64_t group_rows, int64_t w, std::vector<double>& tg, std::vector<int16_t>& wpairs,
                   std::vector<double>& wscale) const;
  template <class SliceFn>
  Status for_each_slice(SliceFn&& fn) const;

  Context ctx_;  // a handle: the pool and backend the kernels run on
  std::vector<float> luts_;
  std::vector<LinearCode> linear_;
  int64_t n_, n16_, n32_, stride_;
  Precision arithmetic_;
};

// The standardization of the kept variants (`kept`, indices into `counts`) of n samples:
// float32 tables and the linear terms.
Result<GroupKernels> make_kernels(const Context& ctx, const std::vector<VariantCounts>& counts,
                                  const std::vector<int64_t>& kept, Standardization scale, int64_t n,
                                  Precision arithmetic);

}  // namespace strata::genomics::gram
