// RowBlockSource over standardized genotypes: 2-bit codes decoded through per-variant tables.
#include <vector>

#include "genomics/standardize_internal.hpp"
#include "strata/genomics/pca.hpp"
#include "strata/io/genotype_decode.hpp"

namespace strata::genomics {
namespace {

class StandardizedSource final : public linalg::RowBlockSource {
 public:
  StandardizedSource(io::GenotypeViewPtr view, std::vector<float> luts32, std::vector<double> luts64)
      : view_(std::move(view)), luts32_(std::move(luts32)), luts64_(std::move(luts64)) {}

  int64_t rows() const override { return view_->num_variants(); }
  int64_t cols() const override { return view_->num_samples(); }
  int64_t preferred_block_rows() const override { return view_->variant_chunk(); }
  ScalarType natural_type() const override { return ScalarType::Float32; }
  std::string describe() const override { return view_->describe() + " (standardized)"; }

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
                                                           const std::vector<io::VariantCounts>& counts,
                                                           std::vector<int64_t> kept, io::Standardization scale) {
  if (!view) return Status::Invalid("pca: no genotype view");
  STRATA_ASSIGN_OR_RETURN(std::vector<float> l32, kept_standardize_luts<float>(counts, kept, scale));
  STRATA_ASSIGN_OR_RETURN(std::vector<double> l64, kept_standardize_luts<double>(counts, kept, scale));
  io::GenotypeViewPtr sub = io::make_variant_subset(view, std::move(kept));
  return linalg::RowBlockSourcePtr(std::make_shared<StandardizedSource>(std::move(sub), std::move(l32), std::move(l64)));
}

}  // namespace strata::genomics
