// GramOperator over standardized 2-bit genotype codes (see genotype_gram.hpp).
#include "strata/genomics/genotype_gram.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "genomics/standardize_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/core/tree_sum.hpp"

namespace strata::genomics {
namespace {

// Variants per tile of phase 1 (a multiple of the kernels' 6-row blocks).
constexpr int64_t kTileRows = 96;
// Tiles per group: phase 1 runs the group's tiles in parallel, phase 2 its sample slices.
// Fixed (not derived from the thread count) so the summation order never changes.
constexpr int64_t kGroupTiles = 32;
constexpr int64_t kGroupRows = kGroupTiles * kTileRows;
static_assert(kGroupRows == kGenotypeGramGroupVariants);
// Samples per phase-2 slice (a multiple of 16).
constexpr int64_t kSliceCols = 192;
// Column blocks of the kernels: widths are padded to a multiple of this.
constexpr int64_t kLanes = 8;
// The projection's float kernel (codes_times) blocks 4 columns, and each column's sums are
// independent of the others: k = 10 loadings run 12 columns instead of 16, same bits.
constexpr int64_t kProjectLanes = 4;
// Code buffers end with one spare row (the integer phase-2 kernel reads the partner of an odd
// last row) and this much slack (kernels read up to 7 bytes past a row).
constexpr int64_t kSlack = 64;

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

template <class T>
T* thread_buffer(int64_t count) {
  thread_local std::vector<T> buf;
  if (static_cast<int64_t>(buf.size()) < count) buf.resize(static_cast<size_t>(count));
  return buf.data();
}

constexpr double kInt16Max = 32767.0;

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

// Rounds the n × q.cols block to 15 bits per column, w ≥ q.cols columns (the rest zero).
// Rounding an already rounded block gives the same integers again (scales within an ulp).
Int16Block round_int16(const linalg::DenseMatrix& q, int64_t n, int64_t ld, int64_t w) {
  Int16Block b;
  b.ld = ld;
  b.qt.assign(static_cast<size_t>(w * ld), 0);
  b.qscale.assign(static_cast<size_t>(w), 0.0);
  b.qsum.assign(static_cast<size_t>(w), 0);
  for (int64_t j = 0; j < q.cols; ++j) {
    double mx = 0.0;
    for (int64_t i = 0; i < n; ++i) mx = std::max(mx, std::fabs(q(i, j)));
    if (!(mx > 0.0)) continue;
    const double inv = kInt16Max / mx;
    b.qscale[j] = mx / kInt16Max;
    for (int64_t i = 0; i < n; ++i) {
      const auto v = static_cast<int16_t>(std::lrint(q(i, j) * inv));
      b.qt[static_cast<size_t>(j * ld + i)] = v;
      b.qsum[j] += v;
    }
  }
  return b;
}

// Appends the samples < n whose code is 3 in a packed row.
void find_missing(const uint8_t* row, int64_t n, int32_t row_in_group, MissingCalls& out) {
  const int64_t full = n / 32;
  for (int64_t word = 0; word < full; ++word) {
    uint64_t x;
    std::memcpy(&x, row + 8 * word, 8);
    for (uint64_t m = x & (x >> 1) & 0x5555555555555555ULL; m; m &= m - 1)
      out.emplace_back(row_in_group, static_cast<int32_t>(32 * word + __builtin_ctzll(m) / 2));
  }
  for (int64_t s = 32 * full; s < n; ++s)
    if (io::code_at(row, s) == io::kCodeMissing) out.emplace_back(row_in_group, static_cast<int32_t>(s));
}

// The per-group arithmetic every Gram product shares, whether the pass runs here or its groups
// run where the codes are (remote workers): the standardization table of the rows it covers
// and the fixed tile and slice partition. A group's contribution is computed by
// group_partial() and made a dense vector [Zᵀ_g | bias_g] by dense_partial(), in one place;
// the pass sums those in the fixed tree over groups (core/tree_sum.hpp): the same bits
// wherever the partials were computed and however the groups are split across ranks.
class GroupKernels {
 public:
  GroupKernels(const Context& ctx, std::vector<float> luts, std::vector<LinearCode> linear, int64_t n,
               Precision arithmetic)
      : ctx_(ctx), luts_(std::move(luts)), linear_(std::move(linear)), n_(n), n16_(round_up(n, 16)),
        n32_(round_up(n, 32)), stride_(io::packed_row_bytes(n)), arithmetic_(arithmetic) {}

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

  Operand gram_operand(const linalg::DenseMatrix& q) const {
    Operand o;
    o.cols = q.cols;
    o.w = round_up(std::max<int64_t>(1, q.cols), kLanes);
    if (arithmetic_ == Precision::Float32) o.qt = transposed_f32(q, o.w);
    else {
      o.qi = round_int16(q, n_, n32_, o.w);
      o.qpacked = backend::of(ctx_).pack_times_i16(o.qi.qt.data(), o.qi.ld, o.w, n32_);
    }
    return o;
  }
  Operand project_operand(const linalg::DenseMatrix& x) const {
    Operand o;
    o.cols = x.cols;
    o.w = round_up(std::max<int64_t>(1, x.cols), kProjectLanes);
    o.qt = transposed_f32(x, o.w);
    return o;
  }

