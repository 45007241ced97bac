#pragma once
/// \file
/// VCF Zarr (spec v0.4) output: a Zarr v2 group with `call_genotype` (variants × samples ×
/// ploidy, int8: 0 = REF, k = k-th ALT, −1 missing, −2 fill), `call_genotype_mask`,
/// optionally `call_genotype_phased`, `variant_contig`, `variant_position`, `variant_id`,
/// `variant_allele` (REF first), `contig_id`, `sample_id`, each with `_ARRAY_DIMENSIONS`, the
/// root attribute `vcf_zarr_version: "0.4"`, and consolidated metadata (`.zmetadata`).
/// Numeric arrays have no Zarr fill value (bio2zarr's `fill_value: null`): with −1 there,
/// xarray's CF decoding (sgkit.load_dataset) would turn calls into float32 with NaN.
/// A store written from a VCF also gets each INFO/FORMAT field (htslib_vcf_fields.cpp).
///
/// Sources with PLINK sample columns also get `sample_family_id`, `sample_paternal_id`,
/// `sample_maternal_id` (str), `sample_sex` (int8: 0 unknown, 1 male, 2 female) and
/// `sample_phenotype` (str, as written in the `.fam`), so `.bed → .vcz → .bed` round-trips.
///
/// **Chunking** defaults to bio2zarr's: 1000 variants × 10000 samples (clipped to the data),
/// the ploidy and allele axes whole. Call arrays use Blosc zstd with bitshuffle at Blosc level
/// 3 (bio2zarr uses 7, i.e. zstd 13: on simulated genotypes level 3 stores within 3 % of its
/// size in about a third of the compression time); other arrays Blosc zstd level 7 with byte
/// shuffle. Memory while writing is about
/// variants_chunk × samples × ploidy bytes per block in flight.
///
/// The store is staged privately in an OutputSet (strata/core/output.hpp) and moved to PATH by
/// finish(), so an interrupted write never leaves a store that looks complete; an existing
/// store at PATH is replaced only with `overwrite`, and only when it is a Zarr store.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto bed, io::BedReader::open("cohort"));
/// STRATA_RETURN_NOT_OK(io::write_vcf_zarr(ctx, *bed, "cohort.vcz"));
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/dtype.hpp"
#include "strata/core/output.hpp"
#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/store.hpp"

namespace strata::io {

/// \brief What a VCF header adds to a store written from it: its FILTER lines (PASS first, then
/// header order) and its contig lengths (−1 where a contig has none).
struct VcfHeaderFields {
  std::vector<std::string> filter_id, filter_description;
  std::vector<int64_t> contig_length;
};

/// \brief QUAL and FILTER of a block of VCF records: quality[v] is QUAL as float32 (htslib's
/// missing value keeps its bits, the spec's missing NaN 0x7F800001); filter[v·filters + f] is 1
/// when filter f is listed in the record's FILTER column ("." lists none).
struct VcfRecordFields {
  std::vector<float> quality;
  std::vector<uint8_t> filter;
};

/// \brief Options of VCF Zarr output.
struct VczWriteOptions {
  int64_t variants_chunk = 1000;
  int64_t samples_chunk = 10000;
  std::string genotype_codec;   ///< CLI codec spec for call arrays ("" = blosc:zstd:3:bitshuffle)
  std::string codec;            ///< other arrays ("" = blosc:zstd:7:shuffle)
  bool overwrite = false;
  std::vector<std::string> inputs;  ///< never replaced (paths read by the command)
  /// Stage into this set (the caller commits it with its other outputs) instead of the
  /// writer's own; not owned.
  OutputSet* output_set = nullptr;
  /// Optional `sample_population` (int32 index per sample); names go to its attributes.
  std::vector<int32_t> sample_population;
  std::vector<std::string> population_names;
  /// A store written from a VCF: adds `variant_quality`, `variant_filter`, `filter_id`,
  /// `filter_description` and `contig_length` (when every contig's length is known).
  std::optional<VcfHeaderFields> vcf;
  /// Integer types of `variant_position` and `variant_contig` (bio2zarr picks the smallest
  /// that holds the values; the caller checked they fit). Arrays have no fill value, as
  /// bio2zarr's, so xarray/sgkit decode them as the integers they are.
  ScalarType position_type = ScalarType::Int32;
  ScalarType contig_type = ScalarType::Int32;
};

/// \brief Streams variants into a new VCF Zarr store. Append blocks whose length is a
/// multiple of variants_chunk (only the last may be shorter).
class VczWriter {
 public:
  /// \brief Start a store at `path` for `samples` with the given ploidy; `phased` adds
  /// `call_genotype_phased`.
  static Result<std::unique_ptr<VczWriter>> create(const Context& ctx, const std::string& path, const SampleInfo& samples,
                                                   int64_t ploidy, bool phased,
                                                   const VczWriteOptions& options);
  ~VczWriter();
  VczWriter(const VczWriter&) = delete;
  VczWriter& operator=(const VczWriter&) = delete;

  /// \brief Append variants with their calls: `genotypes` is info.size() × samples × ploidy
  /// int8 (VCF Zarr coding), `phased` info.size() × samples (nullptr when not phased).
  /// Alleles come from info.ref and info.alt (split at ','). `fields` (required when the
  /// writer was made with VczWriteOptions::vcf, ignored otherwise) holds QUAL and FILTER.
  Status append_calls(const VariantInfo& info, const int8_t* genotypes, const uint8_t* phased,
                      const VcfRecordFields* fields = nullptr);
  /// \brief Append variants given as 2-bit code rows (`stride` bytes apart, all samples),
  /// written as diploid unphased calls (requires ploidy 2).
  Status append_codes(const VariantInfo& info, const uint8_t* codes, int64_t stride);
  /// \brief Write the remaining metadata (`contig_id` from `contigs`, root attributes), fix
  /// the variant dimension, consolidate and rename into place.
  Status finish(const std::vector<std::string>& contigs);

  /// The store being written, for callers that add arrays (finished before finish()).
  std::shared_ptr<LocalStore> store() const;

  int64_t variants_written() const;
  int64_t variants_chunk() const;

 private:
  VczWriter();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// \brief Write every variant of `view` as VCF Zarr at `path`.
Status write_vcf_zarr(const Context& ctx, const GenotypeView& view, const std::string& path,
                      const VczWriteOptions& options = {});

}  // namespace strata::io
