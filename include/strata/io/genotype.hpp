#pragma once
/// \file
/// The genotype view: one interface over every genotype source (PLINK 1 `.bed`, VCF Zarr,
/// the scikit-allel layout, plain dosage Zarr arrays, simulated cohorts) that hands out blocks
/// of variants × samples as packed 2-bit codes.
///
/// **Codes** (strata's canonical order, used by every view and kernel):
///
/// | code | meaning                                   |
/// |------|-------------------------------------------|
/// | 0    | no ALT allele (homozygous REF)             |
/// | 1    | one ALT allele (heterozygous)             |
/// | 2    | two ALT alleles (homozygous ALT)          |
/// | 3    | missing                                   |
///
/// so a non-missing code *is* the ALT dosage. Four codes are packed per byte, sample-minor,
/// exactly as in a `.bed` row: sample j of a row sits in bits 2(j mod 4)..2(j mod 4)+1 of
/// byte ⌊j/4⌋ (low bits first). Trailing pairs of a row's last byte are always code 3
/// (missing), so whole-byte kernels can ignore the row length.
///
/// **Allele direction.** The dosage counts the ALT allele: VCF ALT (any non-REF allele for
/// multi-allelic sites, see below), and for PLINK 1 the `.bim` column-5 allele (A1), which
/// plink2 calls ALT (`.bim` column 6 = A2 = REF). This equals plink2's `ALT_FREQS`, VCF Zarr's
/// `call_genotype` ALT count, and `2 −` what `plink2 --export A` prints (that counts REF).
///
/// **Ploidy.** A haploid call is coded as homozygous (REF → 0, ALT → 2), which is how plink2
/// imports haploid VCF calls and how a `.bed` stores them; a haploid missing call is missing.
/// Calls with more than two alleles (polyploid) are coded missing and counted in
/// SourceReport::polyploid_calls. A call with any missing allele is missing.
///
/// **Multi-allelic sites** count every non-REF allele (non-reference dosage) or, with
/// MultiallelicMode::Skip, are left out of the view; SourceReport says how many.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "strata/core/buffer.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/core/result.hpp"
#include "strata/core/shape.hpp"

namespace strata {
class ThreadPool;
}  // namespace strata

