// GramOperator over standardized 2-bit genotype codes (see genotype_gram.hpp).
#include "strata/genomics/genotype_gram.hpp"

#include <algorithm>
#include <cstring>

#include "genomics/genotype_gram_kernels.hpp"
#include "genomics/standardize_internal.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/progress.hpp"
#include "strata/core/shape.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::genomics {
namespace {

using detail::kTileRows;

// Tiles per group: phase 1 runs the group's tiles in parallel, phase 2 its sample slices.
// Fixed (not derived from the thread count) so the summation order never changes.
constexpr int64_t kGroupTiles = 32;
constexpr int64_t kGroupRows = kGroupTiles * kTileRows;
// Samples per phase-2 slice (a multiple of 16).
constexpr int64_t kSliceCols = 192;
// Column blocks of the kernels: widths are padded to a multiple of this.
constexpr int64_t kLanes = 8;
// Code buffers end with this much slack: kernels may read 3 bytes past a row.
constexpr int64_t kSlack = 64;

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

float* thread_buffer(int64_t floats) {
  thread_local std::vector<float> buf;
  if (static_cast<int64_t>(buf.size()) < floats) buf.resize(static_cast<size_t>(floats));
  return buf.data();
}

class GenotypeGramOperator final : public linalg::GramOperator {
 public:
  GenotypeGramOperator(io::GenotypeViewPtr view, std::vector<float> luts, const GenotypeGramOptions& options)
      : view_(std::move(view)),
        luts_(std::move(luts)),
        m_(view_->num_variants()),
        n_(view_->num_samples()),
        n16_(round_up(n_, 16)),
        stride_(io::packed_row_bytes(n_)),
        options_(options) {}

  Status load_resident() {
    STRATA_ASSIGN_OR_RETURN(resident_, Buffer::allocate(m_ * stride_ + kSlack));
    uint8_t* base = resident_.as<uint8_t>();
    std::fill(base + m_ * stride_, base + m_ * stride_ + kSlack, uint8_t{0});
    return pool().parallel_for(ceil_div(m_, kGroupRows), [&](int64_t c) -> Status {
      const int64_t r0 = c * kGroupRows, rows = std::min(kGroupRows, m_ - r0);
      return view_->read_codes(r0, rows, 0, n_, base + r0 * stride_, stride_);
    });
  }

  bool resident() const { return !resident_.empty(); }
  int64_t rows() const override { return m_; }
  int64_t cols() const override { return n_; }
  std::string describe() const override { return view_->describe() + " (standardized genotypes)"; }
  bool single_precision() const override { return true; }
  int64_t preferred_width() const override { return kLanes; }

  Status gram(const linalg::DenseMatrix& q, linalg::DenseMatrix& y) const override {
    const int64_t w = round_up(std::max<int64_t>(1, q.cols), kLanes);
    const std::vector<float> qt = transposed_f32(q, w);
    std::vector<double> zt(static_cast<size_t>(w * n16_), 0.0);
    std::vector<float> ytiles(static_cast<size_t>(kGroupRows * w));
    std::vector<uint8_t> group_codes;
    if (!resident()) group_codes.resize(static_cast<size_t>(kGroupRows * stride_ + kSlack));
    const int64_t slices = ceil_div(n16_, kSliceCols);
    for (int64_t g0 = 0; g0 < m_; g0 += kGroupRows) {
      const int64_t group_rows = std::min(kGroupRows, m_ - g0);
      const int64_t tiles = ceil_div(group_rows, kTileRows);
      // Phase 1: Y_t = A_t·Q for every tile of the group.
      STRATA_RETURN_NOT_OK(pool().parallel_for(tiles, [&](int64_t t) -> Status {
        const int64_t r0 = g0 + t * kTileRows, rows = std::min(kTileRows, m_ - r0);
        STRATA_ASSIGN_OR_RETURN(const uint8_t* codes, tile_codes(g0, t, group_codes));
        float* yt = ytiles.data() + t * kTileRows * w;
        std::fill(yt, yt + rows * w, 0.0f);
        detail::codes_times(codes, stride_, luts_.data() + 4 * r0, rows, n16_, qt.data(), n16_, w, yt);
        return Status::OK();
      }));
      // Phase 2: Zᵀ[:, slice] += (A_g[:, slice]ᵀ·Y_g)ᵀ, all rows of the group in order.
      const uint8_t* gcodes = resident() ? resident_.as<uint8_t>() + g0 * stride_ : group_codes.data();
      STRATA_RETURN_NOT_OK(pool().parallel_for(slices, [&](int64_t s) -> Status {
        const int64_t n0 = s * kSliceCols, len = std::min(kSliceCols, n16_ - n0);
        float* acc = thread_buffer(w * kSliceCols);
        std::fill(acc, acc + w * kSliceCols, 0.0f);
        detail::codes_t_times(gcodes + n0 / 4, stride_, luts_.data() + 4 * g0, group_rows, 0, len, ytiles.data(), w,
                              acc, kSliceCols);
        for (int64_t c = 0; c < w; ++c) {
          double* zc = zt.data() + c * n16_ + n0;
          const float* ac = acc + c * kSliceCols;
          for (int64_t i = 0; i < len; ++i) zc[i] += static_cast<double>(ac[i]);
        }
        return Status::OK();
      }));
      advance(group_rows);
    }
    y = linalg::DenseMatrix(n_, q.cols);
    for (int64_t j = 0; j < q.cols; ++j) std::copy(zt.data() + j * n16_, zt.data() + j * n16_ + n_, y.col(j));
    return Status::OK();
  }

