#pragma once
// Variant and sample metadata of Zarr genotype stores, in the VCF Zarr naming
// (`variant_position`, `variant_contig` + `contig_id`, `variant_id`, `variant_allele`,
// `sample_id`) or the scikit-allel one (`variants/POS`, `variants/CHROM`, `variants/ID`,
// `variants/REF`, `variants/ALT`, `samples`). Every array is optional: absent ones give
// positions 1..M, contig "0", ID ".", empty alleles and samples named by index.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/io/zarr_strings.hpp"
#include "strata/io/genotype.hpp"
#include "strata/io/zarr.hpp"

namespace strata::io::detail {

class VariantMetadata {
 public:
  /// Open the metadata of `num_variants` variants in `group`; scans the allele array once
  /// to count multi-allelic sites (and, with Skip, to list the kept ones).
  static Result<VariantMetadata> open(const std::shared_ptr<Store>& store, const std::string& group,
                                      bool allel, int64_t num_variants, MultiallelicMode mode);
  const std::vector<std::string>& contigs() const { return contigs_; }
  Result<VariantInfo> read(int64_t start, int64_t count) const;
  /// Read-ahead hint for read(start, count) (remote stores; see ZarrArray::prefetch_region).
  void prefetch(int64_t start, int64_t count, int64_t window_bytes) const;
  SourceReport report() const { return report_; }
  /// Variants kept under MultiallelicMode::Skip (ascending).
  const std::vector<int64_t>& kept() const { return kept_; }

 private:
  int64_t m_ = 0;
  bool allel_ = false;
  std::optional<ZarrArray> position_, contig_;
  std::optional<ZarrStringArray> id_, alleles_, ref_, alt_, chrom_;
  std::vector<std::string> contigs_;
  std::vector<int32_t> chrom_index_;  // allel: contig of each variant (from variants/CHROM)
  SourceReport report_;
  std::vector<int64_t> kept_;
};

/// Sample IDs (and PLINK columns / populations when stored) of a group with `num_samples`.
Result<SampleInfo> read_sample_info(const std::shared_ptr<Store>& store, const std::string& group,
                                    bool allel, int64_t num_samples);

/// Integers of a 1-D region of any integer array, widened to int64.
Result<std::vector<int64_t>> read_int64(const ZarrArray& a, int64_t start, int64_t count);

}  // namespace strata::io::detail