namespace strata::io {

/// \brief Canonical 2-bit genotype codes (see the file comment).
enum GenotypeCode : uint8_t {
  kCodeHomRef = 0,
  kCodeHet = 1,
  kCodeHomAlt = 2,
  kCodeMissing = 3,
};

/// \brief Bytes of one packed row of `num_samples` codes: ⌈num_samples / 4⌉.
constexpr int64_t packed_row_bytes(int64_t num_samples) { return (num_samples + 3) / 4; }

/// \brief Code of sample `j` in a packed row.
inline uint8_t code_at(const uint8_t* row, int64_t j) {
  return static_cast<uint8_t>((row[j >> 2] >> (2 * (j & 3))) & 3);
}
/// \brief Store `code` for sample `j` in a packed row (other samples untouched).
inline void set_code(uint8_t* row, int64_t j, uint8_t code) {
  const int shift = static_cast<int>(2 * (j & 3));
  row[j >> 2] = static_cast<uint8_t>((row[j >> 2] & ~(3u << shift)) | ((code & 3u) << shift));
}

/// \brief What to do with sites that have more than one ALT allele.
enum class MultiallelicMode : uint8_t {
  NonRefDosage,  ///< count every non-REF allele (default)
  Skip,          ///< leave the site out of the view
};
/// \brief "nonref" or "skip".
const char* multiallelic_mode_name(MultiallelicMode mode);
/// \brief The inverse of multiallelic_mode_name; Invalid otherwise.
Result<MultiallelicMode> parse_multiallelic_mode(const std::string& name);

/// \brief Per-sample metadata. Vectors all have num_samples entries (or are empty where the
/// source has no such column).
struct SampleInfo {
  std::vector<std::string> id;          ///< sample / individual ID (VCF sample, `.fam` IID)
  std::vector<std::string> family_id;   ///< `.fam` FID; for simulations the population label
  std::vector<std::string> paternal_id; ///< `.fam` column 3 ("0" = unknown)
  std::vector<std::string> maternal_id; ///< `.fam` column 4
  std::vector<int8_t> sex;              ///< 1 male, 2 female, 0 unknown
  std::vector<std::string> phenotype;   ///< `.fam` column 6 as written ("-9", "2", "NA", ...)
  std::vector<std::string> population;  ///< population label when the source has one
  int64_t size() const { return static_cast<int64_t>(id.size()); }
};

/// \brief Metadata of a contiguous range of variants [start, start + size()).
struct VariantInfo {
  int64_t start = 0;
  std::vector<int32_t> contig;     ///< index into GenotypeView::contigs()
  std::vector<int64_t> position;   ///< 1-based base-pair position
  std::vector<std::string> id;     ///< variant ID ("." when unknown)
  std::vector<std::string> ref;    ///< REF allele (`.bim` column 6)
  std::vector<std::string> alt;    ///< ALT alleles joined by ','; "" when there is none
  std::vector<double> cm;          ///< genetic position in cM (`.bim` column 3), 0 if unknown
  int64_t size() const { return static_cast<int64_t>(position.size()); }
  /// Reserve room for n variants.
  void reserve(int64_t n);
  /// Append variant `i` of `other`.
  void append_from(const VariantInfo& other, int64_t i);
  /// Append variants [i, i + count) of `other` (one copy per column).
  void append_range(const VariantInfo& other, int64_t i, int64_t count);
};

/// \brief What a source did while mapping its calls to codes.
struct SourceReport {
  int64_t multiallelic_sites = 0;   ///< sites with > 1 ALT allele (kept or skipped)
  int64_t skipped_sites = 0;        ///< sites left out of the view (MultiallelicMode::Skip)
  int64_t polyploid_calls = 0;      ///< calls with > 2 alleles coded missing (counted as read)
};

/// \brief Options shared by every genotype source.
struct GenotypeOpenOptions {
  MultiallelicMode multiallelic = MultiallelicMode::NonRefDosage;
  /// Zarr: path of the array inside the store ("" = detect: call_genotype, calldata/GT,
  /// <contig>/calldata/GT, or a root 2-D integer array).
  std::string array;
  /// VCF/BCF: the FORMAT field read as dosages, as plink2's `--vcf FILE dosage=FIELD`: "" (GT
  /// only), "DS", "HDS" or "GP". Hard calls come from GT, or from the dosage (within 0.1 of an
  /// integer) where a record has no GT.
  std::string vcf_dosage;
  /// BGEN: the sample file (plink2's `--sample`; "" = x.sample beside x.bgen when present).
  std::string bgen_sample;
  /// VCF/BCF: BGZF decompression threads (≤ 1: none) and the bytes the decoded codes may take
  /// (0: default_memory_budget()); open_selected_genotypes sets both from its Context.
  int threads = 0;
  int64_t memory_budget = 0;
  /// The caller's pool (not owned; nullptr: none): a PLINK fileset's .fam and .bim are read on
  /// it side by side. open_selected_genotypes passes its Context's.
  ThreadPool* pool = nullptr;
  /// VCF/BCF with a `.tbi`/`.csi` index: read only the contigs this accepts (unset: all) and,
  /// with bp_to > 0, only positions [bp_from, bp_to] of them. Without an index every record is
  /// read; either way the caller still filters (this only saves the reading).
  std::function<bool(const std::string&)> vcf_contig_filter;
  int64_t vcf_bp_from = 0, vcf_bp_to = 0;
};

/// \brief A read-only (variants × samples) genotype matrix handing out 2-bit code blocks.
///
/// Implementations are thread-safe: read_codes and variants may be called concurrently.
class GenotypeView {
 public:
  virtual ~GenotypeView() = default;

