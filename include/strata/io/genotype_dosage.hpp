#pragma once
/// \file
/// Genotype views over dosage matrices held in memory (numpy / Dask blocks from Python, test
/// data): variants × samples ALT dosages in [0, 2], missing as any negative value or NaN. The
/// dosages are packed once into the 2-bit codes of genotype.hpp — a quarter of an int8 matrix —
/// so every algorithm reads them like a `.bed`. A row holding a fractional dosage (imputed data)
/// also keeps its dosages as plink2 stores them: units of 1/16384 (2 bytes a genotype, the value
/// rounded to the nearest unit), with plink2's hard calls as its codes (the nearest of 0, 1, 2
/// within 0.1, else missing); such a view has_dosages() and read_dosages() gives them back.

#include <cstdint>
#include <utility>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {

/// \brief Element types a dosage matrix may hold.
enum class DosageType : uint8_t { Int8, Int16, Int32, Int64, UInt8, Float32, Float64 };

/// \brief A strided (variants × samples) dosage matrix in memory, not owned. Strides count
/// elements (numpy's byte strides divided by the item size), so C order, F order and slices
/// are read in place.
struct DosageMatrix {
  const void* data = nullptr;
  DosageType type = DosageType::Int8;
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t row_stride = 0;
  int64_t col_stride = 1;
};

/// \brief Pack `dosages` into rows of codes `out_stride` bytes apart (trailing pairs of a row
/// are code 3). 0, 1, 2 become their codes; negative values and NaN are missing; any other
/// value (fractional ones included: codes alone cannot keep them) is InvalidData naming it and
/// its (variant, sample), variants offset by `row_offset`.
Status pack_dosages(const DosageMatrix& dosages, uint8_t* out, int64_t out_stride, int64_t row_offset = 0);

/// \brief Assembles a genotype view from row blocks of dosages packed as they arrive (the
/// chunks of a Dask array), holding only the packed codes.
class DosageViewBuilder {
 public:
  /// \brief A builder for `num_variants` × `num_samples`; Invalid for negative extents.
  static Result<DosageViewBuilder> make(int64_t num_variants, int64_t num_samples);
  /// \brief Pack the rows [row0, row0 + block.rows) (all samples); rows with a fractional
  /// dosage keep their dosages too (see the file comment). A value above 2 (or infinite) is
  /// InvalidData naming its variant and sample. Blocks covering disjoint rows may be added from
  /// several threads at once.
  Status add_rows(int64_t row0, const DosageMatrix& block);
  /// \brief Copy `nrows` rows already packed by pack_dosages (packed_row_bytes(samples) apart)
  /// to rows [row0, row0 + nrows): blocks packed elsewhere (Dask workers) and shipped packed.
  Status add_codes(int64_t row0, int64_t nrows, const uint8_t* codes);
  /// \brief The view over all rows. `samples` / `variants` may be empty: sample IDs are then
  /// "0", "1", … and variant IDs "." on contig "0" at positions 1, 2, …
  Result<GenotypeViewPtr> finish(SampleInfo samples, VariantInfo variants) &&;

  int64_t num_variants() const { return m_; }
  int64_t num_samples() const { return n_; }

 private:
  DosageViewBuilder(int64_t m, int64_t n, std::vector<uint8_t> codes)
      : m_(m), n_(n), codes_(std::move(codes)), units_(static_cast<size_t>(m)) {}
  int64_t m_ = 0;
  int64_t n_ = 0;
  std::vector<uint8_t> codes_;
  std::vector<std::vector<uint16_t>> units_;  // per row: its dosages in 1/16384, empty when all are calls
};

/// \brief Pack a whole dosage matrix and wrap it as a view (see DosageViewBuilder::finish).
Result<GenotypeViewPtr> make_dosage_genotypes(const DosageMatrix& dosages, SampleInfo samples = {},
                                              VariantInfo variants = {});

}  // namespace strata::io
