// RowBlockSource over standardized genotypes: 2-bit codes decoded through per-variant tables,
// or a source's dosages through the same tables built from their frequencies (plink2 --pca
// reads dosages where the source has them).
#include <algorithm>
#include <string>
#include <vector>

#include "genomics/dosage_standardize.hpp"
#include "genomics/standardize_internal.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/thread_pool.hpp"

namespace strata::genomics {
namespace {

// Variants × samples (PCA's streamed rows), or its transpose, samples × variants (a column
// panel per block: exact PCA of a cohort with fewer variants than samples runs TSQR on it).
class StandardizedSource final : public linalg::RowBlockSource {
 public:
  StandardizedSource(const Context& ctx, io::GenotypeViewPtr view, std::vector<float> luts32,
                     std::vector<double> luts64, bool transposed)
      : ctx_(ctx), view_(std::move(view)), luts32_(std::move(luts32)), luts64_(std::move(luts64)),
        transposed_(transposed) {}

  int64_t rows() const override { return transposed_ ? view_->num_samples() : view_->num_variants(); }
  int64_t cols() const override { return transposed_ ? view_->num_variants() : view_->num_samples(); }
  int64_t preferred_block_rows() const override {
    if (!transposed_) return view_->variant_chunk();
    // Whole sample chunks, and whole bytes of packed codes.
    const int64_t c = view_->sample_chunk();
    return c > 0 ? (c + 3) / 4 * 4 : 4;
  }
  ScalarType natural_type() const override { return ScalarType::Float32; }
  std::string describe() const override {
    return view_->describe() + (transposed_ ? " (standardized, transposed)" : " (standardized)");
  }
  Result<linalg::RowBlockSourcePtr> transposed() const override {
    return linalg::RowBlockSourcePtr(std::make_shared<StandardizedSource>(ctx_, view_, luts32_, luts64_, !transposed_));
  }

  Status read_block(int64_t row0, int64_t nrows, float* out) const override {
    return read(row0, nrows, out, luts32_.data());
  }
  Status read_block(int64_t row0, int64_t nrows, double* out) const override {
    return read(row0, nrows, out, luts64_.data());
  }

 private:
  template <class T>
  Status read(int64_t row0, int64_t nrows, T* out, const T* luts) const {
    if (row0 < 0 || nrows < 0 || row0 + nrows > rows()) {
      return Status::Invalid(describe(), ": rows [", row0, ", ", row0 + nrows, ") out of range");
    }
    if (view_->has_dosages()) return read_dosages(row0, nrows, out, luts);
    const backend::Backend& be = backend::of(ctx_);
    if (!transposed_) {
      const int64_t stride = io::packed_row_bytes(cols());
      std::vector<uint8_t> codes(static_cast<size_t>(nrows * stride));
      STRATA_RETURN_NOT_OK(view_->read_codes(row0, nrows, 0, cols(), codes.data(), stride));
      return be.decode({codes.data(), nrows, cols(), stride}, luts + row0 * 4, backend::row_major(out, nrows, cols()));
    }
    // The codes of the panel are variants × samples; out (samples × variants, row-major) is
    // the same matrix column-major, so the backend decodes straight into it.
    const int64_t m = cols(), stride = io::packed_row_bytes(nrows);
    std::vector<uint8_t> codes(static_cast<size_t>(m * stride));
    STRATA_RETURN_NOT_OK(view_->read_codes(0, m, row0, nrows, codes.data(), stride));
    return be.decode({codes.data(), m, nrows, stride}, luts, backend::col_major(out, m, nrows, m));
  }

  // The dosages of the block (rows of variants, or the panel's samples × variants) through
  // their variants' tables.
  template <class T>
  Status read_dosages(int64_t row0, int64_t nrows, T* out, const T* luts) const {
    if (!transposed_) {
      const int64_t n = cols();
      std::vector<float> d(static_cast<size_t>(nrows * n));
      STRATA_RETURN_NOT_OK(view_->read_dosages(row0, nrows, 0, n, d.data(), n));
      for (int64_t r = 0; r < nrows; ++r) {
        const T* lut = luts + (row0 + r) * 4;
        for (int64_t j = 0; j < n; ++j) out[r * n + j] = standardize_dosage(d[static_cast<size_t>(r * n + j)], lut);
      }
      return Status::OK();
    }
    const int64_t m = cols();
    std::vector<float> d(static_cast<size_t>(m * nrows));
    STRATA_RETURN_NOT_OK(view_->read_dosages(0, m, row0, nrows, d.data(), nrows));
    for (int64_t v = 0; v < m; ++v)
      for (int64_t s = 0; s < nrows; ++s) out[s * m + v] = standardize_dosage(d[static_cast<size_t>(v * nrows + s)], luts + v * 4);
    return Status::OK();
  }