  virtual int64_t num_variants() const = 0;
  virtual int64_t num_samples() const = 0;
  /// \brief The source, for messages (a path).
  virtual std::string describe() const = 0;
  virtual const SampleInfo& samples() const = 0;
  /// \brief Contig names; VariantInfo::contig indexes this list.
  virtual const std::vector<std::string>& contigs() const = 0;
  /// \brief Metadata of variants [start, start + count).
  virtual Result<VariantInfo> variants(int64_t start, int64_t count) const = 0;
  /// \brief Every variant's metadata when the source holds it in memory (what
  /// variants(0, num_variants()) returns, without the copy; `cm` may be shorter, missing values
  /// are 0), else nullptr.
  virtual const VariantInfo* variant_table() const { return nullptr; }

  /// \brief Read the codes of variants [variant_start, +variant_count) × samples
  /// [sample_start, +sample_count) into `out`: variant_count rows, `stride` bytes apart
  /// (stride ≥ packed_row_bytes(sample_count)), sample 0 of the box in the low bits of byte 0.
  /// Trailing pairs of each row are set to kCodeMissing; bytes past the row are untouched.
  virtual Status read_codes(int64_t variant_start, int64_t variant_count, int64_t sample_start,
                            int64_t sample_count, uint8_t* out, int64_t stride) const = 0;

  /// \brief Whether the source carries dosages beyond its hard calls (VCF DS/HDS/GP, pgen
  /// dosage tracks, BGEN probabilities, fractional Zarr dosages). Such a source's read_codes
  /// gives plink2's hard calls (a dosage within the hard-call threshold of 0, 1 or 2, else
  /// missing); read_dosages gives the dosages themselves.
  virtual bool has_dosages() const { return false; }
  /// \brief Read the ALT dosages of the box (as read_codes): variant_count rows of
  /// sample_count floats, `stride` floats apart (stride ≥ sample_count); missing is NaN. The
  /// scale is the codes' (0..2; a haploid call counts as homozygous). Sources quantize as
  /// plink2 stores dosages (multiples of 1/16384, exact in float) where plink2 does. The
  /// default reads the codes (0, 1, 2, NaN).
  virtual Status read_dosages(int64_t variant_start, int64_t variant_count, int64_t sample_start,
                              int64_t sample_count, float* out, int64_t stride) const;

  /// \brief Natural block extents of the source (storage chunks); readers should align to them.
  virtual int64_t variant_chunk() const { return 4096; }
  virtual int64_t sample_chunk() const { return num_samples(); }

  /// \brief Counts gathered while opening (multi-allelic, skipped, polyploid).
  virtual SourceReport report() const { return {}; }

  /// \brief Whether the prefetch hints below do anything: the source waits on a network round
  /// trip per read (a remote Zarr store), so passes should hint reads ahead of time.
  virtual bool reads_ahead() const { return false; }
  /// \brief Read-ahead hint: read_codes of variants [variant_start, +variant_count), all
  /// samples, comes soon; a remote source starts fetching (at most `window_bytes` ahead).
  /// Never blocks and never changes what a read returns.
  virtual void prefetch_codes(int64_t variant_start, int64_t variant_count, int64_t window_bytes) const {
    (void)variant_start, (void)variant_count, (void)window_bytes;
  }
  /// \brief The same for variants(start, count).
  virtual void prefetch_variants(int64_t start, int64_t count, int64_t window_bytes) const {
    (void)start, (void)count, (void)window_bytes;
  }
};

using GenotypeViewPtr = std::shared_ptr<const GenotypeView>;

/// \brief Open any genotype source: a PLINK prefix or `.bed` path, a BGEN file (`x.bgen`,
/// sample IDs from `x.sample` beside it when present, else from the file), or a Zarr store holding
/// VCF Zarr (`call_genotype`), the scikit-allel layout (`[contig/]calldata/GT`) or a 2-D
/// integer dosage array. Errors name the path and what was missing.
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto view, io::open_genotypes("cohort.bed"));
/// \endcode
Result<GenotypeViewPtr> open_genotypes(const std::string& path,
                                       const GenotypeOpenOptions& options = {});

