#pragma once
/// \file
/// Projection of new samples onto the PCs of a reference (`strata project TARGET --ref P`),
/// from what `strata pca --out P` wrote: `P.eigenvec.var` (unit-norm variant loadings v_j),
/// `P.afreq` (the frequencies the PCA standardized with; its rows are the M of the eigenvalue
/// scale) and `P.eigenval` (λ_j; the singular values are d_j = √(λ_j·M)).
///
/// Each target genotype is standardized as the reference was, z = (x − 2p)/√(2p(1 − p)) with
/// x the count of the reference's ALT allele and p its `.afreq` frequency (as printed); a
/// missing call contributes 0. The simple projection of sample i is Σ_v z_iv·v_vj:
///
/// - `Q.sscore` is plink2's `--score P.eigenvec.var 2 3 header-read no-mean-imputation
///   variance-standardize --score-col-nums 5-(4+K) --read-freq P.afreq` output, to its printed
///   digits: named allele REF, `ALLELE_CT` = 2 × called matched variants,
///   `PCj_AVG` = −Σ z·v / ALLELE_CT (REF counts: the sign flips).
/// - `Q.eigenvec` is on `P.eigenvec`'s scale: Σ z·v / d_j, so a reference sample projected
///   onto its own PCs reproduces its `P.eigenvec` row (to the 6 digits of `.afreq`). With
///   ProjectCorrection::Oadp it holds the OADP projection instead (also / d_j).
///
/// OADP (online augmentation, decomposition and Procrustes; Privé et al. 2020, bigutilsr's
/// pca_OADP_proj2): projected samples shrink towards 0 on later PCs because their genotypes
/// took no part in the decomposition. For each target sample the (K+1) × (K+1) Gram matrix of
/// the reference augmented with it, [diag(d²), d∘s; (d∘s)ᵀ, ‖z‖²] with s its simple
/// projection, is eigendecomposed; the sample's coordinates in the augmented PCs are then
/// Procrustes-aligned (rotation and scale fitted on the reference rows) back to the reference
/// PCs. Needs only s, ‖z‖² and d: one pass over the target, no reference genotypes.
///
/// Variant matching: by ID, else by CHROM:POS against reference IDs spelled `CHROM:POS[:…]`;
/// alleles equal (sign +1), swapped (−1, ALT count = 2 − code) or, for non-ambiguous SNPs,
/// equal/swapped after complementing the strand. A/T and C/G SNPs are matched by name only
/// (no strand can be inferred) or dropped with ProjectOptions::drop_ambiguous.
///
/// \code
/// genomics::ProjectOptions o;
/// o.reference = "out/ref";                       // out/ref.eigenvec.var, .afreq, .eigenval
/// o.correction = genomics::ProjectCorrection::Oadp;
/// STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_project_to_files(ctx, "target", "out/target", o));
/// \endcode

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype.hpp"
#include "strata/linalg/dense.hpp"