  linalg::DenseMatrix rounded(const linalg::DenseMatrix& q) const {
    const Int16Block b = round_int16(q, n_, n_, q.cols);
    linalg::DenseMatrix out(q.rows, q.cols);
    for (int64_t j = 0; j < q.cols; ++j)
      for (int64_t i = 0; i < n_; ++i) out(i, j) = b.qscale[j] * b.qt[static_cast<size_t>(j * n_ + i)];
    return out;
  }

  // Rows [g0, g0 + rows) of the table (at most kGroupRows) with codes `gcodes` (stride(), one
  // spare row and kSlack bytes readable past them): its phase-2 sums and, for int16, the
  // rounded A_g·Q̃ and missing calls that accumulate() turns into the centring and missing terms.
  Status group_partial(const Operand& op, int64_t g0, int64_t rows, const uint8_t* gcodes,
                       GenotypeGramPartial& out) const {
    const int64_t w = op.w, tiles = ceil_div(rows, kTileRows);
    const backend::Backend& be = backend::of(ctx_);
    out.rows = rows;
    // Phase 2 writes every entry; room for dense_partial()'s bias, so it takes z as it is.
    out.z.reserve(static_cast<size_t>(w * n16_ + w));
    out.z.resize(static_cast<size_t>(w * n16_));
    out.missing.clear();
    if (arithmetic_ == Precision::Int16) {
      out.t.resize(static_cast<size_t>(rows * w));
      // Scratch kept per thread across groups: fresh allocations of this size are mapped and
      // page-faulted anew each time (measured ~7 % of a single-threaded pass).
      // (References: lambdas on pool threads must see this thread's instances, not their own.)
      thread_local std::vector<MissingCalls> missing_scratch;
      thread_local std::vector<int16_t> wpairs_scratch;
      std::vector<MissingCalls>& missing = missing_scratch;
      std::vector<int16_t>& wpairs = wpairs_scratch;
      missing.resize(static_cast<size_t>(tiles));
      wpairs.resize(static_cast<size_t>((rows + 1) * w));
      // Phase 1: T_t = A_t·Q̃ from exact integer sums.
      STRATA_RETURN_NOT_OK(pool().parallel_for(tiles, [&](int64_t t) -> Status {
        const int64_t r0 = t * kTileRows;
        tile_products_int16(be, op, t, g0 + r0, std::min(kTileRows, rows - r0), gcodes + r0 * stride_, w,
                            out.t.data() + r0 * w, missing[static_cast<size_t>(t)]);
        return Status::OK();
      }));
      std::vector<double> wscale(static_cast<size_t>(w));
      round_group(g0, rows, w, out.t, wpairs, wscale);
      const std::vector<uint8_t> tpacked = be.pack_t_times_i16(wpairs.data(), rows, w);
      // Phase 2: A_g[:, slice]ᵀ·T̃_g, exact within the group.
      STRATA_RETURN_NOT_OK(for_each_slice([&](int64_t n0, int64_t len) -> Status {
        int32_t* acc = thread_buffer<int32_t>(w * kSliceCols);
        std::fill(acc, acc + w * kSliceCols, 0);
        be.codes_t_times_i16({gcodes + n0 / 4, rows, len, stride_}, wpairs.data(), w, acc, kSliceCols,
                             tpacked.empty() ? nullptr : tpacked.data());
        for (int64_t c = 0; c < w; ++c) {
          double* zc = out.z.data() + c * n16_ + n0;
          for (int64_t i = 0; i < len; ++i) zc[i] = wscale[c] * static_cast<double>(acc[c * kSliceCols + i]);
        }
        return Status::OK();
      }));
      for (size_t t = 0; t < static_cast<size_t>(tiles); ++t)
        for (const auto& [row, sample] : missing[t]) {
          out.missing.push_back(row);
          out.missing.push_back(sample);
        }
      return Status::OK();
    }
    // Float32 and mixed. Phase 1: Y_t = A_t·Q for every tile (mixed: exact integer sums of
    // Q̃; phase 2 takes missing calls from the standardization table, so the tile's list of
    // them is scratch).
    const bool mixed = arithmetic_ == Precision::Mixed;
    thread_local std::vector<float> ytiles_scratch;
    std::vector<float>& ytiles = ytiles_scratch;  // a reference, for the pool threads' lambdas
    ytiles.resize(static_cast<size_t>(rows * w));
    STRATA_RETURN_NOT_OK(pool().parallel_for(tiles, [&](int64_t t) -> Status {
      const int64_t r0 = t * kTileRows, tr = std::min(kTileRows, rows - r0);
      float* yt = ytiles.data() + r0 * w;
      const uint8_t* codes = gcodes + r0 * stride_;
      if (mixed) {
        thread_local MissingCalls scratch;
        double* tt = thread_buffer<double>(kTileRows * w);
        tile_products_int16(be, op, t, g0 + r0, tr, codes, w, tt, scratch);
        for (int64_t i = 0; i < tr * w; ++i) yt[i] = static_cast<float>(tt[i]);
        return Status::OK();
      }
      std::fill(yt, yt + tr * w, 0.0f);
      be.codes_times({codes, tr, n16_, stride_}, luts_.data() + 4 * (g0 + r0), op.qt.data(), n16_, w, yt);
      return Status::OK();
    }));
    // Phase 2: (A_g[:, slice]ᵀ·Y_g)ᵀ, all rows of the group in order.
    return for_each_slice([&](int64_t n0, int64_t len) -> Status {
      float* acc = thread_buffer<float>(w * kSliceCols);
      std::fill(acc, acc + w * kSliceCols, 0.0f);
      be.codes_t_times({gcodes + n0 / 4, rows, len, stride_}, luts_.data() + 4 * g0, 0, len, ytiles.data(), w, acc,
                       kSliceCols);
      for (int64_t c = 0; c < w; ++c) {
        double* zc = out.z.data() + c * n16_ + n0;
        for (int64_t i = 0; i < len; ++i) zc[i] = static_cast<double>(acc[c * kSliceCols + i]);
      }
      return Status::OK();
    });
  }

