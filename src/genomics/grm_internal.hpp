#pragma once
// The GRM pass's shared pieces (genomics/grm.cpp runs the pass; genomics/grm_reader.cpp reads
// its blocks): the panel layout, the plan fixed before a pass, and the block reader.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/large_alloc.hpp"
#include "genomics/grm_integer.hpp"
#include "genomics/grm_sparse.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics::grm_detail {

using grm_integer::BlockPlan;
using grm_integer::IntWeight;

// Panels are packed for the backend's fused tile kernel (Backend::gram_panels_f32): a block's
// rows go in runs of kFloat32Run variants, and each run holds the samples in groups of 32, group
// g a run × 32 row-major block. Samples past n are zero.
constexpr int64_t kGroup = kGrmSampleGroup;

// Variants a product sums before its partial sums join the float64 accumulators (float64
// panels use the same runs: their layout, and a 32 KiB group block per run that stays in L1).
// For float32: variants a float32 product sums before its partial sums go to float64. Off the diagonal
// partial sums wander near zero and 128 keeps the GRM within ~5e-8 of a float64 sum (512: ~1e-7
// on HapMap3) for ~2 % of the pass in extra adds; the diagonal's only grow (Σ x²), so diagonal
// tiles take their diagonal from an exact float64 sum of squares. Fixed: it decides the bits.
constexpr int64_t kFloat32Run = 128;

// The two panels of one variant block: standardized values and, for pairwise counts, the
// missing indicators of the block's rows that have missing calls (both packed as above); with
// integer products the float32 panel holds only the block's float rows, the rest go to the
// integer panels (codes, limbs) and their per-run centring sums.
struct Panels {
  // Not zeroed on resize: decode_run writes every element of a panel's rows, padding included
  // (zeroing two 8 MiB panels first cost a memset pass on top of the page faults); in huge
  // pages (core/large_alloc.hpp: their first touch took ~4 µs per 4 KiB page).
  std::vector<float, strata::detail::LargeBlockAllocator<float>> values[2], missing[2];
  // Float64 panels (GrmPlan::f64) in place of `values`, packed the same way.
  std::vector<double, strata::detail::LargeBlockAllocator<double>> values64[2];
  int64_t rows[2] = {0, 0}, mrows[2] = {0, 0}, block[2] = {0, 0};
  std::vector<uint8_t> codes[2], mcodes[2], fcodes[2];
  // The integer panels likewise: pack_u8s8 writes every byte, padding included.
  std::vector<uint8_t, strata::detail::LargeBlockAllocator<uint8_t>> icodes[2];
  std::vector<int8_t, strata::detail::LargeBlockAllocator<int8_t>> ilimbs[2];
  std::vector<int64_t> rsum[2];
  // The sparse float64 route (GrmPlan::sparse): per run of kSparseRun variants, each sample's
  // list (a kSparseRun slot), its part lengths, centring sum u, and per variant of the run the
  // missing calls' coefficient (grm_sparse.hpp).
  std::vector<uint8_t, strata::detail::LargeBlockAllocator<uint8_t>> entries[2];
  std::vector<uint8_t> counts[2];
  std::vector<double> centre_u[2], coef[2];
  // With pairwise counts: per variant of the block, the samples it misses (ascending).
  std::vector<std::vector<int32_t>> missing_samples[2];
};

// What one GRM pass computes, fixed before it starts: the variants kept and their tables, the
// integer products' weights and block plans, the tile grid, the blocks and the bands.
struct GrmPlan {
  GrmInfo info;
  int64_t n = 0, m = 0;  // samples; variants kept
  io::GenotypeViewPtr kept_view;
  std::vector<float> luts;           // standardized value per code, 4 per kept variant
  bool f64 = false;                  // float64 panels and products (GrmParams::float64)
  std::vector<double> luts64;        // with f64: the tables in float64 (sparse: the y tables)
  // The sparse float64 route (f64 on codes): a sample's x is x_ref + c·d per variant, c the
  // copies of the minor allele; rows add c·y = c·d·x over their non-zero c only.
  bool sparse = false;
  std::vector<grm_sparse::SparseVariant> sv;
  std::vector<uint8_t> has_missing;  // per kept variant
  bool pairwise = false;             // M_ab per pair: both-missing counts ride along
  bool dosages = false;              // the panels come from the view's dosages (plink2 --make-rel on them)
  // Integer products (GrmParams::integer_products where the backend has a fast one).
  bool integer = false;
  std::vector<uint8_t> eligible;  // per kept variant: summed as integers
  std::vector<IntWeight> iw;
  double centre_c = 0.0;  // C = Σ ŵ μ'² (as Σ 2^-k a μ': the same rounding as r)
  std::vector<BlockPlan> block_plans;
  SymmetricTiles tiles;
  int64_t tile = 0, block_variants = 0, num_blocks = 0, stride = 0, npad = 0;
  std::vector<std::pair<int64_t, int64_t>> bands;  // tile rows [R0, R1) per pass
  int64_t block_rows(int64_t b) const { return std::min(block_variants, m - b * block_variants); }
};

// Reads each block of the pass into the panels of its slot: float32 standardized rows, the
// missing indicators (pairwise counts) and, with integer products, the packed integer runs and
// (once per block, in block order) their centring sums r.
class BlockReader {
 public:
  BlockReader(const Context& ctx, const GrmPlan& plan)
      : plan_(plan), be_(backend::of(ctx)), pool_(ctx.pool()), pipelined_(pipelined_reads(ctx)),
        centre_r_(static_cast<size_t>(plan.integer ? plan.npad : 0), 0.0) {}

  const Panels& panels() const { return p_; }
  // r of the integer products (complete once every block was read).
  const std::vector<double>& centre_r() const { return centre_r_; }
  int64_t centred_blocks() const { return centred_blocks_; }

  Status read(int64_t b, int slot);

 private:
  // A block's pieces run on the reader thread in order when it has one, else on the workers
  // (the panels are the same bits either way: each piece writes its own rows).
  Status each(int64_t count, const std::function<Status(int64_t)>& fn) const;

  // Read and decode the block in runs of rows.
  Status read_float_block(int64_t b, int slot, int64_t rows);

  // The sparse route: per run of kSparseRun rows, the codes, the y panel and the row lists
  // (grm_sparse::build_sparse_run), and with pairwise counts each variant's missing samples.
  Status read_sparse_block(int64_t b, int slot, int64_t rows);

  // With dosages: each run of rows read as floats and written through its tables into the
  // packed panel (as decode_run lays it out), and the missing indicators of the rows that
  // have missing dosages into the missing panel.
  Status read_dosage_block(int64_t b, int slot, int64_t rows);

  // With integer products: read the block's codes, decode its float rows, pack its runs, and
  // (once per block, in block order) add the runs' centring sums to r.
  Status read_integer_block(int64_t b, int slot, int64_t rows);

  // Only rows with missing calls add to the both-missing counts: gather and decode them.
  Status read_missing_rows(int64_t b, int slot, int64_t rows);

  const GrmPlan& plan_;
  const backend::Backend& be_;
  ThreadPool& pool_;
  const bool pipelined_;
  Panels p_;
  std::vector<double> centre_r_;  // r (the first band's reads)
  int64_t centred_blocks_ = 0;
};

}  // namespace strata::genomics::grm_detail
