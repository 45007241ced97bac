// Dosage matrices in memory → packed 2-bit codes → a genotype view (genotype_dosage.hpp).
#include <cmath>
#include <cstring>
#include <string>
#include <type_traits>

#include "strata/io/genotype_dosage.hpp"

#include "io/genotype/sample_ids_internal.hpp"

namespace strata::io {
namespace {

// Code of one dosage, or -1 when the value is not a dosage (fractional, above 2, infinite).
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
Status pack_typed(const DosageMatrix& d, uint8_t* out, int64_t out_stride, int64_t row_offset) {
  const T* base = static_cast<const T*>(d.data);
  const int64_t row_bytes = packed_row_bytes(d.cols);
  for (int64_t r = 0; r < d.rows; ++r) {
    const T* row = base + r * d.row_stride;
    uint8_t* dst = out + r * out_stride;
    for (int64_t b = 0; b < row_bytes; ++b) {
      uint32_t byte = 0;
      const int64_t j0 = 4 * b;
      for (int64_t q = 0; q < 4; ++q) {
        const int64_t j = j0 + q;
        int code = kCodeMissing;
        if (j < d.cols) {
          const T value = row[j * d.col_stride];
          code = code_of(value);
          if (code < 0) {
            return Status::InvalidData("dosage ", +value, " at variant ", row_offset + r, ", sample ", j,
                                       " is not a genotype dosage (0, 1, 2, or negative / NaN for missing)");
          }
        }
        byte |= static_cast<uint32_t>(code) << (2 * q);
      }
      dst[b] = static_cast<uint8_t>(byte);
    }
  }
  return Status::OK();
}

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
  switch (d.type) {
    case DosageType::Int8: return pack_typed<int8_t>(d, out, out_stride, row_offset);
    case DosageType::Int16: return pack_typed<int16_t>(d, out, out_stride, row_offset);
    case DosageType::Int32: return pack_typed<int32_t>(d, out, out_stride, row_offset);
    case DosageType::Int64: return pack_typed<int64_t>(d, out, out_stride, row_offset);
    case DosageType::UInt8: return pack_typed<uint8_t>(d, out, out_stride, row_offset);
    case DosageType::Float32: return pack_typed<float>(d, out, out_stride, row_offset);
    case DosageType::Float64: return pack_typed<double>(d, out, out_stride, row_offset);
  }
  return Status::Internal("pack_dosages: unknown dosage type");
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
  return pack_dosages(block, codes_.data() + row0 * row_bytes, row_bytes, row0);
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
  return make_memory_genotypes(std::move(codes_), m_, n_, std::move(samples), std::move(contigs),
                               std::move(variants));
}

Result<GenotypeViewPtr> make_dosage_genotypes(const DosageMatrix& dosages, SampleInfo samples, VariantInfo variants) {
  STRATA_RETURN_NOT_OK(check_shape(dosages));
  STRATA_RETURN_NOT_OK(check_given_samples(samples, dosages.cols));  // before packing
  STRATA_ASSIGN_OR_RETURN(DosageViewBuilder b, DosageViewBuilder::make(dosages.rows, dosages.cols));
  STRATA_RETURN_NOT_OK(b.add_rows(0, dosages));
  return std::move(b).finish(std::move(samples), std::move(variants));
}

}  // namespace strata::io