  // Group g0's partial as one dense vector: Zᵀ_g (w × n16) with its missing-call terms, then
  // its centring bias (w).
  Result<std::vector<double>> dense_partial(const Operand& op, int64_t g0, GenotypeGramPartial&& part) const {
    const int64_t w = op.w, rows = part.rows, zsize = w * n16_;
    const bool int16 = arithmetic_ == Precision::Int16;
    if (static_cast<int64_t>(part.z.size()) != zsize || (int16 && static_cast<int64_t>(part.t.size()) != rows * w) ||
        g0 + rows > static_cast<int64_t>(linear_.size()) || part.missing.size() % 2 != 0)
      return Status::Invalid("genotype gram: a partial of group at variant ", g0, " does not match the pass");
    std::vector<double> out = std::move(part.z);  // the group's z, then its bias (zeros)
    out.resize(static_cast<size_t>(zsize + w), 0.0);
    if (!int16) return out;
    for (size_t e = 0; e < part.missing.size(); e += 2) {
      const int32_t row = part.missing[e], sample = part.missing[e + 1];
      if (row < 0 || row >= rows || sample < 0 || sample >= n_)
        return Status::Invalid("genotype gram: a missing call outside group at variant ", g0);
      const double gamma = linear_[static_cast<size_t>(g0 + row)].gamma;
      for (int64_t c = 0; c < w; ++c) out[static_cast<size_t>(c * n16_ + sample)] += gamma * part.t[row * w + c];
    }
    double* bias = out.data() + zsize;
    for (int64_t c = 0; c < w; ++c)
      for (int64_t i = 0; i < rows; ++i) bias[c] += linear_[static_cast<size_t>(g0 + i)].beta * part.t[i * w + c];
    return out;
  }

  // Y (n × cols) = Zᵀ + the centring bias, from the summed dense partials.
  linalg::DenseMatrix finish(const Operand& op, const std::vector<double>& total) const {
    linalg::DenseMatrix y(n_, op.cols);
    const double* bias = total.data() + op.w * n16_;
    for (int64_t j = 0; j < op.cols; ++j)
      for (int64_t i = 0; i < n_; ++i) y(i, j) = total[static_cast<size_t>(j * n16_ + i)] + bias[j];
    return y;
  }

  int64_t partial_width(const Operand& op) const { return op.w * n16_ + op.w; }

  // Rows g0.. of A·X (rows × cols, row-major) into `out`.
  Status project_group(const Operand& op, int64_t g0, int64_t rows, const uint8_t* gcodes,
                       std::vector<double>& out) const {
    const int64_t k = op.cols, w = op.w;
    const backend::Backend& be = backend::of(ctx_);
    out.assign(static_cast<size_t>(rows * k), 0.0);
    return pool().parallel_for(ceil_div(rows, kTileRows), [&](int64_t t) -> Status {
      const int64_t r0 = t * kTileRows, tr = std::min(kTileRows, rows - r0);
      float* yt = thread_buffer<float>(kTileRows * w);
      std::fill(yt, yt + tr * w, 0.0f);
      be.codes_times({gcodes + r0 * stride_, tr, n16_, stride_}, luts_.data() + 4 * (g0 + r0), op.qt.data(), n16_, w, yt);
      for (int64_t i = 0; i < tr; ++i)
        for (int64_t j = 0; j < k; ++j) out[static_cast<size_t>((r0 + i) * k + j)] = yt[i * w + j];
      return Status::OK();
    });
  }

 private:
  ThreadPool& pool() const { return ctx_.pool(); }

  // w × n16 row-major float copy of the transpose of a column-major n × c matrix; columns
  // past c and samples past n are zero.
  std::vector<float> transposed_f32(const linalg::DenseMatrix& a, int64_t w) const {
    std::vector<float> out(static_cast<size_t>(w * n16_), 0.0f);
    for (int64_t j = 0; j < a.cols; ++j)
      for (int64_t i = 0; i < n_; ++i) out[static_cast<size_t>(j * n16_ + i)] = static_cast<float>(a(i, j));
    return out;
  }

