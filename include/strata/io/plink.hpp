#pragma once
/// \file
/// PLINK 1 binary filesets: `.bed` (variant-major, 2 bits per call) with its `.bim` (variants)
/// and `.fam` (samples), read in place and written atomically.
///
/// **Allele direction.** `.bim` column 5 (A1) is the ALT allele and column 6 (A2) the REF
/// allele, as in plink2. `.bed` code 00 (homozygous A1) is therefore ALT dosage 2, 10 is 1,
/// 11 is 0 and 01 is missing; the reader remaps these to the canonical codes of
/// genotype.hpp through one 256-entry byte table, and the writer does the reverse.
/// `plink2 --export A` counts REF (A2) by default, which is `2 − dosage` here.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto bed, io::BedReader::open("hapmap3"));   // or "hapmap3.bed"
/// STRATA_ASSIGN_OR_RETURN(auto block, io::read_genotype_block(*bed, 0, 1000));
/// STRATA_RETURN_NOT_OK(io::write_plink(*bed, "copy"));
/// \endcode

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/output.hpp"
#include "strata/core/result.hpp"
#include "strata/io/genotype.hpp"

namespace strata::io {

/// \brief The three paths of a fileset given a prefix or a path ending in .bed/.bim/.fam.
struct PlinkPaths {
  std::string bed, bim, fam;
};
PlinkPaths plink_paths(const std::string& prefix_or_path);

/// \brief Parse a `.fam` file: 6 whitespace-separated columns (more are ignored), or the columns
/// a `#FID IID …`/`#IID …` header names (FID, IID, PAT, MAT, SEX, then the phenotype; absent
/// ones get plink2's defaults). As plink2: `#` lines before the header or first sample are
/// comments; a `#` line after either, and blank lines between samples, are refused; sex 1/M/m is
/// male, 2/F/f female, anything else unknown; the phenotype is kept as text but refused where
/// plink2 refuses it (see plink_numbers_internal.hpp). Errors name the file and the 1-based line.
Result<SampleInfo> read_fam(const std::string& path);

/// \brief A parsed `.bim`: contig names in order of first appearance, and one row per variant.
struct BimTable {
  std::vector<std::string> contigs;
  VariantInfo variants;
  int64_t negative_positions = 0;  ///< variants plink2 skips (open_genotypes leaves them out)
};
/// \brief The largest base-pair position plink2 reads (2^31 − 2).
inline constexpr int64_t kMaxBimPosition = 2147483646;
/// \brief Parse a `.bim` file: 6 whitespace-separated columns (chrom id cM position A1 A2) or 5
/// without cM, more ignored, or the order a `#CHROM` header names; `#` comment lines may open it.
/// ALT = A1, REF = A2. Numbers as plink2 reads them (cM: a decimal number; position: an integer,
/// or a whole number in R/pandas notation such as `1e+05`/`100.0`, read as its value with a
/// warning since plink2 reads only its leading digits). Refused as plink2 refuses them: blank
/// lines between variants, positions beyond ±kMaxBimPosition, numeric chromosome codes above 26
/// (not human: 23–26 would be read as X, Y, XY and MT), non-numeric or non-finite cM.
Result<BimTable> read_bim(const std::string& path);

/// \brief The 256-entry byte tables between `.bed` codes and canonical codes.
const uint8_t* bed_to_code_table();
const uint8_t* code_to_bed_table();

/// \brief A `.bed/.bim/.fam` fileset opened read-only. The `.bed` is read with positioned
/// reads (not mapped, so streaming a large file does not grow the resident set); the
/// `.bim/.fam` are held in memory. Checks the magic bytes (`6c 1b 01`; sample-major `6c 1b 00`
/// is refused as Unsupported), that the size is 3 + M·⌈N/4⌉ for the M `.bim` and N `.fam`
/// lines, and names the file and the mismatch otherwise.
class BedReader final : public GenotypeView {
 public:
  /// `pool` (optional): the caller's threads, which read the .fam and the .bim side by side.
  static Result<std::shared_ptr<BedReader>> open(const std::string& prefix_or_path, ThreadPool* pool = nullptr);
  ~BedReader() override;

