// strata gwas: the pass over the genotypes and plink2's output files.
//
// Blocks of variants are decoded to float64 dosages (missing = 0) once and multiplied by the
// [Q | Y_r] columns of every linear group (backend gemm); per variant, each group's codes are
// scanned for its counts and missing samples, then the fits run. A block's lines are formatted
// on the workers and written in variant order, so the files are the same for any thread count.
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>

#include "gwas_setup.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/core/output.hpp"
#include "strata/core/wire.hpp"
#include "strata/genomics/grm_output.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

using gwas_detail::Err;
using gwas_detail::Fit;
using gwas_detail::Group;
using gwas_detail::Model;
using gwas_detail::VariantData;

void put(std::string& s, double x) {
  char buf[32];
  char* e = format_grm_value(x, buf);
  s.append(buf, e);
}

// plink2's A1: REF is major unless ALT's frequency (1 − REF count · (1/obs), as plink2 rounds
// it) is larger; A1 is the other allele.
bool a1_is_ref(const int64_t* counts) {
  const int64_t obs = 2 * (counts[0] + counts[1] + counts[2]);
  if (obs == 0) return false;
  const double ref_freq = static_cast<double>(2 * counts[0] + counts[1]) * (1.0 / static_cast<double>(obs));
  const double alt_freq = 1.0 - ref_freq;
  return alt_freq > ref_freq;
}

// The same on X and Y, where a male's call is one allele (a heterozygous one half of each):
// `all` counts every sample, `male` the males; on Y only the males count.
bool a1_is_ref_haploid(const int64_t* all, const int64_t* male, bool y) {
  const int64_t d0 = y ? 0 : all[0] - male[0], d1 = y ? 0 : all[1] - male[1], d2 = y ? 0 : all[2] - male[2];
  const int64_t obs = 2 * (d0 + d1 + d2) + male[0] + male[1] + male[2];
  if (obs == 0) return false;
  const double ref = static_cast<double>(2 * d0 + d1) + static_cast<double>(male[0]) + 0.5 * static_cast<double>(male[1]);
  const double ref_freq = ref * (1.0 / static_cast<double>(obs));
  return 1.0 - ref_freq > ref_freq;
}

struct Columns {
  bool firth_col = false, ci = false;
  double z = 0;  // normal quantile for the CI
  GwasColumns extra;
};

std::string header(bool logistic, const Columns& c) {
  std::string h = "#CHROM\tPOS\tID\tREF\tALT";
  if (c.extra.provisional_ref) h += "\tPROVISIONAL_REF?";
  h += "\tA1";
  if (c.extra.omitted) h += "\tOMITTED";
  if (c.extra.a1_freq) h += "\tA1_FREQ";
  if (logistic && c.firth_col) h += "\tFIRTH?";
  h += logistic ? "\tTEST\tOBS_CT\tOR\tLOG(OR)_SE" : "\tTEST\tOBS_CT\tBETA\tSE";
  if (c.ci) h += "\tL95\tU95";
  h += logistic ? "\tZ_STAT\tP\tERRCODE\n" : "\tT_STAT\tP\tERRCODE\n";
  return h;
}

// A staged text file of the set.
struct OutFile {
  std::FILE* f = nullptr;
  std::string path;
  ~OutFile() {
    if (f) std::fclose(f);
  }
  Status write(const std::string& s) {
    if (!s.empty() && std::fwrite(s.data(), 1, s.size(), f) != s.size())
      return Status::IOError(path, ": write failed: ", std::strerror(errno));
    return Status::OK();
  }
};

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