  // Phase 1 of the integer path for one tile: T (rows × w, row-major) = A_t·Q̃ with A_t the
  // standardized rows r0.. (tile t of its group), from the exact integer sums of raw codes
  // plus the per-variant centring and missing-call terms; `miss` receives the tile's missing
  // calls.
  void tile_products_int16(const backend::Backend& be, const Operand& op, int64_t t, int64_t r0, int64_t rows,
                           const uint8_t* codes, int64_t w, double* tt, MissingCalls& miss) const {
    const Int16Block& qi = op.qi;
    int64_t* p = thread_buffer<int64_t>(kTileRows * w + w);
    int64_t* msum = p + kTileRows * w;
    std::fill(p, p + rows * w, int64_t{0});
    be.codes_times_i16({codes, rows, n32_, stride_}, qi.qt.data(), qi.ld, w, p,
                       op.qpacked.empty() ? nullptr : op.qpacked.data());
    miss.clear();
    for (int64_t i = 0; i < rows; ++i) {
      const LinearCode& lc = linear_[static_cast<size_t>(r0 + i)];
      std::fill(msum, msum + w, int64_t{0});
      if (lc.has_missing) {
        const size_t before = miss.size();
        find_missing(codes + i * stride_, n_, static_cast<int32_t>(t * kTileRows + i), miss);
        for (size_t e = before; e < miss.size(); ++e)
          for (int64_t c = 0; c < w; ++c) msum[c] += qi.qt[static_cast<size_t>(c * qi.ld + miss[e].second)];
      }
      double* ti = tt + i * w;
      for (int64_t c = 0; c < w; ++c)
        ti[c] = qi.qscale[c] * (lc.alpha * static_cast<double>(p[i * w + c]) +
                                lc.beta * static_cast<double>(qi.qsum[c]) + lc.gamma * static_cast<double>(msum[c]));
    }
  }

  // Rounds α·T of a group per column to int16 pairs for phase 2 (scale in `wscale`); T̃ (what
  // the integer product really multiplies) replaces T for the centring and missing-call terms.
  void round_group(int64_t g0, int64_t group_rows, int64_t w, std::vector<double>& tg, std::vector<int16_t>& wpairs,
                   std::vector<double>& wscale) const {
    for (int64_t c = 0; c < w; ++c) {
      double mx = 0.0;
      for (int64_t i = 0; i < group_rows; ++i)
        mx = std::max(mx, std::fabs(linear_[static_cast<size_t>(g0 + i)].alpha * tg[i * w + c]));
      const double inv = mx > 0.0 ? kInt16Max / mx : 0.0;
      wscale[c] = mx / kInt16Max;
      for (int64_t i = 0; i < group_rows; ++i) {
        const LinearCode& lc = linear_[static_cast<size_t>(g0 + i)];
        double& t = tg[i * w + c];
        const auto v = static_cast<int16_t>(std::lrint(lc.alpha * t * inv));
        wpairs[static_cast<size_t>((i / 2) * 2 * w + 2 * c + i % 2)] = v;
        if (lc.alpha != 0.0) t = wscale[c] * v / lc.alpha;
      }
      if (group_rows % 2) wpairs[static_cast<size_t>((group_rows / 2) * 2 * w + 2 * c + 1)] = 0;
    }
  }

  // Phase 2's fixed sample slices, in parallel: fn(n0, len).
  template <class SliceFn>
  Status for_each_slice(SliceFn&& fn) const {
    return pool().parallel_for(ceil_div(n16_, kSliceCols), [&](int64_t s) -> Status {
      const int64_t n0 = s * kSliceCols;
      return fn(n0, std::min(kSliceCols, n16_ - n0));
    });
  }

  Context ctx_;  // a handle: the pool and backend the kernels run on
  std::vector<float> luts_;
  std::vector<LinearCode> linear_;
  int64_t n_, n16_, n32_, stride_;
  Precision arithmetic_;
};

// The standardization of the kept variants: float32 tables and the linear terms.
Result<GroupKernels> make_kernels(const Context& ctx, const std::vector<genomics::VariantCounts>& counts,
                                  const std::vector<int64_t>& kept, genomics::Standardization scale, int64_t n,
                                  Precision arithmetic) {
  if (arithmetic != Precision::Int16 && arithmetic != Precision::Float32 && arithmetic != Precision::Mixed) {
    return Status::Invalid("genotype gram: precision ", precision_name(arithmetic), " is not one of int16, mixed or float32");
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<float> luts, kept_standardize_luts<float>(counts, kept, scale));
  STRATA_ASSIGN_OR_RETURN(std::vector<double> luts64, kept_standardize_luts<double>(counts, kept, scale));
  std::vector<LinearCode> linear(kept.size());
  for (size_t i = 0; i < kept.size(); ++i) {
    const double* l = &luts64[4 * i];
    LinearCode& lc = linear[i];
    lc.alpha = (l[2] - l[0]) / 2;
    lc.beta = l[0];
    lc.gamma = l[3] - 3 * lc.alpha - lc.beta;
    lc.has_missing = counts[static_cast<size_t>(kept[i])].missing > 0;
    if (std::fabs(l[1] - (lc.alpha + lc.beta)) > 1e-12 * (std::fabs(l[0]) + std::fabs(l[2]) + 1.0))
      return Status::Invalid("genotype gram: standardization of variant ", kept[i], " is not linear in the dosage");
  }
  return GroupKernels(ctx, std::move(luts), std::move(linear), n, arithmetic);
}

// Rows [row0, row0 + rows) of `view` into fresh memory laid out as the operator keeps its codes
// (rows `stride` apart, then one zero row and kSlack zero bytes), `block` rows per task on ctx's
// threads; `loaded(r, count, codes)` (if any) runs on the same worker right after the read of
// rows [r, r + count) (numbered from row0), while they are in its cache.
Result<Buffer> read_resident(const Context& ctx, const io::GenotypeView& view, int64_t row0, int64_t rows,
                             int64_t block, const std::function<void(int64_t, int64_t, const uint8_t*)>& loaded) {
  const int64_t n = view.num_samples(), stride = io::packed_row_bytes(n);
  STRATA_ASSIGN_OR_RETURN(Buffer buf, Buffer::allocate((rows + 1) * stride + kSlack));
  uint8_t* base = buf.as<uint8_t>();
  std::fill(base + rows * stride, base + (rows + 1) * stride + kSlack, uint8_t{0});
  ctx.report().add_bytes_read(rows * stride);
  const int64_t blocks = ceil_div(rows, block);
  PassOptions o;  // a remote source fetches blocks ahead of the workers reading them
  io::set_genotype_read_ahead(ctx, view, row0, rows, block, o);
  ReadAheadHints ahead(ctx, o, blocks);
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(blocks, [&](int64_t b) -> Status {
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    ahead.starting(b);
    const int64_t r0 = b * block, count = std::min(block, rows - r0);
    uint8_t* codes = base + r0 * stride;
    buf.prefault(r0 * stride, count * stride);  // each worker has the kernel zero its own pages
    STRATA_RETURN_NOT_OK(view.read_codes(row0 + r0, count, 0, n, codes, stride));
    if (loaded) loaded(r0, count, codes);
    return Status::OK();
  }));
  return buf;
}

class GenotypeGramOperator final : public linalg::GramOperator {
 public:
  GenotypeGramOperator(const Context& ctx, io::GenotypeViewPtr view, GroupKernels kernels)
      : ctx_(ctx), view_(std::move(view)), kernels_(std::move(kernels)), m_(view_->num_variants()),
        n_(view_->num_samples()), stride_(io::packed_row_bytes(n_)) {
    // Under MPI each rank owns a contiguous range of whole groups (the group grid is fixed by
    // the data) and reads only those variants; partials combine in a tree over the groups.
    const Communicator& comm = ctx_.communicator();
    const auto [first, count] = rank_range(ceil_div(m_, kGroupRows), 1, comm.rank(), comm.size());
    group0_ = first;
    groups_ = count;
    row0_ = std::min(m_, group0_ * kGroupRows);
    own_rows_ = std::min(m_, (group0_ + groups_) * kGroupRows) - row0_;
  }