  Status project(const linalg::DenseMatrix& x, const linalg::FactorSink& sink) const override {
    const int64_t k = x.cols, w = round_up(std::max<int64_t>(1, k), kLanes);
    const std::vector<float> xt = transposed_f32(x, w);
    std::vector<uint8_t> group_codes;
    if (!resident()) group_codes.resize(static_cast<size_t>(kGroupRows * stride_ + kSlack));
    for (int64_t g0 = 0; g0 < m_; g0 += kGroupRows) {
      const int64_t group_rows = std::min(kGroupRows, m_ - g0);
      STRATA_RETURN_NOT_OK(pool().parallel_for(ceil_div(group_rows, kTileRows), [&](int64_t t) -> Status {
        const int64_t r0 = g0 + t * kTileRows, rows = std::min(kTileRows, m_ - r0);
        STRATA_ASSIGN_OR_RETURN(const uint8_t* codes, tile_codes(g0, t, group_codes));
        float* yt = thread_buffer(kTileRows * w);
        std::fill(yt, yt + rows * w, 0.0f);
        detail::codes_times(codes, stride_, luts_.data() + 4 * r0, rows, n16_, xt.data(), n16_, w, yt);
        std::vector<double> out(static_cast<size_t>(rows * k));
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < k; ++j) out[static_cast<size_t>(i * k + j)] = yt[i * w + j];
        return sink(r0, rows, k, out.data());
      }));
      advance(group_rows);
    }
    return Status::OK();
  }

 private:
  ThreadPool& pool() const { return options_.pool ? *options_.pool : ThreadPool::global(); }

  void advance(int64_t rows) const {
    if (options_.progress) options_.progress->advance(rows);
  }

  // w × n16 row-major float copy of the transpose of a column-major n × c matrix; columns
  // past c and samples past n are zero.
  std::vector<float> transposed_f32(const linalg::DenseMatrix& a, int64_t w) const {
    std::vector<float> out(static_cast<size_t>(w * n16_), 0.0f);
    for (int64_t j = 0; j < a.cols; ++j)
      for (int64_t i = 0; i < n_; ++i) out[static_cast<size_t>(j * n16_ + i)] = static_cast<float>(a(i, j));
    return out;
  }

  // Codes of tile t of the group starting at g0: in place when resident, else read into the
  // group buffer (phase 2 reads them from there).
  Result<const uint8_t*> tile_codes(int64_t g0, int64_t t, std::vector<uint8_t>& group_codes) const {
    const int64_t r0 = g0 + t * kTileRows, rows = std::min(kTileRows, m_ - r0);
    if (resident()) return resident_.as<uint8_t>() + r0 * stride_;
    uint8_t* dst = group_codes.data() + t * kTileRows * stride_;
    STRATA_RETURN_NOT_OK(view_->read_codes(r0, rows, 0, n_, dst, stride_));
    return static_cast<const uint8_t*>(dst);
  }

  io::GenotypeViewPtr view_;
  std::vector<float> luts_;
  int64_t m_, n_, n16_, stride_;
  GenotypeGramOptions options_;
  Buffer resident_;
};

}  // namespace

Result<linalg::GramOperatorPtr> make_genotype_gram_operator(const io::GenotypeViewPtr& view,
                                                            const std::vector<io::VariantCounts>& counts,
                                                            std::vector<int64_t> kept, io::Standardization scale,
                                                            const GenotypeGramOptions& options) {
  if (!view) return Status::Invalid("genotype gram: no genotype view");
  STRATA_ASSIGN_OR_RETURN(std::vector<float> luts, kept_standardize_luts<float>(counts, kept, scale));
  io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
  auto op = std::make_shared<GenotypeGramOperator>(std::move(sub), std::move(luts), options);
  const int64_t bytes = op->rows() * io::packed_row_bytes(op->cols());
  if (options.resident_bytes > 0 && bytes <= options.resident_bytes) {
    STRATA_RETURN_NOT_OK(op->load_resident());
  }
  return linalg::GramOperatorPtr(std::move(op));
}

bool genotype_gram_is_resident(const linalg::GramOperator& op) {
  const auto* g = dynamic_cast<const GenotypeGramOperator*>(&op);
  return g && g->resident();
}

}  // namespace strata::genomics