ModelPass make_pass(const Model& model, int64_t n) {
  ModelPass mp;
  mp.model = &model;
  const int64_t w = mp.w = model.product_width;
  mp.wmat.assign(static_cast<size_t>(n * w), 0.0);
  mp.sq_col.assign(model.groups.size(), -1);
  mp.outside.resize(model.groups.size());
  for (size_t gi = 0; gi < model.groups.size(); ++gi) {
    const Group& g = model.groups[gi];
    if (g.logistic) continue;
    const int64_t P = static_cast<int64_t>(g.phenos.size());
    for (size_t i = 0; i < g.samples.size(); ++i) {
      double* row = &mp.wmat[g.samples[i] * w + g.col0];
      for (int64_t t = 0; t < g.k; ++t) row[t] = g.q[i * g.k + t];
      for (int64_t j = 0; j < P; ++j) row[g.k + j] = g.y[i * P + j];
      row[g.k + P] = 1.0;
    }
    if ((n - static_cast<int64_t>(g.samples.size())) * 8 <= n) {
      for (int64_t s = 0; s < n; ++s)
        if (g.pos[s] < 0) mp.outside[gi].push_back(s);
    } else {
      mp.sq_col[gi] = mp.nsq++;
    }
  }
  mp.ind.assign(static_cast<size_t>(n * mp.nsq), 0.0);
  for (size_t gi = 0; gi < model.groups.size(); ++gi)
    if (mp.sq_col[gi] >= 0)
      for (int64_t s : model.groups[gi].samples) mp.ind[s * mp.nsq + mp.sq_col[gi]] = 1.0;
  return mp;
}

// plink2's models by chromosome (io/chromosome.hpp): autosomes, XY and other contigs as they are;
// X with sex as a covariate over the samples of known sex (when any sample's sex is known; males
// coded 0/2); Y over males with the haploid coding (dosage / 2); MT haploid over everyone.
enum class Segment : int { kDiploid = 0, kX = 1, kY = 2, kMT = 3 };

Segment segment_of(io::ChromosomeKind k) {
  switch (k) {
    case io::ChromosomeKind::kX: return Segment::kX;
    case io::ChromosomeKind::kY: return Segment::kY;
    case io::ChromosomeKind::kMT: return Segment::kMT;
    default: return Segment::kDiploid;
  }
}

}  // namespace