  int64_t own_bytes() const { return own_rows_ * stride_; }

  // This rank's rows [row0_, row0_ + own_rows_) into memory.
  Status load_resident() {
    STRATA_ASSIGN_OR_RETURN(resident_, read_resident(ctx_, *view_, row0_, own_rows_, kGroupRows, nullptr));
    return Status::OK();
  }

  // Takes codes already in memory (load_codes_with_counts: every variant of the view this
  // operator's variants `kept` were chosen from): the kept rows move down in place, in order
  // (row i comes from row kept[i] >= i, so no row is overwritten before it moves).
  Status adopt_resident(ResidentCodes&& codes, const std::vector<int64_t>& kept) {
    if (ctx_.communicator().size() != 1 || codes.stride != stride_ || static_cast<int64_t>(kept.size()) != m_ ||
        codes.codes.size() < (m_ + 1) * stride_ + kSlack)
      return Status::Invalid("genotype gram: the codes in memory do not match the operator's variants");
    uint8_t* base = codes.codes.as<uint8_t>();
    for (int64_t i = 0; i < m_;) {
      const int64_t from = kept[static_cast<size_t>(i)];
      if (from < i || from >= codes.rows) return Status::Invalid("genotype gram: kept variant ", from, " out of order");
      int64_t run = 1;  // rows moving by the same distance move together
      while (i + run < m_ && kept[static_cast<size_t>(i + run)] == from + run) ++run;
      if (from != i) std::memmove(base + i * stride_, base + from * stride_, static_cast<size_t>(run * stride_));
      i += run;
    }
    std::fill(base + m_ * stride_, base + (m_ + 1) * stride_ + kSlack, uint8_t{0});
    resident_ = std::move(codes.codes);
    return Status::OK();
  }

  bool resident() const { return !resident_.empty(); }
  int64_t rows() const override { return m_; }
  int64_t cols() const override { return n_; }
  std::string describe() const override { return view_->describe() + " (standardized genotypes)"; }
  bool single_precision() const override { return true; }
  int64_t preferred_width() const override { return kLanes; }
  bool rounds_operand() const override { return kernels_.arithmetic() == Precision::Mixed; }
  linalg::DenseMatrix operand(const linalg::DenseMatrix& q) const override {
    return rounds_operand() ? kernels_.rounded(q) : q;
  }
  // Every rank runs every pass and gets the whole Y (the tree's root is broadcast).
  const Communicator* ranks() const override { return &ctx_.communicator(); }

  Status gram(const linalg::DenseMatrix& q, linalg::DenseMatrix& y) const override {
    const GroupKernels::Operand op = kernels_.gram_operand(q);
    // The tree's additions run on the pool, and its combined nodes become the next groups'
    // partials (no fresh 2 MB vector, zeroed, per group on the pass's critical path).
    TreeSum tree(kernels_.partial_width(op), &pool());
    GenotypeGramPartial part;
    STRATA_RETURN_NOT_OK(for_each_group([&](int64_t g0, int64_t rows, const uint8_t* gcodes) -> Status {
      if (part.z.empty()) part.z = tree.recycled();
      STRATA_RETURN_NOT_OK(kernels_.group_partial(op, g0, rows, gcodes, part));
      STRATA_ASSIGN_OR_RETURN(std::vector<double> dense, kernels_.dense_partial(op, g0, std::move(part)));
      tree.push(g0 / kGroupRows, std::move(dense));
      return Status::OK();
    }));
    std::vector<double> total;
    STRATA_RETURN_NOT_OK(tree.combine(ctx_.communicator(), &total));
    y = kernels_.finish(op, total);
    return Status::OK();
  }

