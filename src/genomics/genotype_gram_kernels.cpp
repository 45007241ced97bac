// GroupKernels: the per-group arithmetic of the genotype Gram products (genotype_gram_kernels.hpp).
#include "genomics/genotype_gram_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "genomics/standardize_internal.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::genomics::gram {
namespace {

// Samples per phase-2 slice (a multiple of 16).
constexpr int64_t kSliceCols = 192;
// The projection's float kernel (codes_times) blocks 4 columns, and each column's sums are
// independent of the others: k = 10 loadings run 12 columns instead of 16, same bits.
constexpr int64_t kProjectLanes = 4;

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

template <class T>
T* thread_buffer(int64_t count) {
  thread_local std::vector<T> buf;
  if (static_cast<int64_t>(buf.size()) < count) buf.resize(static_cast<size_t>(count));
  return buf.data();
}

constexpr double kInt16Max = 32767.0;

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

}  // namespace

GroupKernels::GroupKernels(const Context& ctx, std::vector<float> luts, std::vector<LinearCode> linear, int64_t n,
                           Precision arithmetic)
    : ctx_(ctx), luts_(std::move(luts)), linear_(std::move(linear)), n_(n), n16_(round_up(n, 16)),
      n32_(round_up(n, 32)), stride_(io::packed_row_bytes(n)), arithmetic_(arithmetic) {}

Result<GroupKernels::Operand> GroupKernels::gram_operand(const linalg::DenseMatrix& q) const {
  Operand o;
  o.cols = q.cols;
  o.w = round_up(std::max<int64_t>(1, q.cols), kLanes);
  if (arithmetic_ == Precision::Float32) o.qt = transposed_f32(q, o.w);
  else {
    o.qi = round_int16(q, n_, n32_, o.w);
    STRATA_ASSIGN_OR_RETURN(o.qpacked, backend::of(ctx_).pack_times_i16(o.qi.qt.data(), o.qi.ld, o.w, n32_));
  }
  return o;
}

GroupKernels::Operand GroupKernels::project_operand(const linalg::DenseMatrix& x) const {
  Operand o;
  o.cols = x.cols;
  o.w = round_up(std::max<int64_t>(1, x.cols), kProjectLanes);
  o.qt = transposed_f32(x, o.w);
  return o;
}

linalg::DenseMatrix GroupKernels::rounded(const linalg::DenseMatrix& q) const {
  const Int16Block b = round_int16(q, n_, n_, q.cols);
  linalg::DenseMatrix out(q.rows, q.cols);
  for (int64_t j = 0; j < q.cols; ++j)
    for (int64_t i = 0; i < n_; ++i) out(i, j) = b.qscale[j] * b.qt[static_cast<size_t>(j * n_ + i)];
  return out;
}

// Phase 2's fixed sample slices, in parallel: fn(n0, len).
template <class SliceFn>
Status GroupKernels::for_each_slice(SliceFn&& fn) const {
  return pool().parallel_for(ceil_div(n16_, kSliceCols), [&](int64_t s) -> Status {
    const int64_t n0 = s * kSliceCols;
    return fn(n0, std::min(kSliceCols, n16_ - n0));
  });
}

Status GroupKernels::group_partial(const Operand& op, int64_t g0, int64_t rows, const uint8_t* gcodes,
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
      return tile_products_int16(be, op, t, g0 + r0, std::min(kTileRows, rows - r0), gcodes + r0 * stride_, w,
                                 out.t.data() + r0 * w, missing[static_cast<size_t>(t)]);
    }));
    std::vector<double> wscale(static_cast<size_t>(w));
    round_group(g0, rows, w, out.t, wpairs, wscale);
    STRATA_ASSIGN_OR_RETURN(const std::vector<uint8_t> tpacked, be.pack_t_times_i16(wpairs.data(), rows, w));
    // Phase 2: A_g[:, slice]ᵀ·T̃_g, exact within the group.
    STRATA_RETURN_NOT_OK(for_each_slice([&](int64_t n0, int64_t len) -> Status {
      int32_t* acc = thread_buffer<int32_t>(w * kSliceCols);
      std::fill(acc, acc + w * kSliceCols, 0);
      STRATA_RETURN_NOT_OK(be.codes_t_times_i16({gcodes + n0 / 4, rows, len, stride_}, wpairs.data(), w, acc,
                                                kSliceCols, tpacked.empty() ? nullptr : tpacked.data()));
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
      STRATA_RETURN_NOT_OK(tile_products_int16(be, op, t, g0 + r0, tr, codes, w, tt, scratch));
      for (int64_t i = 0; i < tr * w; ++i) yt[i] = static_cast<float>(tt[i]);
      return Status::OK();
    }
    std::fill(yt, yt + tr * w, 0.0f);
    return be.codes_times({codes, tr, n16_, stride_}, luts_.data() + 4 * (g0 + r0), op.qt.data(), n16_, w, yt);
  }));
  // Phase 2: (A_g[:, slice]ᵀ·Y_g)ᵀ, all rows of the group in order.
  return for_each_slice([&](int64_t n0, int64_t len) -> Status {
    float* acc = thread_buffer<float>(w * kSliceCols);
    std::fill(acc, acc + w * kSliceCols, 0.0f);
    STRATA_RETURN_NOT_OK(be.codes_t_times({gcodes + n0 / 4, rows, len, stride_}, luts_.data() + 4 * g0, 0, len,
                                          ytiles.data(), w, acc, kSliceCols));
    for (int64_t c = 0; c < w; ++c) {
      double* zc = out.z.data() + c * n16_ + n0;
      for (int64_t i = 0; i < len; ++i) zc[i] = static_cast<double>(acc[c * kSliceCols + i]);
    }
    return Status::OK();
  });
}