  Context ctx_;  // a handle: the backend the blocks decode on
  io::GenotypeViewPtr view_;
  std::vector<float> luts32_;
  std::vector<double> luts64_;
  bool transposed_;
};

// The rows of a source held in memory as float32 (a dosage source's standardized rows, read
// once instead of decoded again on every randomized pass).
class ResidentFloatSource final : public linalg::RowBlockSource {
 public:
  ResidentFloatSource(std::vector<float> rows, int64_t m, int64_t n, std::string what)
      : rows_(std::move(rows)), m_(m), n_(n), what_(std::move(what)) {}
  int64_t rows() const override { return m_; }
  int64_t cols() const override { return n_; }
  ScalarType natural_type() const override { return ScalarType::Float32; }
  std::string describe() const override { return what_ + " (in memory)"; }
  Status read_block(int64_t row0, int64_t nrows, float* out) const override {
    STRATA_RETURN_NOT_OK(check(row0, nrows));
    std::copy(rows_.begin() + row0 * n_, rows_.begin() + (row0 + nrows) * n_, out);
    return Status::OK();
  }
  Status read_block(int64_t row0, int64_t nrows, double* out) const override {
    STRATA_RETURN_NOT_OK(check(row0, nrows));
    std::copy(rows_.begin() + row0 * n_, rows_.begin() + (row0 + nrows) * n_, out);
    return Status::OK();
  }

 private:
  Status check(int64_t row0, int64_t nrows) const {
    if (row0 < 0 || nrows < 0 || row0 + nrows > m_)
      return Status::Invalid(describe(), ": rows [", row0, ", ", row0 + nrows, ") out of range");
    return Status::OK();
  }
  std::vector<float> rows_;
  int64_t m_, n_;
  std::string what_;
};

}  // namespace

Result<linalg::RowBlockSourcePtr> resident_float_rows(const Context& ctx, const linalg::RowBlockSourcePtr& source) {
  const int64_t m = source->rows(), n = source->cols();
  std::vector<float> rows(static_cast<size_t>(m * n));
  const int64_t per = std::max<int64_t>(1, (int64_t{8} << 20) / (4 * std::max<int64_t>(1, n)));
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for((m + per - 1) / per, [&](int64_t b) -> Status {
    const int64_t r0 = b * per;
    return source->read_block(r0, std::min(per, m - r0), rows.data() + r0 * n);
  }));
  return linalg::RowBlockSourcePtr(std::make_shared<ResidentFloatSource>(std::move(rows), m, n, source->describe()));
}

Result<linalg::RowBlockSourcePtr> make_standardized_source(const Context& ctx, const io::GenotypeViewPtr& view,
                                                           const std::vector<genomics::VariantCounts>& counts,
                                                           std::vector<int64_t> kept, genomics::Standardization scale,
                                                           bool nonfounders) {
  if (!view) return Status::Invalid("pca: no genotype view");
  if (view->has_dosages()) {
    // The tables come from the kept variants' dosage frequencies (one pass over them).
    for (int64_t v : kept)
      if (v < 0 || v >= view->num_variants()) return Status::Invalid("pca: variant index ", v, " out of range");
    io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
    STRATA_ASSIGN_OR_RETURN(const DosageMoments moments, dosage_moments(ctx, *sub, nonfounders));
    return linalg::RowBlockSourcePtr(std::make_shared<StandardizedSource>(
        ctx, std::move(sub), dosage_standardize_luts<float>(moments, scale), dosage_standardize_luts<double>(moments, scale),
        false));
  }
  STRATA_ASSIGN_OR_RETURN(std::vector<float> l32, kept_standardize_luts<float>(counts, kept, scale));
  STRATA_ASSIGN_OR_RETURN(std::vector<double> l64, kept_standardize_luts<double>(counts, kept, scale));
  io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
  return linalg::RowBlockSourcePtr(std::make_shared<StandardizedSource>(ctx, std::move(sub), std::move(l32), std::move(l64), false));
}

}  // namespace strata::genomics
