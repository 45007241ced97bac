// RowBlockSource over standardized genotypes: 2-bit codes decoded through per-variant tables.
#include <vector>

#include "genomics/standardize_internal.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/io/genotype_decode.hpp"

namespace strata::genomics {
namespace {

// The transpose: samples × kept variants. A block of samples reads those samples' codes of
// every variant (a column panel of the genotype matrix), decodes it and transposes it. Exact
// PCA of a cohort with fewer variants than samples runs TSQR on this.
class TransposedStandardizedSource final : public linalg::RowBlockSource {
 public:
  TransposedStandardizedSource(io::GenotypeViewPtr view, std::vector<float> luts32, std::vector<double> luts64)
      : view_(std::move(view)), luts32_(std::move(luts32)), luts64_(std::move(luts64)) {}

  int64_t rows() const override { return view_->num_samples(); }
  int64_t cols() const override { return view_->num_variants(); }
  int64_t preferred_block_rows() const override {
    // Whole sample chunks, and whole bytes of packed codes.
    const int64_t c = view_->sample_chunk();
    return c > 0 ? (c + 3) / 4 * 4 : 4;
  }
  ScalarType natural_type() const override { return ScalarType::Float32; }
  std::string describe() const override { return view_->describe() + " (standardized, transposed)"; }

  Status read_block(int64_t row0, int64_t nrows, float* out) const override {
    return read<float>(row0, nrows, out, [&](const uint8_t* codes, int64_t stride, float* tmp) {
      io::decode_block_f32(codes, cols(), nrows, stride, luts32_.data(), tmp, nrows);
    });
  }
  Status read_block(int64_t row0, int64_t nrows, double* out) const override {
    return read<double>(row0, nrows, out, [&](const uint8_t* codes, int64_t stride, double* tmp) {
      io::decode_block_f64(codes, cols(), nrows, stride, luts64_.data(), tmp, nrows);
    });
  }

 private:
  template <class T, class Decode>
  Status read(int64_t row0, int64_t nrows, T* out, Decode decode) const {
    if (row0 < 0 || nrows < 0 || row0 + nrows > rows()) {
      return Status::Invalid(describe(), ": rows [", row0, ", ", row0 + nrows, ") out of range");
    }
    const int64_t m = cols(), stride = io::packed_row_bytes(nrows);
    std::vector<uint8_t> codes(static_cast<size_t>(m * stride));
    STRATA_RETURN_NOT_OK(view_->read_codes(0, m, row0, nrows, codes.data(), stride));
    std::vector<T> tmp(static_cast<size_t>(m * nrows));  // variants × samples
    decode(codes.data(), stride, tmp.data());
    for (int64_t v = 0; v < m; ++v)
      for (int64_t s = 0; s < nrows; ++s) out[s * m + v] = tmp[static_cast<size_t>(v * nrows + s)];
    return Status::OK();
  }

  io::GenotypeViewPtr view_;
  std::vector<float> luts32_;
  std::vector<double> luts64_;
};

class StandardizedSource final : public linalg::RowBlockSource {
 public:
  StandardizedSource(io::GenotypeViewPtr view, std::vector<float> luts32, std::vector<double> luts64)
      : view_(std::move(view)), luts32_(std::move(luts32)), luts64_(std::move(luts64)) {}

  int64_t rows() const override { return view_->num_variants(); }
  int64_t cols() const override { return view_->num_samples(); }
  int64_t preferred_block_rows() const override { return view_->variant_chunk(); }
  ScalarType natural_type() const override { return ScalarType::Float32; }
  std::string describe() const override { return view_->describe() + " (standardized)"; }
  Result<linalg::RowBlockSourcePtr> transposed() const override {
    return linalg::RowBlockSourcePtr(std::make_shared<TransposedStandardizedSource>(view_, luts32_, luts64_));
  }

  Status read_block(int64_t row0, int64_t nrows, float* out) const override {
    return read(row0, nrows, [&](const uint8_t* codes, int64_t stride) {
      io::decode_block_f32(codes, nrows, cols(), stride, luts32_.data() + row0 * 4, out, cols());
    });
  }
  Status read_block(int64_t row0, int64_t nrows, double* out) const override {
    return read(row0, nrows, [&](const uint8_t* codes, int64_t stride) {
      io::decode_block_f64(codes, nrows, cols(), stride, luts64_.data() + row0 * 4, out, cols());
    });
  }

 private:
  template <class Decode>
  Status read(int64_t row0, int64_t nrows, Decode decode) const {
    if (row0 < 0 || nrows < 0 || row0 + nrows > rows()) {
      return Status::Invalid(describe(), ": rows [", row0, ", ", row0 + nrows, ") out of range");
    }
    const int64_t stride = io::packed_row_bytes(cols());
    std::vector<uint8_t> codes(static_cast<size_t>(nrows * stride));
    STRATA_RETURN_NOT_OK(view_->read_codes(row0, nrows, 0, cols(), codes.data(), stride));
    decode(codes.data(), stride);
    return Status::OK();
  }

  io::GenotypeViewPtr view_;
  std::vector<float> luts32_;
  std::vector<double> luts64_;
};

}  // namespace

Result<linalg::RowBlockSourcePtr> make_standardized_source(const io::GenotypeViewPtr& view,
                                                           const std::vector<genomics::VariantCounts>& counts,
                                                           std::vector<int64_t> kept, genomics::Standardization scale) {
  if (!view) return Status::Invalid("pca: no genotype view");
  STRATA_ASSIGN_OR_RETURN(std::vector<float> l32, kept_standardize_luts<float>(counts, kept, scale));
  STRATA_ASSIGN_OR_RETURN(std::vector<double> l64, kept_standardize_luts<double>(counts, kept, scale));
  io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
  return linalg::RowBlockSourcePtr(std::make_shared<StandardizedSource>(std::move(sub), std::move(l32), std::move(l64)));
}

}  // namespace strata::genomics