Result<std::vector<double>> GroupKernels::dense_partial(const Operand& op, int64_t g0,
                                                        GenotypeGramPartial&& part) const {
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

linalg::DenseMatrix GroupKernels::finish(const Operand& op, const std::vector<double>& total) const {
  linalg::DenseMatrix y(n_, op.cols);
  const double* bias = total.data() + op.w * n16_;
  for (int64_t j = 0; j < op.cols; ++j)
    for (int64_t i = 0; i < n_; ++i) y(i, j) = total[static_cast<size_t>(j * n16_ + i)] + bias[j];
  return y;
}

Status GroupKernels::project_group(const Operand& op, int64_t g0, int64_t rows, const uint8_t* gcodes,
                                   std::vector<double>& out) const {
  const int64_t k = op.cols, w = op.w;
  const backend::Backend& be = backend::of(ctx_);
  out.assign(static_cast<size_t>(rows * k), 0.0);
  return pool().parallel_for(ceil_div(rows, kTileRows), [&](int64_t t) -> Status {
    const int64_t r0 = t * kTileRows, tr = std::min(kTileRows, rows - r0);
    float* yt = thread_buffer<float>(kTileRows * w);
    std::fill(yt, yt + tr * w, 0.0f);
    STRATA_RETURN_NOT_OK(be.codes_times({gcodes + r0 * stride_, tr, n16_, stride_}, luts_.data() + 4 * (g0 + r0),
                                        op.qt.data(), n16_, w, yt));
    for (int64_t i = 0; i < tr; ++i)
      for (int64_t j = 0; j < k; ++j) out[static_cast<size_t>((r0 + i) * k + j)] = yt[i * w + j];
    return Status::OK();
  });
}

// w × n16 row-major float copy of the transpose of a column-major n × c matrix; columns
// past c and samples past n are zero.
std::vector<float> GroupKernels::transposed_f32(const linalg::DenseMatrix& a, int64_t w) const {
  std::vector<float> out(static_cast<size_t>(w * n16_), 0.0f);
  for (int64_t j = 0; j < a.cols; ++j)
    for (int64_t i = 0; i < n_; ++i) out[static_cast<size_t>(j * n16_ + i)] = static_cast<float>(a(i, j));
  return out;
}

// Phase 1 of the integer path for one tile: T (rows × w, row-major) = A_t·Q̃ with A_t the
// standardized rows r0.. (tile t of its group), from the exact integer sums of raw codes
// plus the per-variant centring and missing-call terms; `miss` receives the tile's missing
// calls.
Status GroupKernels::tile_products_int16(const backend::Backend& be, const Operand& op, int64_t t, int64_t r0,
                                         int64_t rows, const uint8_t* codes, int64_t w, double* tt,
                                         MissingCalls& miss) const {
  const Int16Block& qi = op.qi;
  int64_t* p = thread_buffer<int64_t>(kTileRows * w + w);
  int64_t* msum = p + kTileRows * w;
  std::fill(p, p + rows * w, int64_t{0});
  STRATA_RETURN_NOT_OK(be.codes_times_i16({codes, rows, n32_, stride_}, qi.qt.data(), qi.ld, w, p,
                                          op.qpacked.empty() ? nullptr : op.qpacked.data()));
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
  return Status::OK();
}

// Rounds α·T of a group per column to int16 pairs for phase 2 (scale in `wscale`); T̃ (what
// the integer product really multiplies) replaces T for the centring and missing-call terms.
void GroupKernels::round_group(int64_t g0, int64_t group_rows, int64_t w, std::vector<double>& tg,
                               std::vector<int16_t>& wpairs, std::vector<double>& wscale) const {
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

Result<GroupKernels> make_kernels(const Context& ctx, const std::vector<VariantCounts>& counts,
                                  const std::vector<int64_t>& kept, Standardization scale, int64_t n,
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

}  // namespace strata::genomics::gram