  Status project(const linalg::DenseMatrix& x, const linalg::FactorSink& sink) const override {
    const Communicator& comm = ctx_.communicator();
    if (comm.size() == 1) return project_own(x, sink);
    // Under MPI each rank projects its rows; rank 0 receives them all, in rank order (= row
    // order), and hands them to `sink`. Rows are independent, so the bits equal one rank's.
    const int64_t k = x.cols;
    std::vector<double> mine(static_cast<size_t>(own_rows_ * k));
    STRATA_RETURN_NOT_OK(project_own(x, [&](int64_t r0, int64_t rows, int64_t cols, const double* d) -> Status {
      std::copy(d, d + rows * cols, mine.begin() + (r0 - row0_) * k);
      return Status::OK();
    }));
    std::vector<std::string> parts;
    STRATA_RETURN_NOT_OK(comm.gather(std::string(reinterpret_cast<const char*>(mine.data()), mine.size() * sizeof(double)),
                                     &parts));
    if (comm.rank() != 0) return Status::OK();
    int64_t r0 = 0;
    for (const std::string& p : parts) {
      const int64_t rows = k > 0 ? static_cast<int64_t>(p.size() / sizeof(double)) / k : 0;
      if (r0 + rows > m_) return Status::CommError("projection: the ranks sent more than ", m_, " rows");
      if (rows == 0) continue;  // a rank without groups (its empty vector's data() may be null)
      std::vector<double> d(static_cast<size_t>(rows * k));
      std::memcpy(d.data(), p.data(), d.size() * sizeof(double));
      STRATA_RETURN_NOT_OK(sink(r0, rows, k, d.data()));
      r0 += rows;
    }
    if (r0 != m_) return Status::CommError("projection: the ranks sent ", r0, " rows of ", m_);
    return Status::OK();
  }

 private:
  // Rows of A·X for this rank's variants.
  Status project_own(const linalg::DenseMatrix& x, const linalg::FactorSink& sink) const {
    const GroupKernels::Operand op = kernels_.project_operand(x);
    std::vector<double> out;
    return for_each_group([&](int64_t g0, int64_t rows, const uint8_t* gcodes) -> Status {
      STRATA_RETURN_NOT_OK(kernels_.project_group(op, g0, rows, gcodes, out));
      return sink(g0, rows, op.cols, out.data());
    });
  }

  ThreadPool& pool() const { return ctx_.pool(); }

  // This rank's groups of kGroupRows variants in order, fixed by the shape (so the same bits for any
  // thread count): group(g0, rows, codes) once each.
  template <class GroupFn>
  Status for_each_group(GroupFn&& group) const {
    if (!resident()) ctx_.report().add_bytes_read(own_rows_ * stride_);
    // Streaming: group g + 1 is read (on the engine's reader thread) while group g computes;
    // a group is read whole before its kernels run, because kernels read a few bytes past a
    // tile's last row, into the next tile (multiplied by zeros, but it must not race with that
    // tile being written).
    std::vector<uint8_t> buffers[2];
    if (!resident()) {
      for (auto& b : buffers) b.resize(static_cast<size_t>((kGroupRows + 1) * stride_ + kSlack));
    }
    const bool pipelined = pipelined_reads(ctx_);
    PassOptions o;
    o.label = "genotype gram";
    if (!resident()) io::set_genotype_read_ahead(ctx_, *view_, row0_, own_rows_, kGroupRows, o);
    o.progress_units = [&](int64_t i) { return std::min(kGroupRows, m_ - (group0_ + i) * kGroupRows); };
    return run_pipelined(
        ctx_, groups_,
        resident() ? std::function<Status(int64_t, int)>()
                   : [&](int64_t i, int slot) -> Status {
                       const int64_t g0 = (group0_ + i) * kGroupRows, group_rows = std::min(kGroupRows, m_ - g0);
                       uint8_t* dst = buffers[slot].data();
                       if (pipelined) return view_->read_codes(g0, group_rows, 0, n_, dst, stride_);
                       // No reader thread: the workers read the group's tiles in parallel.
                       return pool().parallel_for(ceil_div(group_rows, kTileRows), [&](int64_t t) -> Status {
                         const int64_t r0 = g0 + t * kTileRows, rows = std::min(kTileRows, m_ - r0);
                         return view_->read_codes(r0, rows, 0, n_, dst + t * kTileRows * stride_, stride_);
                       });
                     },
        [&](int64_t i, int slot) -> Status {
          const int64_t g0 = (group0_ + i) * kGroupRows, group_rows = std::min(kGroupRows, m_ - g0);
          const uint8_t* gcodes =
              resident() ? resident_.as<uint8_t>() + (g0 - row0_) * stride_ : buffers[slot].data();
          return group(g0, group_rows, gcodes);
        },
        o);
  }