  int64_t num_variants() const override { return num_variants_; }
  int64_t num_samples() const override { return samples_.size(); }
  std::string describe() const override { return paths_.bed; }
  const SampleInfo& samples() const override { return samples_; }
  const std::vector<std::string>& contigs() const override { return bim_.contigs; }
  Result<VariantInfo> variants(int64_t start, int64_t count) const override;
  const VariantInfo* variant_table() const override { return &bim_.variants; }
  Status read_codes(int64_t variant_start, int64_t variant_count, int64_t sample_start,
                    int64_t sample_count, uint8_t* out, int64_t stride) const override;
  int64_t variant_chunk() const override;

  const PlinkPaths& paths() const { return paths_; }
  /// Variants whose `.bim` position is negative (plink2 skips them; open_genotypes does too).
  int64_t negative_positions() const { return bim_.negative_positions; }

 private:
  // Rows [v0, v0 + nv) of the file as they are, back to back into `out`.
  Status pread_rows(int64_t v0, int64_t nv, uint8_t* out) const;
  BedReader() = default;
  PlinkPaths paths_;
  SampleInfo samples_;
  BimTable bim_;
  int64_t num_variants_ = 0;
  int64_t row_bytes_ = 0;
  int fd_ = -1;
};

/// \brief Where a fileset goes: its own OutputSet (committed by finish()), or a set the caller
/// shares with other outputs and commits itself.
struct BedWriteTarget {
  OutputSet* output_set = nullptr;  ///< not owned; nullptr = the writer's own set
  OutputRules rules;                ///< for the writer's own set (inputs never replaced)
};

/// \brief Writes a fileset privately (strata/core/output.hpp); finish() moves `.bim`, `.fam` and
/// `.bed` into place together, so an interrupted write never leaves a fileset that looks
/// complete. Existing files of the fileset are replaced. Destroying an unfinished writer
/// removes what it staged.
class BedWriter {
 public:
  /// \brief Start a fileset at `prefix` (".bed/.bim/.fam" are appended) for `samples`.
  static Result<std::unique_ptr<BedWriter>> create(const std::string& prefix, const SampleInfo& samples,
                                                   const BedWriteTarget& target = {});
  ~BedWriter();
  BedWriter(const BedWriter&) = delete;
  BedWriter& operator=(const BedWriter&) = delete;

  /// \brief Append `info.size()` variants: their `.bim` lines and canonical code rows
  /// (`stride` bytes apart, all samples). `contigs` names info.contig entries.
  Status append(const VariantInfo& info, const std::vector<std::string>& contigs,
                const uint8_t* codes, int64_t stride);
  /// \brief Flush, check, and commit (when the writer owns its OutputSet).
  Status finish();
  int64_t variants_written() const { return variants_written_; }

 private:
  BedWriter() = default;
  struct Impl;
  std::unique_ptr<Impl> impl_;
  int64_t variants_written_ = 0;
};

/// \brief Options for write_plink.
struct PlinkWriteOptions {
  int64_t block_variants = 0;  ///< 0 = about 8 MiB of codes per block
  BedWriteTarget target;
};

/// \brief Write every variant of `view` as a PLINK 1 fileset at `prefix`. Multi-allelic
/// variants (ALT with ',') are written with the joined ALT list in column 5; plink2 refuses
/// those, so open the source with MultiallelicMode::Skip when the output is for plink2.
Status write_plink(const Context& ctx, const GenotypeView& view, const std::string& prefix,
                   const PlinkWriteOptions& options = {});

/// \brief Format one `.fam` line (no newline) of sample `i`; missing columns get PLINK's
/// defaults (FID = "0", parents "0", sex 0, phenotype "-9").
std::string format_fam_line(const SampleInfo& samples, int64_t i);

}  // namespace strata::io