Result<GwasRunSummary> run_gwas_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                         const GwasOptions& o) {
  if (prefix.empty()) return Status::Invalid("gwas: no output prefix");
  if (o.pheno_path.empty()) return Status::Invalid("gwas: --pheno is required");
  if (o.ci < 0.0 || o.ci >= 1.0) return Status::Invalid("--ci must be in (0, 1), got ", o.ci);
  STRATA_RETURN_NOT_OK(validate_selection(o.selection));
  STRATA_ASSIGN_OR_RETURN(Selection sel, open_selected_genotypes(ctx, input, o.selection));
  const io::GenotypeViewPtr view = sel.view;
  STRATA_ASSIGN_OR_RETURN(Model model, gwas_detail::build_model(ctx, view->samples(), o));
  const int64_t n = view->num_samples(), m = view->num_variants();
  // Runs of variants by model (Segment), in variant order; metadata is read only when a contig
  // is X, Y or MT.
  std::vector<std::pair<Segment, std::vector<int64_t>>> runs;
  if (m > 0 && io::has_haploid_contig(*view)) {
    STRATA_ASSIGN_OR_RETURN(const std::vector<io::ChromosomeKind> kind, io::variant_chromosome_kinds(*view));
    for (int64_t v = 0; v < m; ++v) {
      const Segment sg = segment_of(kind[static_cast<size_t>(v)]);
      if (runs.empty() || runs.back().first != sg) runs.emplace_back(sg, std::vector<int64_t>{});
      runs.back().second.push_back(v);
    }
  }
  // The models of X and Y (MT uses the autosomes' with the haploid coding).
  const io::SampleInfo& sample_info = view->samples();
  auto sex_of = [&](int64_t s) { return s < static_cast<int64_t>(sample_info.sex.size()) ? sample_info.sex[static_cast<size_t>(s)] : 0; };
  std::array<std::optional<Model>, 4> models;
  std::array<std::string, 4> no_model;  // why a segment cannot be tested
  bool any_sex = false, any_male = false;
  for (int64_t s = 0; s < n; ++s) any_sex |= sex_of(s) == 1 || sex_of(s) == 2, any_male |= sex_of(s) == 1;
  for (const auto& [sg, vars] : runs) {
    const int k = static_cast<int>(sg);
    if (sg == Segment::kDiploid || sg == Segment::kMT || models[k] || !no_model[k].empty()) continue;
    gwas_detail::ModelScope scope;
    if (sg == Segment::kX && any_sex) {
      scope.include.assign(static_cast<size_t>(n), 0);
      scope.sex_covariate.assign(static_cast<size_t>(n), std::nan(""));
      for (int64_t s = 0; s < n; ++s)
        if (sex_of(s) == 1 || sex_of(s) == 2) scope.include[s] = 1, scope.sex_covariate[s] = sex_of(s);
    }
    if (sg == Segment::kY) {
      if (!any_male) {
        no_model[k] = "no sample is male";
        continue;
      }
      scope.include.assign(static_cast<size_t>(n), 0);
      for (int64_t s = 0; s < n; ++s) scope.include[s] = sex_of(s) == 1;
    }
    if (sg == Segment::kX && !any_sex) continue;  // no sex known: X is tested as an autosome, as plink2 does
    auto built = gwas_detail::build_model(ctx, sample_info, o, scope);
    if (!built.ok()) {
      no_model[k] = built.status().message();
      continue;
    }
    if (built->phenotypes.size() != model.phenotypes.size())
      return Status::Invalid("gwas: the ", sg == Segment::kX ? "X" : "Y", " model has ", built->phenotypes.size(),
                             " phenotypes, the autosomes' ", model.phenotypes.size());
    models[k] = std::move(*built);
  }
  const int64_t np = static_cast<int64_t>(model.phenotypes.size());

  Columns cols;
  cols.firth_col = o.firth == FirthMode::Auto;
  cols.ci = o.ci > 0.0;
  cols.z = cols.ci ? gwas_detail::normal_quantile(0.5 + o.ci / 2) : 0.0;
  cols.extra = o.columns;

  // Declare every output before the pass.
  OutputRules rules;
  rules.inputs = input_paths(input);
  rules.inputs.push_back(o.pheno_path);
  if (!o.covar_path.empty()) rules.inputs.push_back(o.covar_path);
  for (const auto& f : o.selection.files()) rules.inputs.push_back(f);
  auto file_of = [&](const gwas_detail::Phenotype& p) {
    const char* ext = !p.logistic                     ? ".glm.linear"
                      : o.firth == FirthMode::Auto   ? ".glm.logistic.hybrid"
                      : o.firth == FirthMode::Always ? ".glm.firth"
                                                     : ".glm.logistic";
    return prefix + "." + p.name + ext;
  };
  // Under MPI the ranks share the variants (block-cyclic rounds, below); rank 0 alone
  // declares, writes and commits the outputs, after every rank agrees.
  const Communicator& comm = ctx.communicator();
  const bool writer = comm.rank() == 0;
  std::unique_ptr<OutputSet> out;
  std::vector<OutFile> files(static_cast<size_t>(np));
  GwasRunSummary summary;
  for (int64_t j = 0; j < np; ++j) {
    const auto& p = model.phenotypes[j];
    files[j].path = file_of(p);
    GwasPhenotypeSummary ps;
    ps.name = p.name;
    ps.logistic = p.logistic;
    ps.samples = p.samples;
    ps.cases = p.cases;
    ps.controls = p.controls;
    ps.file = files[j].path;
    summary.phenotypes.push_back(ps);
  }
  auto declare = [&]() -> Status {
    STRATA_ASSIGN_OR_RETURN(out, OutputSet::begin(file_of(model.phenotypes[0]), std::move(rules)));
    for (int64_t j = 0; j < np; ++j) {
      STRATA_ASSIGN_OR_RETURN(std::string staged, out->add_file(files[j].path));
      files[j].f = std::fopen(staged.c_str(), "wb");
      if (!files[j].f) return Status::IOError(files[j].path, ": cannot create: ", std::strerror(errno));
      STRATA_RETURN_NOT_OK(files[j].write(header(model.phenotypes[j].logistic, cols)));
    }
    return Status::OK();
  };
  STRATA_RETURN_NOT_OK(comm.agree(writer ? declare() : Status::OK()));

  std::array<ModelPass, 4> passes;
  for (int k = 0; k < 4; ++k) {
    const Model* mk = (k == static_cast<int>(Segment::kX) || k == static_cast<int>(Segment::kY)) && models[k] ? &*models[k]
                      : &model;
    passes[k] = make_pass(*mk, n);
  }
  passes[static_cast<int>(Segment::kY)].scale = passes[static_cast<int>(Segment::kMT)].scale = 2.0;
  passes[static_cast<int>(Segment::kY)].y = true;
  for (Segment sg : {Segment::kX, Segment::kY}) {
    if (!models[static_cast<int>(sg)]) continue;
    auto& male = passes[static_cast<int>(sg)].male;
    male.assign(static_cast<size_t>(n), 0);
    for (int64_t s = 0; s < n; ++s) male[s] = sex_of(s) == 1;
  }
  const ModelPass* active = &passes[0];

  const backend::Backend& be = backend::of(ctx);
  // Blocks of ~8 MiB of decoded dosages: the grid depends on the data only.
  const int64_t block = std::max<int64_t>(16, (int64_t{8} << 20) / (8 * std::max<int64_t>(n, 1)));
  std::vector<std::vector<std::string>> texts;
  std::vector<std::vector<int64_t>> block_errors, block_firth;
  // Per phenotype: rows by ERRCODE (Err's values) and, last, the UNFINISHED rows.
  constexpr int kUnfinished = static_cast<int>(Err::InvalidResult) + 1, kCodes = kUnfinished + 1;
  std::vector<std::array<int64_t, kCodes>> codes(static_cast<size_t>(np));
  for (auto& c : codes) c.fill(0);
  std::vector<std::string> contigs;
  for (const auto& c : view->contigs()) contigs.push_back(io::plink_chromosome_name(c));
  io::GenotypeViewPtr cur = view;  // the view a pass reads: all variants, or a rank's blocks of a round

  auto work = [&](io::GenotypeBlock& b) -> Status {
    const ModelPass& mp = *active;
    const Model& mdl = *mp.model;
    const int64_t w = mp.w, nsq = mp.nsq;
    const int64_t rows = b.variant_count, bi = b.variant_start / block;
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, cur->variants(b.variant_start, rows));
    backend::CodesView codes{b.codes.data(), rows, b.sample_count, b.stride};
    std::vector<int64_t> all_counts(static_cast<size_t>(4 * rows));
    be.count_codes(codes, all_counts.data());
    // Products of the dosages (missing = 0) with [Q | Y_r | 1_S] (and, for groups missing many
    // samples, of the squared dosages with 1_S): every linear group's Qᵀg, gᵀy_r, Σ_S g and
    // Σ_S g² (exact integer sums).
    std::vector<double> prod, prod2;
    if (w > 0) {
      std::vector<double> luts(static_cast<size_t>(4 * rows));
      const std::unique_ptr<double[]> dec(new double[static_cast<size_t>(rows * n)]);  // decode fills it
      auto product = [&](const double lut[4], const std::vector<double>& rhs, int64_t cols,
                         std::vector<double>& res) -> Status {
        for (int64_t r = 0; r < rows; ++r) std::memcpy(&luts[4 * r], lut, 4 * sizeof(double));
        STRATA_RETURN_NOT_OK(be.decode(codes, luts.data(), backend::row_major(dec.get(), rows, n)));
        res.assign(static_cast<size_t>(rows * cols), 0.0);
        return be.gemm(backend::Trans::No, backend::Trans::No, 1.0, backend::row_major<const double>(dec.get(), rows, n),
                       backend::row_major<const double>(rhs.data(), n, cols), 0.0,
                       backend::row_major(res.data(), rows, cols));
      };
      static const double kDosage[4] = {0.0, 1.0, 2.0, 0.0}, kSquare[4] = {0.0, 1.0, 4.0, 0.0};
      STRATA_RETURN_NOT_OK(product(kDosage, mp.wmat, w, prod));
      if (nsq > 0) STRATA_RETURN_NOT_OK(product(kSquare, mp.ind, nsq, prod2));
    }
    gwas_detail::LinearScratch scratch;
    gwas_detail::LogisticScratch lscratch;
    std::vector<int64_t> row_missing;
    std::vector<std::string>& text = texts[bi];
    text.assign(static_cast<size_t>(np), std::string());
    block_errors[bi].assign(static_cast<size_t>(np * kCodes), 0);
    block_firth[bi].assign(static_cast<size_t>(np), 0);
    std::vector<Fit> fits;
    std::vector<double> x;
    VariantData vd;
    for (int64_t r = 0; r < rows; ++r) {
      const uint8_t* row = b.row(r);
      int64_t male_counts[4] = {0, 0, 0, 0};
      if (!mp.male.empty())
        for (int64_t smp = 0; smp < b.sample_count; ++smp)
          if (mp.male[smp]) ++male_counts[io::code_at(row, smp)];
      const bool flip = mp.male.empty() ? a1_is_ref(&all_counts[4 * r])
                                        : a1_is_ref_haploid(&all_counts[4 * r], male_counts, mp.y);
      const int32_t ci = info.contig[r];
      std::string lead = (ci >= 0 && ci < static_cast<int32_t>(contigs.size())) ? contigs[ci] : ".";  // plink2's names
      lead += '\t' + std::to_string(info.position[r]) + '\t' + info.id[r] + '\t' + info.ref[r] + '\t' +
              (info.alt[r].empty() ? "." : info.alt[r]);
      if (cols.extra.provisional_ref) lead += io::is_plink_path(input) ? "\tY" : "\tN";
      const std::string& a1 = flip ? info.ref[r] : info.alt[r];
      const std::string& other = flip ? info.alt[r] : info.ref[r];
      lead += '\t' + a1;
      if (cols.extra.omitted) lead += '\t' + other;
      // Samples with a missing call in this row (a word scan, only when the row has any).
      row_missing.clear();
      if (all_counts[4 * r + 3] > 0)
        for (int64_t byte = 0; byte < io::packed_row_bytes(b.sample_count); ++byte) {
          const uint8_t x = row[byte];
          if (((x & (x >> 1)) & 0x55) == 0) continue;
          for (int t = 0; t < 4; ++t)
            if (((x >> (2 * t)) & 3) == 3 && byte * 4 + t < b.sample_count) row_missing.push_back(byte * 4 + t);
        }
      for (size_t gi = 0; gi < mdl.groups.size(); ++gi) {
        const Group& g = mdl.groups[gi];
        const int64_t ns = static_cast<int64_t>(g.samples.size()), P = static_cast<int64_t>(g.phenos.size());
        vd.flip = flip;
        vd.counts[0] = vd.counts[1] = vd.counts[2] = vd.counts[3] = 0;
        vd.missing.clear();
        fits.assign(static_cast<size_t>(P), Fit{});
        if (g.logistic) {
          x.assign(static_cast<size_t>(ns), 0.0);
          for (int64_t i = 0; i < ns; ++i) {
            const uint8_t c = io::code_at(row, g.samples[i]);
            ++vd.counts[c];
            x[i] = c == 3 ? std::nan("") : (flip ? 2.0 - c : static_cast<double>(c));
          }
          if (flip) std::swap(vd.counts[0], vd.counts[2]);  // A1 dosage counts
          for (int64_t j = 0; j < P; ++j)
            gwas_detail::logistic_fit(&ctx, g, static_cast<int>(j), x, flip, o, lscratch, &fits[j]);
        } else {
          for (int64_t s : row_missing)
            if (g.pos[s] >= 0) vd.missing.push_back(g.pos[s]);
          // ALT dosage counts over S from the exact sums Σg and Σg².
          const double* pr = &prod[r * w + g.col0];
          const int64_t sum_g = static_cast<int64_t>(std::llround(pr[g.k + P]));
          int64_t sum_g2 = 0;
          if (mp.sq_col[gi] >= 0) {
            sum_g2 = static_cast<int64_t>(std::llround(prod2[r * nsq + mp.sq_col[gi]]));
          } else {
            static const int64_t kSq[4] = {0, 1, 4, 0};
            sum_g2 = all_counts[4 * r + 1] + 4 * all_counts[4 * r + 2];
            for (int64_t s : mp.outside[gi]) sum_g2 -= kSq[io::code_at(row, s)];
          }
          vd.counts[3] = static_cast<int64_t>(vd.missing.size());
          vd.counts[2] = (sum_g2 - sum_g) / 2;
          vd.counts[1] = sum_g - 2 * vd.counts[2];
          vd.counts[0] = ns - vd.counts[3] - vd.counts[1] - vd.counts[2];
          gwas_detail::linear_fits(g, vd, pr, static_cast<double>(sum_g2), o, scratch, fits.data());
          if (flip) std::swap(vd.counts[0], vd.counts[2]);  // A1 dosage counts
        }
        const int64_t nt = ns - vd.counts[3];
        // Over the dosages tested (on X males are 0/2, as plink2's A1_FREQ counts them).
        const double a1_freq = nt > 0 ? static_cast<double>(vd.counts[1] + 2 * vd.counts[2]) / (2.0 * nt) : std::nan("");
        for (int64_t j = 0; j < P; ++j) {
          const int pj = g.phenos[j];
          const Fit& f = fits[j];
          std::string& s = text[pj];
          s += lead;
          if (cols.extra.a1_freq) {
            s += '\t';
            put(s, a1_freq);
          }
          if (g.logistic && cols.firth_col) s += f.firth ? "\tY" : "\tN";
          s += "\tADD\t" + std::to_string(f.obs);
          const bool ok = f.err == Err::Ok;
          if (ok) {
            s += '\t';
            const double beta = f.beta * mp.scale, se = f.se * mp.scale;
            put(s, g.logistic ? std::exp(beta) : beta);
            s += '\t';
            put(s, se);
            if (cols.ci) {
              const double lo = beta - cols.z * se, hi = beta + cols.z * se;
              s += '\t';
              put(s, g.logistic ? std::exp(lo) : lo);
              s += '\t';
              put(s, g.logistic ? std::exp(hi) : hi);
            }
            s += '\t';
            put(s, f.stat);
            s += '\t';
            put(s, f.p);
            s += f.unfinished ? "\tUNFINISHED\n" : "\t.\n";
            if (f.unfinished) ++block_errors[bi][pj * kCodes + kUnfinished];
          } else {
            s += cols.ci ? "\tNA\tNA\tNA\tNA\tNA\tNA\t" : "\tNA\tNA\tNA\tNA\t";
            s += gwas_detail::err_text(f.err);
            if (f.err == Err::Separation) s += f.separation_allele == 'R' ? ",REF" : ",ALT1";
            s += '\n';
            ++block_errors[bi][pj * kCodes + static_cast<int>(f.err)];
          }
          if (f.firth) ++block_firth[bi][pj];
        }
      }
    }
    return Status::OK();
  };
  auto in_order = [&](io::GenotypeBlock& b) -> Status {
    const int64_t bi = b.variant_start / block;
    for (int64_t j = 0; j < np; ++j) {
      STRATA_RETURN_NOT_OK(files[j].write(texts[bi][j]));
      for (int c = 0; c < kCodes; ++c) codes[j][c] += block_errors[bi][j * kCodes + c];
      summary.phenotypes[j].firth += block_firth[bi][j];
    }
    texts[bi].clear();
    texts[bi].shrink_to_fit();
    return Status::OK();
  };
  auto written = [&]() -> Status {
    for (auto& f : files) {
      const bool bad = std::fflush(f.f) != 0 || std::ferror(f.f);
      const int rc = std::fclose(f.f);
      f.f = nullptr;
      if (bad || rc != 0) return Status::IOError(f.path, ": write failed: ", std::strerror(errno));
    }
    return Status::OK();
  };
  auto run_pass = [&](const io::GenotypeViewPtr& sv, int64_t ms, int64_t nblocks) -> Status {
  if (comm.size() == 1) {
    STRATA_RETURN_NOT_OK(io::for_each_genotype_block(ctx, *sv, block, work, in_order));
  } else {
    // Block-cyclic rounds: in round t rank r tests blocks [t·P·W + r·W, … + W) (W = 4 per worker
    // thread), reading only those; rank 0 gathers every rank's lines and writes them in block
    // order. A variant's statistics depend on its own row only: the same bytes for any P.
    const int64_t per_rank = std::max<int64_t>(1, 4 * ctx.threads());
    for (int64_t t0 = 0; t0 < nblocks; t0 += per_rank * comm.size()) {
      const int64_t b0 = std::min(nblocks, t0 + comm.rank() * per_rank), b1 = std::min(nblocks, b0 + per_rank);
      WireWriter mine;  // per block and phenotype: its lines, errors and Firth fits
      if (b1 > b0) {
        std::vector<int64_t> kept;
        for (int64_t v = b0 * block; v < std::min(ms, b1 * block); ++v) kept.push_back(v);
        cur = io::make_variant_subset(sv, std::move(kept));
        STRATA_RETURN_NOT_OK(io::for_each_genotype_block(ctx, *cur, block, work,
                                                         [](io::GenotypeBlock&) { return Status::OK(); }));
        for (int64_t bi = 0; bi < b1 - b0; ++bi)
          for (int64_t j = 0; j < np; ++j) {
            mine.put_string(texts[bi][j]);
            for (int c = 0; c < kCodes; ++c) mine.put(block_errors[bi][j * kCodes + c]);
            mine.put(block_firth[bi][j]);
          }
      }
      std::vector<std::string> all;
      STRATA_RETURN_NOT_OK(comm.gather(mine.bytes(), &all));
      const int64_t round_variants = std::min(ms, (t0 + per_rank * comm.size()) * block) - t0 * block;
      ctx.advance_progress(round_variants - (std::min(ms, b1 * block) - std::min(ms, b0 * block)));  // the others'
      if (!writer) continue;
      for (size_t r = 0; r < all.size(); ++r) {
        WireReader in(all[r], str_cat("gwas: rank ", r, "'s results"));
        std::string text;
        while (!in.done()) {
          for (int64_t j = 0; j < np; ++j) {
            int64_t firth = 0;
            STRATA_RETURN_NOT_OK(in.get_string(text));
            for (int c = 0; c < kCodes; ++c) {
              int64_t count = 0;
              STRATA_RETURN_NOT_OK(in.get(count));
              codes[j][c] += count;
            }
            STRATA_RETURN_NOT_OK(in.get(firth));
            STRATA_RETURN_NOT_OK(files[j].write(text));
            summary.phenotypes[j].firth += firth;
          }
        }
      }
    }
  }
  return Status::OK();
  };
  // One pass per run of variants with the same model (one run, the whole view, for autosomes).
  if (runs.empty()) runs.emplace_back(Segment::kDiploid, std::vector<int64_t>{});
  const bool whole = runs.size() == 1 && runs[0].first == Segment::kDiploid;
  int64_t tested = 0;
  ProgressScope progress(ctx, "gwas", m, "variants");
  for (auto& [segment, vars] : runs) {
    const int k = static_cast<int>(segment);
    if (!no_model[k].empty()) {
      ctx.advance_progress(static_cast<int64_t>(vars.size()));
      continue;  // said once, below
    }
    active = &passes[k];
    const io::GenotypeViewPtr seg_view = whole ? view : io::make_variant_subset(view, std::move(vars));
    const int64_t ms = seg_view->num_variants(), nblocks = (ms + block - 1) / block;
    tested += ms;
    texts.assign(static_cast<size_t>(nblocks), {});
    block_errors.assign(static_cast<size_t>(nblocks), {});
    block_firth.assign(static_cast<size_t>(nblocks), {});
    cur = seg_view;
    STRATA_RETURN_NOT_OK(run_pass(seg_view, ms, nblocks));
  }
  for (int k = 0; k < 4; ++k) {
    if (no_model[k].empty()) continue;
    int64_t skipped = 0;
    for (const auto& [segment, vars] : runs)
      if (static_cast<int>(segment) == k) skipped += static_cast<int64_t>(vars.size());
    model.warnings.push_back(str_cat(skipped, " variants on ", k == static_cast<int>(Segment::kX) ? "X" : "Y",
                                     " are not tested (", no_model[k], ")"));
  }
  STRATA_RETURN_NOT_OK(agree_and_commit(ctx, out.get(), writer ? written() : Status::OK()));
  summary.num_samples = n;
  summary.num_variants = tested;
  summary.selection = sel.report;
  summary.covariates = model.covariates;
  summary.warnings = model.warnings;
  // Rows without statistics, or with unreliable ones, by ERRCODE: the summary, the report and
  // a warning for the degenerate designs (collinear, separated, invalid, unfinished).
  for (int64_t j = 0; j < np; ++j) {
    GwasPhenotypeSummary& ps = summary.phenotypes[j];
    std::string degenerate;
    for (int c = 1; c < kCodes; ++c) {
      const int64_t count = codes[j][c];
      if (count == 0) continue;
      const std::string name = c == kUnfinished ? "UNFINISHED" : gwas_detail::err_text(static_cast<Err>(c));
      ps.errcodes[name] = count;
      if (c != kUnfinished) ps.errors += count;
      const Err e = static_cast<Err>(c);
      if (c == kUnfinished || e == Err::CorrTooHigh || e == Err::VifInfinite || e == Err::VifTooHigh ||
          e == Err::Separation || e == Err::RankDeficient || e == Err::LogisticConvergeFail ||
          e == Err::FirthConvergeFail || e == Err::InvalidResult)
        degenerate += (degenerate.empty() ? "" : ", ") + std::to_string(count) + " " + name;
    }
    if (!degenerate.empty())
      summary.warnings.push_back("phenotype '" + ps.name + "': " + degenerate + " of " + std::to_string(tested) +
                                 " variants (plink2's ERRCODEs: the design is collinear, separated or "
                                 "numerically degenerate there)");
    // Most variants needing Firth under --firth auto: the covariates separate the classes.
    if (ps.logistic && o.firth == FirthMode::Auto && ps.firth * 2 > m)
      summary.warnings.push_back("phenotype '" + ps.name + "': Firth regression on " + std::to_string(ps.firth) +
                                 " of " + std::to_string(tested) +
                                 " variants: the covariates (quasi-)separate cases from controls");
  }
  summary.groups = model.linear_groups;
  if (writer)
    for (const auto& f : files) summary.files.push_back(f.path);
  return summary;
}

}  // namespace strata::genomics