  Context ctx_;  // a handle: keeps the resources alive for the operator's passes
  io::GenotypeViewPtr view_;
  GroupKernels kernels_;
  int64_t m_, n_, stride_;
  int64_t group0_ = 0, groups_ = 0;  // this rank's groups
  int64_t row0_ = 0, own_rows_ = 0;  // and their variants
  Buffer resident_;
};

// The operator whose groups run elsewhere (GenotypeGroupRunner): partials come back in group
// order and are added here by the same GroupKernels as the local operator's.
class RemoteGramOperator final : public linalg::GramOperator {
 public:
  RemoteGramOperator(const Context& ctx, GroupKernels kernels, int64_t m, std::shared_ptr<GenotypeGroupRunner> runner)
      : ctx_(ctx), kernels_(std::move(kernels)), m_(m), runner_(std::move(runner)) {}

  int64_t rows() const override { return m_; }
  int64_t cols() const override { return kernels_.samples(); }
  std::string describe() const override { return "remote genotypes (standardized)"; }
  bool single_precision() const override { return true; }
  int64_t preferred_width() const override { return kLanes; }
  bool rounds_operand() const override { return kernels_.arithmetic() == Precision::Mixed; }
  linalg::DenseMatrix operand(const linalg::DenseMatrix& q) const override {
    return rounds_operand() ? kernels_.rounded(q) : q;
  }

  Status gram(const linalg::DenseMatrix& q, linalg::DenseMatrix& y) const override {
    const GroupKernels::Operand op = kernels_.gram_operand(q);
    TreeSum tree(kernels_.partial_width(op));
    int64_t next = 0;
    STRATA_RETURN_NOT_OK(runner_->gram(q, [&](int64_t g, GenotypeGramPartial&& part) -> Status {
      if (g != next || part.rows != std::min(kGroupRows, m_ - g * kGroupRows))
        return Status::Invalid("genotype gram: group ", g, " came back out of order or with ", part.rows, " rows");
      ++next;
      STRATA_RETURN_NOT_OK(ctx_.check_cancelled());
      ctx_.advance_progress(part.rows);
      STRATA_ASSIGN_OR_RETURN(std::vector<double> dense, kernels_.dense_partial(op, g * kGroupRows, std::move(part)));
      tree.push(g, std::move(dense));
      return Status::OK();
    }));
    if (next != ceil_div(m_, kGroupRows)) return Status::Invalid("genotype gram: ", next, " groups came back");
    std::vector<double> total;
    STRATA_RETURN_NOT_OK(tree.combine(*single_process_communicator(), &total));
    y = kernels_.finish(op, total);
    return Status::OK();
  }

  Status project(const linalg::DenseMatrix& x, const linalg::FactorSink& sink) const override {
    int64_t next = 0;
    STRATA_RETURN_NOT_OK(runner_->project(x, [&](int64_t g, std::vector<double>&& rows) -> Status {
      const int64_t g0 = g * kGroupRows, n = std::min(kGroupRows, m_ - g0);
      if (g != next || static_cast<int64_t>(rows.size()) != n * x.cols)
        return Status::Invalid("genotype projection: group ", g, " came back out of order or with the wrong size");
      ++next;
      STRATA_RETURN_NOT_OK(ctx_.check_cancelled());
      ctx_.advance_progress(n);
      return sink(g0, n, x.cols, rows.data());
    }));
    if (next != ceil_div(m_, kGroupRows)) return Status::Invalid("genotype projection: ", next, " groups came back");
    return Status::OK();
  }

 private:
  Context ctx_;  // a handle: progress and cancellation between groups
  GroupKernels kernels_;
  int64_t m_;
  std::shared_ptr<GenotypeGroupRunner> runner_;
};

// A worker's kernels over its group and its codes in a buffer the kernels may read past.
struct GroupWork {
  GroupKernels kernels;
  std::vector<uint8_t> codes;
};

Result<GroupWork> group_work(const Context& ctx, const GenotypeGroup& g, genomics::Standardization scale,
                             Precision arithmetic) {
  if (g.rows < 1 || g.rows > kGroupRows || g.samples < 1 || static_cast<int64_t>(g.counts.size()) != g.rows ||
      g.codes == nullptr)
    return Status::Invalid("genotype group: ", g.rows, " rows (1 to ", kGroupRows, ") of ", g.samples,
                           " samples with ", g.counts.size(), " counts");
  std::vector<int64_t> all(static_cast<size_t>(g.rows));
  for (int64_t i = 0; i < g.rows; ++i) all[static_cast<size_t>(i)] = i;
  STRATA_ASSIGN_OR_RETURN(GroupKernels k, make_kernels(ctx, g.counts, all, scale, g.samples, arithmetic));
  const int64_t stride = io::packed_row_bytes(g.samples);
  std::vector<uint8_t> codes(static_cast<size_t>((g.rows + 1) * stride + kSlack), 0);
  std::memcpy(codes.data(), g.codes, static_cast<size_t>(g.rows * stride));
  return GroupWork{std::move(k), std::move(codes)};
}

}  // namespace

