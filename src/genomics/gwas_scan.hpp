#pragma once
// strata gwas: the models by chromosome segment (gwas_segments.cpp) and the scan of a
// segment's variants into plink2's lines (gwas_scan.cpp), below gwas_run.cpp's command.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gwas_setup.hpp"
#include "strata/io/genotype.hpp"

namespace strata::genomics::gwas_detail {

// plink2's models by chromosome (io/chromosome.hpp): autosomes, XY and other contigs as they are;
// X with sex as a covariate over the samples of known sex (when any sample's sex is known; males
// coded 0/2); Y over males with the haploid coding (dosage / 2); MT haploid over everyone.
enum class Segment : int { kDiploid = 0, kX = 1, kY = 2, kMT = 3 };

// What the pass needs of one model: [Q | Y_r | 1_S] of every linear group over all input samples
// (zero outside a group's samples). Σ_S g² is the row's count of hets + 4 × homs less the few
// samples outside S (scanned per variant) when at most n/8 are outside; other groups get a
// column of 1_S in the squared dosages' product.
struct ModelPass {
  const Model* model = nullptr;
  int64_t w = 0, nsq = 0;
  std::vector<double> wmat, ind;
  std::vector<int64_t> sq_col;
  std::vector<std::vector<int64_t>> outside;
  double scale = 1.0;          // haploid coding: the genotype term is dosage / 2 (Y, MT)
  std::vector<char> male;      // X and Y: who is male (A1, the minor allele, counts a male's call once)
  bool y = false;              // Y: only males count toward A1
};

// The view's runs of variants by segment, in variant order, and each segment's model and pass.
struct SegmentPlan {
  std::vector<std::pair<Segment, std::vector<int64_t>>> runs;  // one (kDiploid, {}) run: the whole view
  std::array<std::optional<Model>, 4> models;                  // X and Y's own models (others: the autosomes')
  std::array<std::string, 4> no_model;                         // why a segment cannot be tested
  std::array<ModelPass, 4> passes;
  bool whole() const { return runs.size() == 1 && runs[0].first == Segment::kDiploid; }
};

// Segments of `view` and their models (`autosomes` is the model of the autosomes; metadata is
// read only when a contig is X, Y or MT). The plan points into itself and `autosomes`: keep both.
Status plan_segments(const Context& ctx, const io::GenotypeView& view, const GwasOptions& o, const Model& autosomes,
                     SegmentPlan& plan);

// Output columns beyond plink2's defaults.
struct Columns {
  bool firth_col = false, ci = false;
  double z = 0;  // normal quantile for the CI
  GwasColumns extra;
};

// A phenotype file's header line.
std::string header(bool logistic, const Columns& c);

// Rows by ERRCODE (Err's values and, last, UNFINISHED) and Firth fits of one phenotype.
constexpr int kUnfinished = static_cast<int>(Err::InvalidResult) + 1, kCodes = kUnfinished + 1;
struct PhenotypeTally {
  std::array<int64_t, kCodes> codes{};
  int64_t firth = 0;
};

// What a scan shares across its segments.
struct ScanSetup {
  const GwasOptions* options = nullptr;
  Columns columns;
  bool plink_input = false;           // PROVISIONAL_REF? is Y for PLINK inputs
  std::vector<std::string> contigs;   // plink2's names of the view's contigs
  int64_t phenotypes = 0;
  int64_t block = 0;                  // variants per block
  // plink2 picks A1 (the non-major allele) by its allele frequencies, which count founders
  // only: the samples with a parent, ascending, and a mask of them (both empty without any).
  std::vector<int64_t> nonfounders;
  std::vector<char> is_nonfounder;
  std::vector<char> logistic;         // per phenotype
  bool text = false;                  // format each block's lines on the workers
};

// One block's rows, their tallies and (when the setup formats them) each phenotype's lines.
struct ScanBlock {
  GwasRows rows;
  std::vector<std::string> text;  // per phenotype (ScanSetup::text)
  std::vector<int64_t> errors;    // phenotype-major, kCodes each
  std::vector<int64_t> firth;     // per phenotype
};
using ScanWrite = std::function<Status(ScanBlock& block)>;

// Phenotype j's lines of `rows` (the file's text is the rows' values printed).
std::string format_rows(const ScanSetup& setup, const GwasRows& rows, int64_t j);

// Tests every variant of `view` under `pass`: blocks are tested (and, with setup.text, formatted)
// on the workers; rank 0 gets each block in variant order through `write` (under MPI the ranks
// share the blocks in block-cyclic rounds and rank 0 gathers their rows). `tally` adds up the
// rows' ERRCODEs.
Status scan_segment(const Context& ctx, const ScanSetup& setup, const ModelPass& pass, const io::GenotypeViewPtr& view,
                    const ScanWrite& write, std::vector<PhenotypeTally>& tally);

}  // namespace strata::genomics::gwas_detail
