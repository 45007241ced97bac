// Dosage matrices in memory → packed 2-bit codes (and the fractional rows' dosages in 1/16384)
// → a genotype view (genotype_dosage.hpp).
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "strata/io/genotype_dosage.hpp"

#include "io/genotype/dosage_internal.hpp"
#include "io/genotype/sample_ids_internal.hpp"

namespace strata::io {
namespace {

// Code of one dosage, or -1 when the value is not a hard call (fractional, above 2, infinite).
template <class T>
int code_of(T value) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(value) || value < 0) return kCodeMissing;
    if (value == 0) return kCodeHomRef;
    if (value == 1) return kCodeHet;
    if (value == 2) return kCodeHomAlt;
    return -1;
  } else {
    if constexpr (std::is_signed_v<T>) {
      if (value < 0) return kCodeMissing;
    }
    return value <= 2 ? static_cast<int>(value) : -1;
  }
}

template <class T>
Status not_a_dosage(T value, int64_t variant, int64_t sample, bool fractions_allowed) {
  if (fractions_allowed)
    return Status::InvalidData("dosage ", +value, " at variant ", variant, ", sample ", sample,
                               " is outside [0, 2] (negative or NaN for missing)");
  return Status::InvalidData("dosage ", +value, " at variant ", variant, ", sample ", sample,
                             " is not a genotype dosage (0, 1, 2, or negative / NaN for missing)");
}

// Packs one row of codes. With `units` (fractions allowed), a row holding a fractional dosage
// gets its dosages in 1/16384 and plink2's hard calls as codes; `units` stays empty otherwise.
template <class T>
Status pack_row(const T* row, int64_t n, int64_t col_stride, int64_t variant, uint8_t* dst,
                std::vector<uint16_t>* units) {
  bool fractional = false;
  for (int64_t j = 0; j < n; ++j) {
    const T value = row[j * col_stride];
    if (code_of(value) >= 0) continue;
    if constexpr (std::is_floating_point_v<T>) {
      if (units && detail::is_dosage_value(static_cast<double>(value))) {
        fractional = true;
        continue;
      }
    }
    return not_a_dosage(value, variant, j, units != nullptr);
  }
  if (fractional) {
    units->resize(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      const double value = static_cast<double>(row[j * col_stride]);
      (*units)[j] = std::isnan(value) || value < 0 ? detail::kDosageMissingUnits : detail::dosage_units(value);
    }
  }
  const int64_t row_bytes = packed_row_bytes(n);
  for (int64_t b = 0; b < row_bytes; ++b) {
    uint32_t byte = 0;
    for (int64_t q = 0; q < 4; ++q) {
      const int64_t j = 4 * b + q;
      int code = kCodeMissing;
      if (j < n) code = fractional ? detail::hard_call_of_units((*units)[j]) : code_of(row[j * col_stride]);
      byte |= static_cast<uint32_t>(code) << (2 * q);
    }
    dst[b] = static_cast<uint8_t>(byte);
  }
  return Status::OK();
}

template <class T>
Status pack_typed(const DosageMatrix& d, uint8_t* out, int64_t out_stride, int64_t row_offset,
                  std::vector<uint16_t>* units) {
  const T* base = static_cast<const T*>(d.data);
  for (int64_t r = 0; r < d.rows; ++r)
    STRATA_RETURN_NOT_OK(pack_row(base + r * d.row_stride, d.cols, d.col_stride, row_offset + r, out + r * out_stride,
                                  units ? units + r : nullptr));
  return Status::OK();
}

// pack_typed for the matrix's element type; `units` (one vector per row, or nullptr) as pack_row.
Status pack_any(const DosageMatrix& d, uint8_t* out, int64_t out_stride, int64_t row_offset,
                std::vector<uint16_t>* units) {
  switch (d.type) {
    case DosageType::Int8: return pack_typed<int8_t>(d, out, out_stride, row_offset, units);
    case DosageType::Int16: return pack_typed<int16_t>(d, out, out_stride, row_offset, units);
    case DosageType::Int32: return pack_typed<int32_t>(d, out, out_stride, row_offset, units);
    case DosageType::Int64: return pack_typed<int64_t>(d, out, out_stride, row_offset, units);
    case DosageType::UInt8: return pack_typed<uint8_t>(d, out, out_stride, row_offset, units);
    case DosageType::Float32: return pack_typed<float>(d, out, out_stride, row_offset, units);
    case DosageType::Float64: return pack_typed<double>(d, out, out_stride, row_offset, units);
  }
  return Status::Internal("pack_dosages: unknown dosage type");
}

// The codes view with the dosages of the rows that have fractional ones.
class DosageMemoryView final : public GenotypeView {
 public:
  DosageMemoryView(GenotypeViewPtr codes, std::vector<std::vector<uint16_t>> units)
      : codes_(std::move(codes)), units_(std::move(units)) {}
  int64_t num_variants() const override { return codes_->num_variants(); }
  int64_t num_samples() const override { return codes_->num_samples(); }
  std::string describe() const override { return codes_->describe(); }
  const SampleInfo& samples() const override { return codes_->samples(); }
  const std::vector<std::string>& contigs() const override { return codes_->contigs(); }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override { return codes_->variants(start, count); }
  Status read_codes(int64_t v0, int64_t nv, int64_t s0, int64_t ns, uint8_t* out, int64_t stride) const override {
    return codes_->read_codes(v0, nv, s0, ns, out, stride);
  }
  bool has_dosages() const override { return true; }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override {
    if (v0 < 0 || nv < 0 || v0 + nv > num_variants() || s0 < 0 || ns < 0 || s0 + ns > num_samples() || stride < ns)
      return Status::Invalid("read_dosages: block out of bounds (", describe(), ")");
    for (int64_t v = 0; v < nv; ++v) {
      const std::vector<uint16_t>& u = units_[static_cast<size_t>(v0 + v)];
      float* o = out + v * stride;
      if (u.empty()) {
        STRATA_RETURN_NOT_OK(codes_->read_dosages(v0 + v, 1, s0, ns, o, stride));
      } else {
        for (int64_t j = 0; j < ns; ++j) o[j] = detail::units_dosage(u[static_cast<size_t>(s0 + j)]);
      }
    }
    return Status::OK();
  }