namespace strata::genomics {

/// \brief Shrinkage correction of the projection.
enum class ProjectCorrection : uint8_t { None, Oadp };
/// \brief "none" or "oadp".
Result<ProjectCorrection> parse_project_correction(const std::string& name);
const char* project_correction_name(ProjectCorrection c);

/// \brief The reference PCA, as read from `PREFIX.eigenvec.var`, `.afreq` and `.eigenval`.
struct ProjectReference {
  std::vector<std::string> chrom, id, ref, alt;  ///< rows of `.eigenvec.var`
  int64_t k = 0;                                  ///< PCs in `.eigenvec.var`
  std::vector<double> weights;                    ///< rows × k, row-major (unit-norm columns)
  std::vector<double> alt_freq;                   ///< `.afreq` ALT_FREQS of each row, as printed
  std::vector<double> eigenvalues;                ///< `.eigenval` (at least k)
  int64_t grm_variants = 0;                       ///< `.afreq` rows: M of the eigenvalue scale
  int64_t size() const { return static_cast<int64_t>(id.size()); }
  /// d_j = √(λ_j · M) of the first `k` PCs.
  std::vector<double> singular_values(int64_t k) const;
};

/// \brief Read the reference files of `prefix`. NotFound naming the missing file; Corrupt
/// naming file, line and field for bad text or a `.eigenvec.var` variant absent from `.afreq`.
Result<ProjectReference> read_project_reference(const std::string& prefix);

/// \brief What matching found.
struct ProjectMatchCounts {
  int64_t matched = 0;            ///< target variants used
  int64_t by_position = 0;        ///< of those, matched by CHROM:POS (ID unknown to the reference)
  int64_t swapped = 0;            ///< REF/ALT the other way round (sign flipped)
  int64_t strand_flipped = 0;     ///< alleles complemented (non-ambiguous SNPs)
  int64_t ambiguous = 0;          ///< A/T or C/G SNPs used as named
  int64_t ambiguous_dropped = 0;  ///< A/T or C/G SNPs left out (drop_ambiguous)
  int64_t allele_mismatch = 0;    ///< same variant, alleles that do not pair: left out
  int64_t duplicate = 0;          ///< a second target variant on an already matched reference row
  int64_t missing = 0;            ///< reference rows no target variant matched
};

/// \brief Target variant `target[i]` is reference row `reference[i]`; `sign[i]` = −1 when the
/// target's ALT is the reference's REF. Ascending in `target`.
struct ProjectMatch {
  std::vector<int64_t> target, reference;
  std::vector<int8_t> sign;
  ProjectMatchCounts counts;
};
Result<ProjectMatch> match_project_variants(const ProjectReference& ref, const io::GenotypeView& view,
                                            bool drop_ambiguous);

/// \brief Options of project() and run_project_to_files().
struct ProjectOptions {
  std::string reference;      ///< prefix of the reference PCA's files
  int64_t k = 0;              ///< PCs to project (0 = every PC of `.eigenvec.var`)
  ProjectCorrection correction = ProjectCorrection::None;
  bool drop_ambiguous = false;     ///< leave A/T and C/G SNPs out
  SelectionOptions selection;      ///< the target samples and variants considered
  io::GenotypeOpenOptions open;    ///< how the target is read
};

/// \brief Check the options that need no file (k ≥ 0).
Status validate_project_options(const ProjectOptions& options);

/// \brief The projection of every sample of a target.
struct ProjectResult {
  int64_t k = 0;
  linalg::DenseMatrix scores;       ///< samples × k: Σ z·v (the reference's U·d scale)
  linalg::DenseMatrix projection;   ///< samples × k on `.eigenvec`'s scale (OADP when asked)
  std::vector<int64_t> allele_ct;   ///< 2 × called matched variants, per sample
  std::vector<double> named_dosage_sum;  ///< REF alleles over those calls, per sample
  std::vector<double> squared_norm;      ///< Σ z², per sample
  std::vector<double> singular_values;   ///< d_1..d_k
  ProjectMatchCounts match;
};

/// \brief Project `view` onto `ref` (options.k, options.correction, options.drop_ambiguous).
/// InvalidData "no variant of TARGET matches PREFIX.eigenvec.var (…)" when nothing matches;
/// Invalid when k exceeds the reference's PCs. One read of the matched variants; the sums run
/// per sample in variant order, so the result is the same for any thread count.
Result<ProjectResult> project(const Context& ctx, const io::GenotypeViewPtr& view, const ProjectReference& ref,
                              const ProjectOptions& options);

/// \brief OADP-correct simple projections (samples × k, U·d scale) given each sample's Σ z²
/// and the reference's singular values; returns samples × k on the same scale.
Result<linalg::DenseMatrix> oadp_correct(const Context& ctx, const linalg::DenseMatrix& scores,
                                         const std::vector<double>& squared_norm, const std::vector<double>& d);

/// \brief What run_project_to_files() did.
struct ProjectSummary {
  int64_t num_samples = 0, num_variants = 0, k = 0;
  ProjectMatchCounts match;
  SelectionReport selection;
  std::vector<std::string> files;
  Summary report;
};

/// \brief Read the reference, open `input` with the selection, project, and write
/// `PREFIX.sscore` and `PREFIX.eigenvec` as one output set (nothing is written on error).
Result<ProjectSummary> run_project_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                           const ProjectOptions& options);

}  // namespace strata::genomics