Result<linalg::GramOperatorPtr> make_genotype_gram_operator(const Context& ctx, const io::GenotypeViewPtr& view,
                                                            const std::vector<genomics::VariantCounts>& counts,
                                                            std::vector<int64_t> kept, genomics::Standardization scale,
                                                            const GenotypeGramOptions& options) {
  if (!view) return Status::Invalid("genotype gram: no genotype view");
  STRATA_ASSIGN_OR_RETURN(GroupKernels kernels,
                          make_kernels(ctx, counts, kept, scale, view->num_samples(), options.arithmetic));
  if (ctx.communicator().size() > 1) {
    // Every rank repeats the small dense work of the solver on the combined products, so all
    // must compute it to the same bits: the same backend (instruction set) on every rank.
    std::vector<std::string> names;
    const std::string mine = backend::of(ctx).name();
    STRATA_RETURN_NOT_OK(ctx.communicator().allgather(mine, &names));
    for (size_t r = 0; r < names.size(); ++r)
      if (names[r] != mine)
        return Status::Unsupported("genotype gram: rank ", r, " runs backend ", names[r], " and rank ",
                                   ctx.communicator().rank(), " ", mine,
                                   "; distributed PCA needs the same backend on every rank");
  }
  ResidentCodes* pre = options.preloaded && options.preloaded->rows == view->num_variants() ? options.preloaded : nullptr;
  const std::vector<int64_t> kept_rows = pre ? kept : std::vector<int64_t>{};
  io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
  auto op = std::make_shared<GenotypeGramOperator>(ctx, std::move(sub), std::move(kernels));
  const int64_t bytes = op->own_bytes();
  if (options.resident_bytes > 0 && bytes <= options.resident_bytes) {
    STRATA_RETURN_NOT_OK(pre && ctx.communicator().size() == 1 ? op->adopt_resident(std::move(*pre), kept_rows)
                                                                : op->load_resident());
  }
  if (pre) *pre = ResidentCodes{};  // taken, or not needed: freed either way
  return linalg::GramOperatorPtr(std::move(op));
}

Result<ResidentCodes> load_codes_with_counts(const Context& ctx, const io::GenotypeView& view) {
  if (ctx.communicator().size() != 1) return Status::Invalid("load_codes_with_counts: runs in one process only");
  ResidentCodes out;
  const int64_t m = view.num_variants(), n = view.num_samples();
  out.rows = m;
  out.stride = io::packed_row_bytes(n);
  out.counts.resize(static_cast<size_t>(m));
  // Blocks of about 1 MiB: counted right after they are read, while they are in the cache.
  const int64_t block = std::max<int64_t>(kTileRows, (int64_t{1} << 20) / std::max<int64_t>(1, out.stride));
  STRATA_ASSIGN_OR_RETURN(out.codes, read_resident(ctx, view, 0, m, block, [&](int64_t r0, int64_t rows, const uint8_t* codes) {
                            count_rows(ctx, codes, rows, n, out.stride, out.counts.data() + r0);
                            ctx.advance_progress(rows);
                          }));
  return out;
}

Result<GenotypeGramPartial> genotype_gram_group(const Context& ctx, const GenotypeGroup& group,
                                                genomics::Standardization scale, Precision arithmetic,
                                                const linalg::DenseMatrix& q) {
  if (q.rows != group.samples) return Status::Invalid("genotype group: Q has ", q.rows, " rows for ", group.samples, " samples");
  STRATA_ASSIGN_OR_RETURN(GroupWork work, group_work(ctx, group, scale, arithmetic));
  GenotypeGramPartial part;
  STRATA_RETURN_NOT_OK(
      work.kernels.group_partial(work.kernels.gram_operand(q), 0, group.rows, work.codes.data(), part));
  return part;
}

Result<std::vector<double>> genotype_project_group(const Context& ctx, const GenotypeGroup& group,
                                                   genomics::Standardization scale, const linalg::DenseMatrix& x) {
  if (x.rows != group.samples) return Status::Invalid("genotype group: X has ", x.rows, " rows for ", group.samples, " samples");
  STRATA_ASSIGN_OR_RETURN(GroupWork work, group_work(ctx, group, scale, Precision::Float32));
  std::vector<double> out;
  STRATA_RETURN_NOT_OK(work.kernels.project_group(work.kernels.project_operand(x), 0, group.rows, work.codes.data(), out));
  return out;
}

Result<linalg::GramOperatorPtr> make_remote_genotype_gram_operator(const Context& ctx, int64_t samples,
                                                                   const std::vector<genomics::VariantCounts>& counts,
                                                                   std::vector<int64_t> kept,
                                                                   genomics::Standardization scale,
                                                                   const GenotypeGramOptions& options,
                                                                   std::shared_ptr<GenotypeGroupRunner> runner) {
  if (!runner) return Status::Invalid("genotype gram: no group runner");
  STRATA_ASSIGN_OR_RETURN(GroupKernels kernels, make_kernels(ctx, counts, kept, scale, samples, options.arithmetic));
  STRATA_RETURN_NOT_OK(runner->plan(kept, scale, options.arithmetic));
  const auto m = static_cast<int64_t>(kept.size());
  return linalg::GramOperatorPtr(std::make_shared<RemoteGramOperator>(ctx, std::move(kernels), m, std::move(runner)));
}

bool int16_kernels_vectorized(const Context& ctx) { return backend::of(ctx).fast_int16(); }
bool int16_kernels_vectorized() { return backend::cpu_backend()->fast_int16(); }

bool genotype_gram_is_resident(const linalg::GramOperator& op) {
  const auto* g = dynamic_cast<const GenotypeGramOperator*>(&op);
  return g && g->resident();
}

}  // namespace strata::genomics
