#pragma once
// The GRM's exact-integer products (genomics/grm.cpp, GrmParams::integer_products): the
// quantized weights and how a block's variants are packed into integer runs.
#include <cstdint>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/pass_engine.hpp"

namespace strata::genomics::grm_integer {

// Exact-integer products (GrmParams::integer_products) for variants with no missing call:
// Σ_v ŵ_v (g_iv − μ_v)(g_jv − μ_v) = S_ij − r_i − r_j + C with S_ij = Σ_v ŵ_v g_iv g_jv summed
// as integers (Backend::gram_panels_u8s8), r_i = Σ_v ŵ_v μ_v g_iv and C = Σ_v ŵ_v μ_v². ŵ_v =
// W_v·2^-k, W_v ≤ kWeightMax an integer of three 7-bit limbs: ~20 bits of the weight, i.e. the
// GRM of weights within 1e-6 of plink2's (a sum of positive terms: eigenvalues move less). Codes
// count the minor allele (g' = 2 − g where f > 1/2), which keeps S small. A run of a block's
// variants (exponents k within K − 6 … K) sums at scale 2^-K with codes times 2^(K − k) ≤ 64
// (the u8 side holds 2·64): every weight keeps its ~20 bits and a 1,000-sample block needs 2
// runs, not one per exponent. Each run joins the float64 sums once: the same bits for any tiling.
constexpr int64_t kWeightMax = 63 * (1 + 128 + 16384);  // the largest three-limb value
constexpr int64_t kMaxQuads = 16384;                    // Backend::gram_panels_u8s8's limit
constexpr int kMaxShift = 6;                            // codes × 2^6 ≤ 128 fit the u8 side
constexpr int64_t kTableBytes = 80;                     // Backend::pack_u8s8's table per quad

struct IntWeight {
  int k = 0;            // ŵ = w · 2^-k
  int64_t w = 0, a = 0;  // a ≈ w·μ': the centring weight (its rounding moves r only along 1)
  bool flip = false;
};

struct IntRun {
  int64_t quad0 = 0, quads = 0;
  double scale = 0.0;
};

// Where a block's rows go: float32 panel rows, and integer runs (quads of rows, tables).
struct BlockPlan {
  std::vector<int32_t> float_rows, quad_rows;  // block-relative rows (4 per quad)
  std::vector<uint8_t> tables;
  std::vector<IntRun> runs;
  int64_t quads = 0;
};

// Where a block's rows go (see above), from the weights of the kept variants, for rows
// [v0, v0 + rows) of them.
BlockPlan plan_block(const std::vector<IntWeight>& iw, const std::vector<uint8_t>& eligible, int64_t v0,
                     int64_t rows);

// acc += the integer runs' products of a lower tile (a diagonal tile: its lower half and
// diagonal), from the block's packed integer panels.
Status add_integer_product(const backend::Backend& be, const BlockPlan& bp, const uint8_t* codes,
                           const int8_t* limbs, int64_t npad, const SymmetricTiles::Tile& tile, double* acc);

}  // namespace strata::genomics::grm_integer