/// \brief Whether `path` names a PLINK 1 fileset (`x.bed`, or a prefix with `prefix.bed`).
bool is_plink_path(const std::string& path);

/// \brief A view over the variants `kept` (ascending indices) of `base`.
GenotypeViewPtr make_variant_subset(GenotypeViewPtr base, std::vector<int64_t> kept);

/// \brief A view over samples `samples` × variants `variants` of `base` (both ascending and
/// unique; a list naming every index leaves that axis as it is). Nothing is copied: reads
/// take the covering sample range of the base rows and gather the kept codes. Invalid when
/// an index list is out of range or not ascending.
Result<GenotypeViewPtr> make_genotype_subset(GenotypeViewPtr base, std::vector<int64_t> samples,
                                             std::vector<int64_t> variants);

/// \brief An in-memory view over packed codes (num_variants rows of packed_row_bytes), for
/// tests and small results. `variants` must have num_variants entries.
Result<GenotypeViewPtr> make_memory_genotypes(std::vector<uint8_t> codes, int64_t num_variants,
                                              int64_t num_samples, SampleInfo samples,
                                              std::vector<std::string> contigs,
                                              VariantInfo variants);

/// \brief A block of codes read from a view (all rows packed_row_bytes(sample_count) apart).
struct GenotypeBlock {
  int64_t variant_start = 0;
  int64_t variant_count = 0;
  int64_t sample_start = 0;
  int64_t sample_count = 0;
  int64_t stride = 0;
  Bytes codes;
  const uint8_t* row(int64_t v) const { return codes.data() + v * stride; }
  uint8_t* row(int64_t v) { return codes.data() + v * stride; }
};

/// \brief Read one block (all samples when sample_count < 0).
Result<GenotypeBlock> read_genotype_block(const GenotypeView& view, int64_t variant_start,
                                          int64_t variant_count, int64_t sample_start = 0,
                                          int64_t sample_count = -1);

/// \brief A pass over all variants in blocks of `block_variants` × all samples, run by the
/// pass engine (strata/core/pass_engine.hpp): `work(block)` runs on ctx's threads (a window of
/// blocks in flight), then `in_order(block)` runs serially in ascending block order (either may
/// be empty). The first error stops the pass. Advances ctx's progress by variants.
Status for_each_genotype_block(const Context& ctx, const GenotypeView& view, int64_t block_variants,
                               const std::function<Status(GenotypeBlock&)>& work,
                               const std::function<Status(GenotypeBlock&)>& in_order,
                               const PassOptions& options = {});

/// \brief The same pass over variants [first, first + count) only (a rank's part of a
/// distributed pass): blocks start at `first`.
Status for_each_genotype_block(const Context& ctx, const GenotypeView& view, int64_t first, int64_t count,
                               int64_t block_variants, const std::function<Status(GenotypeBlock&)>& work,
                               const std::function<Status(GenotypeBlock&)>& in_order,
                               const PassOptions& options = {});

/// \brief Read-ahead for a pass over variants [first, first + count) in blocks of
/// `block_variants` (block i starts at first + i × block_variants): when `view` reads ahead
/// (a remote store), sets options.prefetch to hint block i's codes — or, with `with_variants`,
/// its variant metadata — and options.read_ahead to read_ahead_window of a block's codes.
/// `view` must outlive the pass. for_each_genotype_block does this itself.
void set_genotype_read_ahead(const Context& ctx, const GenotypeView& view, int64_t first, int64_t count,
                             int64_t block_variants, PassOptions& options, bool with_variants = false);

/// \brief Block height giving about `target_bytes` of codes per block (at least 1).
int64_t default_block_variants(const GenotypeView& view, int64_t target_bytes = 8 << 20);

}  // namespace strata::io