 private:
  GenotypeViewPtr codes_;
  std::vector<std::vector<uint16_t>> units_;
};

Status check_shape(const DosageMatrix& d) {
  if (d.rows < 0 || d.cols < 0) return Status::Invalid("dosage matrix: negative shape ", d.rows, " x ", d.cols);
  if (d.rows > 0 && d.cols > 0 && d.data == nullptr) return Status::Invalid("dosage matrix: no data");
  return Status::OK();
}

}  // namespace

Status pack_dosages(const DosageMatrix& d, uint8_t* out, int64_t out_stride, int64_t row_offset) {
  STRATA_RETURN_NOT_OK(check_shape(d));
  if (out_stride < packed_row_bytes(d.cols))
    return Status::Invalid("pack_dosages: output stride ", out_stride, " is below ", packed_row_bytes(d.cols), " bytes");
  return pack_any(d, out, out_stride, row_offset, nullptr);
}

Result<DosageViewBuilder> DosageViewBuilder::make(int64_t num_variants, int64_t num_samples) {
  if (num_variants < 0 || num_samples < 0)
    return Status::Invalid("dosage matrix: negative shape ", num_variants, " x ", num_samples);
  STRATA_ASSIGN_OR_RETURN(int64_t bytes, checked_mul(num_variants, packed_row_bytes(num_samples)));
  return DosageViewBuilder(num_variants, num_samples, std::vector<uint8_t>(static_cast<size_t>(bytes), 0xFF));
}

Status DosageViewBuilder::add_rows(int64_t row0, const DosageMatrix& block) {
  STRATA_RETURN_NOT_OK(check_shape(block));
  if (block.cols != n_)
    return Status::Invalid("dosage block has ", block.cols, " samples, expected ", n_);
  if (row0 < 0 || row0 + block.rows > m_)
    return Status::Invalid("dosage block rows [", row0, ", ", row0 + block.rows, ") outside 0..", m_);
  const int64_t row_bytes = packed_row_bytes(n_);
  return pack_any(block, codes_.data() + row0 * row_bytes, row_bytes, row0, units_.data() + row0);
}

Status DosageViewBuilder::add_codes(int64_t row0, int64_t nrows, const uint8_t* codes) {
  if (nrows < 0 || row0 < 0 || row0 + nrows > m_)
    return Status::Invalid("dosage block rows [", row0, ", ", row0 + nrows, ") outside 0..", m_);
  const int64_t row_bytes = packed_row_bytes(n_);
  if (nrows > 0) std::memcpy(codes_.data() + row0 * row_bytes, codes, static_cast<size_t>(nrows * row_bytes));
  return Status::OK();
}

namespace {
// Sample IDs given with in-memory dosages follow the rules of every file reader: one per
// sample, none twice (the CLI refuses a .fam with a duplicate; so does Python's from_dosages).
Status check_given_samples(const SampleInfo& samples, int64_t n) {
  if (samples.size() == 0) return Status::OK();
  if (samples.size() != n) return Status::Invalid("sample_ids has ", samples.size(), " entries for ", n, " samples");
  return detail::check_unique_sample_ids(samples.id, "sample_ids");
}
}  // namespace

Result<GenotypeViewPtr> DosageViewBuilder::finish(SampleInfo samples, VariantInfo variants) && {
  STRATA_RETURN_NOT_OK(check_given_samples(samples, n_));
  if (samples.size() == 0) {
    samples.id.reserve(static_cast<size_t>(n_));
    for (int64_t i = 0; i < n_; ++i) samples.id.push_back(std::to_string(i));
  }
  std::vector<std::string> contigs{"0"};
  if (variants.size() == 0) {
    variants.reserve(m_);
    for (int64_t v = 0; v < m_; ++v) {
      variants.contig.push_back(0);
      variants.position.push_back(v + 1);
      variants.id.emplace_back(".");
      variants.ref.emplace_back("");
      variants.alt.emplace_back("");
      variants.cm.push_back(0.0);
    }
  }
  STRATA_ASSIGN_OR_RETURN(GenotypeViewPtr view, make_memory_genotypes(std::move(codes_), m_, n_, std::move(samples),
                                                                     std::move(contigs), std::move(variants)));
  bool any_dosages = false;
  for (const auto& u : units_) any_dosages |= !u.empty();
  if (!any_dosages) return view;
  return GenotypeViewPtr(std::make_shared<DosageMemoryView>(std::move(view), std::move(units_)));
}

Result<GenotypeViewPtr> make_dosage_genotypes(const DosageMatrix& dosages, SampleInfo samples, VariantInfo variants) {
  STRATA_RETURN_NOT_OK(check_shape(dosages));
  STRATA_RETURN_NOT_OK(check_given_samples(samples, dosages.cols));  // before packing
  STRATA_ASSIGN_OR_RETURN(DosageViewBuilder b, DosageViewBuilder::make(dosages.rows, dosages.cols));
  STRATA_RETURN_NOT_OK(b.add_rows(0, dosages));
  return std::move(b).finish(std::move(samples), std::move(variants));
}

}  // namespace strata::io
