// strata gwas: the scan of a segment's variants into plink2's lines (gwas_scan.hpp).
//
// Blocks of variants are decoded to float64 dosages (missing = 0) once and multiplied by the
// [Q | Y_r] columns of every linear group (backend gemm); per variant, each group's codes are
// scanned for its counts and missing samples, then the fits run. A source with dosages
// (imputed data) gives its dosages instead of the codes' 0/1/2, and each group sums them. A
// block's lines are formatted on the workers and written in variant order, so the files are the
// same for any thread count.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>

#include "gwas_scan.hpp"
#include "strata/backend/backend.hpp"
#include "strata/core/context.hpp"
#include "strata/core/wire.hpp"
#include "strata/genomics/grm_output.hpp"

namespace strata::genomics {
namespace gwas_detail {
namespace {

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

// The same from dosages (a source that has_dosages: imputed data), over the row's founders with a
// dosage; a male's dosage on X or Y counts as one allele of dosage d / 2.
bool a1_is_ref_dosages(const float* d, int64_t n, const ModelPass& mp, const std::vector<char>& is_nonfounder) {
  double ref = 0.0, obs = 0.0;
  for (int64_t s = 0; s < n; ++s) {
    if (std::isnan(d[s]) || (!is_nonfounder.empty() && is_nonfounder[s])) continue;
    const bool male = !mp.male.empty() && mp.male[s];
    if (mp.y && !male) continue;
    ref += male ? (2.0 - d[s]) / 2.0 : 2.0 - d[s];
    obs += male ? 1.0 : 2.0;
  }
  if (obs == 0) return false;
  const double ref_freq = ref * (1.0 / obs);
  return 1.0 - ref_freq > ref_freq;
}

// One row of dosages over every sample, read once: the float64 values the block product takes
// (missing = 0) and, when every dosage lies on plink2's 1/16384 grid (BGEN, pgen), their exact
// sums. On the grid each sum is exact in any order (multiples of 2^-28 below 2^53·2^-28), so
// 8 running partials give the bits a sample-by-sample sum gives, at vector speed; a group's
// sums are then the row's less its few outside samples'.
struct RowDosages {
  bool grid = false;
  double sum = 0, sum2 = 0;     // over the samples with a dosage (grid only)
  int64_t count = 0;            // samples with a dosage
  std::vector<int64_t> missing; // samples without, ascending
};

// Samples below this keep every grid sum of squares under 2^53 units of 2^-28.
constexpr int64_t kGridSampleLimit = int64_t{1} << 22;

void read_row(const float* __restrict d, int64_t n, double* __restrict dec, RowDosages& rd) {
  // Integer masks and selects, no branches, so that the compiler vectorizes both loops.
  int32_t off = 0, nm = 0;
  for (int64_t j = 0; j < n; ++j) {
    uint32_t bits;
    std::memcpy(&bits, &d[j], 4);
    const int32_t m = (bits & 0x7fffffffu) > 0x7f800000u;  // NaN: no dosage
    const uint32_t kept = bits & (static_cast<uint32_t>(m) - 1u);
    float x;
    std::memcpy(&x, &kept, 4);
    // On the grid: u a whole number in [0, 32768] (below 2^23, u + 2^23 − 2^23 == u only then).
    const float u = x * 16384.0f;
    off |= static_cast<int32_t>(kept >> 31) | (u > 32768.0f) | ((u + 8388608.0f) - 8388608.0f != u);
    nm += m;
    dec[j] = static_cast<double>(x);
  }
  constexpr int L = 8;
  double s1[L] = {}, s2[L] = {};
  int64_t i = 0;
  for (; i + L <= n; i += L)
    for (int l = 0; l < L; ++l) {
      const double v = dec[i + l];
      s1[l] += v, s2[l] += v * v;
    }
  for (int l = 0; i < n; ++i, ++l) s1[l] += dec[i], s2[l] += dec[i] * dec[i];
  double t1 = 0, t2 = 0;
  for (int l = 0; l < L; ++l) t1 += s1[l], t2 += s2[l];
  rd.grid = off == 0 && n < kGridSampleLimit;
  rd.sum = t1, rd.sum2 = t2;
  rd.count = n - nm;
  // Branch-free compaction: each index is written, the count moves past the missing ones.
  rd.missing.resize(static_cast<size_t>(nm + 1));
  if (nm > 0) {
    int64_t* out = rd.missing.data();
    int64_t c = 0;
    for (int64_t j = 0; j < n; ++j) {
      out[c] = j;
      c += d[j] != d[j];
    }
  }
  rd.missing.pop_back();
}

// Dosage rows read and multiplied at a time (n = 10,000: 0.4 MB of floats, 0.8 MB of float64).
constexpr int64_t kDosageRows = 10;

// A1 from a grid row (no sex chromosome coding): a1_is_ref_dosages' sums, exact.
bool a1_is_ref_grid(const RowDosages& rd) {
  const double obs = 2.0 * static_cast<double>(rd.count);
  if (obs == 0) return false;
  const double ref_freq = (obs - rd.sum) * (1.0 / obs);
  return 1.0 - ref_freq > ref_freq;
}

// A block's rows on the wire (MPI: ranks send theirs to rank 0).
void put_strings(WireWriter& w, const std::vector<std::string>& v) {
  w.put(static_cast<uint64_t>(v.size()));
  for (const std::string& x : v) w.put_string(x);
}
Status get_strings(WireReader& in, std::vector<std::string>& v) {
  uint64_t n = 0;
  STRATA_RETURN_NOT_OK(in.get(n));
  v.clear();
  for (uint64_t i = 0; i < n; ++i) {
    std::string x;
    STRATA_RETURN_NOT_OK(in.get_string(x));
    v.push_back(std::move(x));
  }
  return Status::OK();
}
void put_rows(WireWriter& w, const GwasRows& rows) {
  const GwasVariants& v = rows.variants;
  for (const auto* c : {&v.chrom, &v.id, &v.ref, &v.alt, &v.a1, &v.omitted}) put_strings(w, *c);
  w.put_vector(v.pos);
  for (const GwasStats& st : rows.phenotypes) {
    w.put_vector(st.obs);
    w.put_vector(st.firth);
    for (const auto* c : {&st.a1_freq, &st.beta, &st.se, &st.l95, &st.u95, &st.stat, &st.p, &st.ln_p}) w.put_vector(*c);
    put_strings(w, st.errcode);
  }
}
Status get_rows(WireReader& in, int64_t np, GwasRows& rows) {
  GwasVariants& v = rows.variants;
  for (auto* c : {&v.chrom, &v.id, &v.ref, &v.alt, &v.a1, &v.omitted}) STRATA_RETURN_NOT_OK(get_strings(in, *c));
  STRATA_RETURN_NOT_OK(in.get_vector(v.pos));
  rows.phenotypes.assign(static_cast<size_t>(np), GwasStats{});
  for (GwasStats& st : rows.phenotypes) {
    STRATA_RETURN_NOT_OK(in.get_vector(st.obs));
    STRATA_RETURN_NOT_OK(in.get_vector(st.firth));
    for (auto* c : {&st.a1_freq, &st.beta, &st.se, &st.l95, &st.u95, &st.stat, &st.p, &st.ln_p})
      STRATA_RETURN_NOT_OK(in.get_vector(*c));
    STRATA_RETURN_NOT_OK(get_strings(in, st.errcode));
  }
  return Status::OK();
}

// Tests the variants of block `b` of `view` (every phenotype of every group).
Status test_block(const Context& ctx, const ScanSetup& setup, const ModelPass& mp, const io::GenotypeView& view,
                  io::GenotypeBlock& b, ScanBlock& out) {
  const GwasOptions& o = *setup.options;
  const Columns& cols = setup.columns;
  const std::vector<std::string>& contigs = setup.contigs;
  const int64_t np = setup.phenotypes, n = view.num_samples();
  const backend::Backend& be = backend::of(ctx);
  const Model& mdl = *mp.model;
  const int64_t w = mp.w, nsq = mp.nsq;
  const int64_t rows = b.variant_count;
  STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, view.variants(b.variant_start, rows));
  backend::CodesView codes{b.codes.data(), rows, b.sample_count, b.stride};
  // A source with dosages is tested on them (plink2 --glm on DS / pgen dosages): missing ones
  // leave the fit, as missing calls do. The pass read no codes then (DosagesOnly).
  const bool dosages = view.has_dosages();
  std::vector<int64_t> all_counts(static_cast<size_t>(4 * rows));
  if (!dosages) STRATA_RETURN_NOT_OK(be.count_codes(codes, all_counts.data()));
  // Codes are decoded a block at a time; dosages kDosageRows rows at a time, so that their float
  // and float64 copies are still in cache for the fits (each row's numbers do not depend on
  // how the rows are grouped: a product row is its own sums).
  const int64_t sub = dosages ? std::min(rows, kDosageRows) : rows;
  std::vector<float> dos(static_cast<size_t>(dosages ? sub * n : 0));
  const std::unique_ptr<double[]> dec(new double[static_cast<size_t>(sub * n)]);  // decode fills it
  std::vector<RowDosages> row_dosages(static_cast<size_t>(dosages ? sub : 0));
  // Products of the dosages (missing = 0) with [Q | Y_r | 1_S] (and, for groups missing many
  // samples, of the squared codes with 1_S): every linear group's Qᵀg, gᵀy_r, Σ_S g and
  // Σ_S g² (exact integer sums).
  std::vector<double> prod(static_cast<size_t>(rows * w)), prod2;
  std::vector<double> luts(static_cast<size_t>(4 * rows));
  auto product = [&](int64_t r0, int64_t nr, const double lut[4], const std::vector<double>& rhs, int64_t cols,
                     double* res) -> Status {
    if (!dosages) {
      for (int64_t r = 0; r < rows; ++r) std::memcpy(&luts[4 * r], lut, 4 * sizeof(double));
      STRATA_RETURN_NOT_OK(be.decode(codes, luts.data(), backend::row_major(dec.get(), rows, n)));
    }
    return be.gemm(backend::Trans::No, backend::Trans::No, 1.0, backend::row_major<const double>(dec.get(), nr, n),
                   backend::row_major<const double>(rhs.data(), n, cols), 0.0,
                   backend::row_major(res + r0 * cols, nr, cols));
  };
  static const double kDosage[4] = {0.0, 1.0, 2.0, 0.0}, kSquare[4] = {0.0, 1.0, 4.0, 0.0};
  // Rows [r0, r0 + nr): their dosages and products.
  auto load = [&](int64_t r0, int64_t nr) -> Status {
    if (dosages) {
      STRATA_RETURN_NOT_OK(view.read_dosages(b.variant_start + r0, nr, 0, n, dos.data(), n));
      for (int64_t r = 0; r < nr; ++r) read_row(&dos[r * n], n, &dec[r * n], row_dosages[r]);
    }
    if (w == 0) return Status::OK();
    STRATA_RETURN_NOT_OK(product(r0, nr, kDosage, mp.wmat, w, prod.data()));
    if (nsq > 0 && !dosages) {  // dosages: summed per group
      prod2.resize(static_cast<size_t>(rows * nsq));
      STRATA_RETURN_NOT_OK(product(r0, nr, kSquare, mp.ind, nsq, prod2.data()));
    }
    return Status::OK();
  };
  gwas_detail::LinearScratch scratch;
  scratch.be = &be;
  scratch.qy = mp.wmat.data();
  scratch.qy_stride = w;
  gwas_detail::LogisticScratch lscratch;
  std::vector<int64_t> row_missing;
  out = ScanBlock{};
  GwasVariants& vars = out.rows.variants;
  out.rows.phenotypes.assign(static_cast<size_t>(np), GwasStats{});
  for (GwasStats& st : out.rows.phenotypes) {
    st.obs.reserve(static_cast<size_t>(rows));
    st.a1_freq.reserve(static_cast<size_t>(rows));
    st.firth.reserve(static_cast<size_t>(rows));
    for (auto* c : {&st.beta, &st.se, &st.l95, &st.u95, &st.stat, &st.p, &st.ln_p}) c->reserve(static_cast<size_t>(rows));
    st.errcode.reserve(static_cast<size_t>(rows));
  }
  out.errors.assign(static_cast<size_t>(np * kCodes), 0);
  out.firth.assign(static_cast<size_t>(np), 0);
  std::vector<Fit> fits;
  std::vector<double> x;
  VariantData vd;
  for (int64_t r = 0; r < rows; ++r) {
    if (r % sub == 0) STRATA_RETURN_NOT_OK(load(r, std::min(sub, rows - r)));
    const uint8_t* row = b.row(r);
    const float* drow = dosages ? &dos[(r % sub) * n] : nullptr;
    const RowDosages* rd = dosages ? &row_dosages[r % sub] : nullptr;
    // A1 counts founders only (plink2's frequencies): the non-founders' calls come off.
    const std::vector<char>& nonfounder = setup.is_nonfounder;
    int64_t founder_counts[4] = {0, 0, 0, 0}, male_counts[4] = {0, 0, 0, 0};
    if (!dosages) {
      std::copy(&all_counts[4 * r], &all_counts[4 * r] + 4, founder_counts);
      for (int64_t smp : setup.nonfounders) --founder_counts[io::code_at(row, smp)];
      if (!mp.male.empty())
        for (int64_t smp = 0; smp < b.sample_count; ++smp)
          if (mp.male[smp] && (nonfounder.empty() || !nonfounder[smp])) ++male_counts[io::code_at(row, smp)];
    }
    const bool grid_a1 = dosages && rd->grid && mp.male.empty() && nonfounder.empty();
    const bool flip = grid_a1           ? a1_is_ref_grid(*rd)
                      : dosages         ? a1_is_ref_dosages(drow, n, mp, nonfounder)
                      : mp.male.empty() ? a1_is_ref(founder_counts)
                                        : a1_is_ref_haploid(founder_counts, male_counts, mp.y);
    const int32_t ci = info.contig[r];
    vars.chrom.push_back((ci >= 0 && ci < static_cast<int32_t>(contigs.size())) ? contigs[ci] : ".");  // plink2's names
    vars.pos.push_back(info.position[r]);
    vars.id.push_back(info.id[r]);
    vars.ref.push_back(info.ref[r]);
    vars.alt.push_back(info.alt[r].empty() ? "." : info.alt[r]);
    vars.a1.push_back(flip ? info.ref[r] : info.alt[r]);
    vars.omitted.push_back(flip ? info.alt[r] : info.ref[r]);
    // Samples with a missing call in this row (a word scan, only when the row has any).
    row_missing.clear();
    if (all_counts[4 * r + 3] > 0 && !dosages)
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
      double a1_sum = 0.0;  // A1 dosage over the samples tested
      int64_t nt = 0;
      if (dosages && !g.logistic && rd->grid && mp.sq_col[gi] < 0) {
        // The row's exact sums less the group's few outside samples'; constant when
        // |T|·Σg² = (Σg)² (Cauchy–Schwarz), in exact integers of 2^-14 units.
        vd.dosage = true;
        double sum = rd->sum, sum2 = rd->sum2;
        for (int64_t smp : mp.outside[gi]) {
          const double d = drow[smp];
          if (d == d) sum -= d, sum2 -= d * d;
        }
        for (int64_t smp : rd->missing)
          if (g.pos[smp] >= 0) vd.missing.push_back(g.pos[smp]);
        nt = ns - static_cast<int64_t>(vd.missing.size());
        const auto s1 = static_cast<__int128>(std::llround(sum * 16384.0));
        const auto s2 = static_cast<__int128>(std::llround(sum2 * 268435456.0));
        vd.sum_g = sum;
        vd.constant = nt > 0 && s2 * nt == s1 * s1;
        a1_sum = flip ? 2.0 * static_cast<double>(nt) - sum : sum;
        STRATA_RETURN_NOT_OK(gwas_detail::linear_fits(g, vd, &prod[r * w + g.col0], sum2, o, scratch, fits.data()));
      } else if (dosages) {
        vd.dosage = true;
        double sum = 0.0, sum2 = 0.0, lo = HUGE_VAL, hi = -HUGE_VAL;
        if (g.logistic) x.assign(static_cast<size_t>(ns), 0.0);
        for (int64_t i = 0; i < ns; ++i) {
          const double d = drow[g.samples[i]];
          if (std::isnan(d)) {
            vd.missing.push_back(i);
            if (g.logistic) x[i] = d;
            continue;
          }
          sum += d, sum2 += d * d;
          if (d < lo) lo = d;
          if (d > hi) hi = d;
          if (g.logistic) x[i] = flip ? 2.0 - d : d;
        }
        vd.sum_g = sum;
        vd.constant = lo == hi;
        nt = ns - static_cast<int64_t>(vd.missing.size());
        a1_sum = flip ? 2.0 * static_cast<double>(nt) - sum : sum;
        if (g.logistic) {
          for (int64_t j = 0; j < P; ++j)
            gwas_detail::logistic_fit(&ctx, g, static_cast<int>(j), x, flip, o, lscratch, &fits[j]);
        } else {
          STRATA_RETURN_NOT_OK(gwas_detail::linear_fits(g, vd, &prod[r * w + g.col0], sum2, o, scratch, fits.data()));
        }
      } else if (g.logistic) {
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
        STRATA_RETURN_NOT_OK(gwas_detail::linear_fits(g, vd, pr, static_cast<double>(sum_g2), o, scratch, fits.data()));
        if (flip) std::swap(vd.counts[0], vd.counts[2]);  // A1 dosage counts
      }
      if (!dosages) {
        nt = ns - vd.counts[3];
        a1_sum = static_cast<double>(vd.counts[1] + 2 * vd.counts[2]);
      }
      // Over the dosages tested (on X males are 0/2, as plink2's A1_FREQ counts them).
      const double a1_freq = nt > 0 ? a1_sum / (2.0 * nt) : std::nan("");
      for (int64_t j = 0; j < P; ++j) {
        const int pj = g.phenos[j];
        const Fit& f = fits[j];
        GwasStats& st = out.rows.phenotypes[pj];
        st.obs.push_back(f.obs);
        st.a1_freq.push_back(a1_freq);
        st.firth.push_back(f.firth ? 1 : 0);
        const double nan = std::nan("");
        if (f.err == Err::Ok) {
          const double beta = f.beta * mp.scale, se = f.se * mp.scale;
          st.beta.push_back(g.logistic ? std::exp(beta) : beta);
          st.se.push_back(se);
          const double lo = beta - cols.z * se, hi = beta + cols.z * se;
          st.l95.push_back(!cols.ci ? nan : g.logistic ? std::exp(lo) : lo);
          st.u95.push_back(!cols.ci ? nan : g.logistic ? std::exp(hi) : hi);
          st.stat.push_back(f.stat);
          st.p.push_back(f.p);
          st.ln_p.push_back(f.ln_p);
          st.errcode.emplace_back(f.unfinished ? "UNFINISHED" : ".");
          if (f.unfinished) ++out.errors[pj * kCodes + kUnfinished];
        } else {
          for (auto* c : {&st.beta, &st.se, &st.l95, &st.u95, &st.stat, &st.p, &st.ln_p}) c->push_back(nan);
          std::string e = gwas_detail::err_text(f.err);
          if (f.err == Err::Separation) e += f.separation_allele == 'R' ? ",REF" : ",ALT1";
          st.errcode.push_back(std::move(e));
          ++out.errors[pj * kCodes + static_cast<int>(f.err)];
        }
        if (f.firth) ++out.firth[pj];
      }
    }
  }
  if (setup.text) {
    out.text.resize(static_cast<size_t>(np));
    for (int64_t j = 0; j < np; ++j) out.text[j] = format_rows(setup, out.rows, j);
  }
  return Status::OK();
}

// A dosage source as the pass sees it// A dosage source as the pass sees it: every call but read_codes forwarded; the codes are not
// read (test_block reads the dosages), so a block costs one read of the source, not two.
class DosagesOnly final : public io::GenotypeView {
 public:
  explicit DosagesOnly(io::GenotypeViewPtr base) : base_(std::move(base)) {}
  int64_t num_variants() const override { return base_->num_variants(); }
  int64_t num_samples() const override { return base_->num_samples(); }
  std::string describe() const override { return base_->describe(); }
  const io::SampleInfo& samples() const override { return base_->samples(); }
  const std::vector<std::string>& contigs() const override { return base_->contigs(); }
  Result<io::VariantInfo> variants(int64_t start, int64_t count) const override { return base_->variants(start, count); }
  Status read_codes(int64_t, int64_t nv, int64_t, int64_t ns, uint8_t* out, int64_t stride) const override {
    for (int64_t v = 0; v < nv; ++v) std::memset(out + v * stride, 0xFF, static_cast<size_t>(io::packed_row_bytes(ns)));
    return Status::OK();
  }
  bool has_dosages() const override { return true; }
  Status read_dosages(int64_t v0, int64_t nv, int64_t s0, int64_t ns, float* out, int64_t stride) const override {
    return base_->read_dosages(v0, nv, s0, ns, out, stride);
  }
  int64_t variant_chunk() const override { return base_->variant_chunk(); }
  int64_t sample_chunk() const override { return base_->sample_chunk(); }
  io::SourceReport report() const override { return base_->report(); }

 private:
  io::GenotypeViewPtr base_;
};

}  // namespace

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

std::string format_rows(const ScanSetup& setup, const GwasRows& rows, int64_t j) {
  const Columns& cols = setup.columns;
  const GwasVariants& v = rows.variants;
  const GwasStats& st = rows.phenotypes[static_cast<size_t>(j)];
  const bool logistic = setup.logistic[static_cast<size_t>(j)] != 0;
  std::string s;
  s.reserve(static_cast<size_t>(v.size()) * 96);
  auto field = [&s](const std::string& x) {
    s += '\t';
    s += x;
  };
  auto number = [&s](double x) {
    s += '\t';
    put(s, x);
  };
  char digits[24];
  for (int64_t r = 0; r < v.size(); ++r) {
    s += v.chrom[r];
    s += '\t';
    s.append(digits, std::to_chars(digits, digits + sizeof digits, v.pos[r]).ptr);
    field(v.id[r]);
    field(v.ref[r]);
    field(v.alt[r]);
    if (cols.extra.provisional_ref) s += setup.plink_input ? "\tY" : "\tN";
    field(v.a1[r]);
    if (cols.extra.omitted) field(v.omitted[r]);
    if (cols.extra.a1_freq) number(st.a1_freq[r]);
    if (logistic && cols.firth_col) s += st.firth[r] ? "\tY" : "\tN";
    s += "\tADD\t";
    s.append(digits, std::to_chars(digits, digits + sizeof digits, st.obs[r]).ptr);
    const std::string& e = st.errcode[r];
    if (e == "." || e == "UNFINISHED") {
      number(st.beta[r]);
      number(st.se[r]);
      if (cols.ci) {
        number(st.l95[r]);
        number(st.u95[r]);
      }
      number(st.stat[r]);
      number(st.p[r]);
    } else {
      s += cols.ci ? "\tNA\tNA\tNA\tNA\tNA\tNA" : "\tNA\tNA\tNA\tNA";
    }
    field(e);
    s += '\n';
  }
  return s;
}

Status scan_segment(const Context& ctx, const ScanSetup& setup, const ModelPass& pass, const io::GenotypeViewPtr& sv,
                    const ScanWrite& write, std::vector<PhenotypeTally>& tally) {
  const Communicator& comm = ctx.communicator();
  const bool writer = comm.rank() == 0;
  const int64_t np = setup.phenotypes, block = setup.block;
  const int64_t ms = sv->num_variants(), nblocks = (ms + block - 1) / block;
  std::vector<ScanBlock> results(static_cast<size_t>(nblocks));
  // The view a pass reads: all variants, or a rank's blocks of a round.
  io::GenotypeViewPtr cur = sv->has_dosages() ? std::make_shared<DosagesOnly>(sv) : sv;
  const io::GenotypeViewPtr whole = cur;
  auto work = [&](io::GenotypeBlock& b) -> Status {
    return test_block(ctx, setup, pass, *cur, b, results[static_cast<size_t>(b.variant_start / block)]);
  };
  auto deliver = [&](ScanBlock& done) -> Status {
    for (int64_t j = 0; j < np; ++j) {
      for (int c = 0; c < kCodes; ++c) tally[j].codes[c] += done.errors[j * kCodes + c];
      tally[j].firth += done.firth[j];
    }
    STRATA_RETURN_NOT_OK(write(done));
    done = ScanBlock{};
    return Status::OK();
  };
  if (comm.size() == 1) {
    return io::for_each_genotype_block(ctx, *whole, block, work, [&](io::GenotypeBlock& b) {
      return deliver(results[static_cast<size_t>(b.variant_start / block)]);
    });
  }
  // Block-cyclic rounds: in round t rank r tests blocks [t·P·W + r·W, … + W) (W = 4 per worker
  // thread), reading only those; rank 0 gathers every rank's rows and takes them in block
  // order. A variant's statistics depend on its own row only: the same bytes for any P.
  const int64_t per_rank = std::max<int64_t>(1, 4 * ctx.threads());
  for (int64_t t0 = 0; t0 < nblocks; t0 += per_rank * comm.size()) {
    const int64_t b0 = std::min(nblocks, t0 + comm.rank() * per_rank), b1 = std::min(nblocks, b0 + per_rank);
    WireWriter mine;  // per block: its rows, errors and Firth fits
    if (b1 > b0) {
      std::vector<int64_t> kept;
      for (int64_t v = b0 * block; v < std::min(ms, b1 * block); ++v) kept.push_back(v);
      cur = io::make_variant_subset(whole, std::move(kept));
      STRATA_RETURN_NOT_OK(io::for_each_genotype_block(ctx, *cur, block, work,
                                                       [](io::GenotypeBlock&) { return Status::OK(); }));
      for (int64_t bi = 0; bi < b1 - b0; ++bi) {
        put_rows(mine, results[bi].rows);
        mine.put_vector(results[bi].errors);
        mine.put_vector(results[bi].firth);
      }
    }
    std::vector<std::string> all;
    STRATA_RETURN_NOT_OK(comm.gather(mine.bytes(), &all));
    const int64_t round_variants = std::min(ms, (t0 + per_rank * comm.size()) * block) - t0 * block;
    ctx.advance_progress(round_variants - (std::min(ms, b1 * block) - std::min(ms, b0 * block)));  // the others'
    if (!writer) continue;
    for (size_t r = 0; r < all.size(); ++r) {
      WireReader in(all[r], str_cat("gwas: rank ", r, "'s results"));
      while (!in.done()) {
        ScanBlock got;
        STRATA_RETURN_NOT_OK(get_rows(in, np, got.rows));
        STRATA_RETURN_NOT_OK(in.get_vector(got.errors));
        STRATA_RETURN_NOT_OK(in.get_vector(got.firth));
        if (got.errors.size() != static_cast<size_t>(np * kCodes) || got.firth.size() != static_cast<size_t>(np))
          return Status::Corrupt("gwas: rank ", r, "'s results are malformed");
        if (setup.text) {
          got.text.resize(static_cast<size_t>(np));
          for (int64_t j = 0; j < np; ++j) got.text[j] = format_rows(setup, got.rows, j);
        }
        STRATA_RETURN_NOT_OK(deliver(got));
      }
    }
  }
  return Status::OK();
}

}  // namespace gwas_detail

std::string encode_gwas_rows(const GwasRows& rows) {
  WireWriter w;
  w.put(static_cast<int64_t>(rows.phenotypes.size()));
  gwas_detail::put_rows(w, rows);
  return std::move(w.bytes());
}

Result<GwasRows> decode_gwas_rows(const std::string& bytes) {
  WireReader in(bytes, "gwas rows");
  int64_t np = 0;
  if (!in.get(np).ok() || np < 0 || np > 1 << 20) return Status::Corrupt("gwas rows: no phenotype count");
  GwasRows rows;
  if (Status s = gwas_detail::get_rows(in, np, rows); !s.ok()) return Status::Corrupt(s.message());
  const size_t m = rows.variants.pos.size();
  const GwasVariants& v = rows.variants;
  bool ok = in.done();
  for (const auto* c : {&v.chrom, &v.id, &v.ref, &v.alt, &v.a1, &v.omitted}) ok = ok && c->size() == m;
  for (const GwasStats& st : rows.phenotypes) {
    ok = ok && st.obs.size() == m && st.firth.size() == m && st.errcode.size() == m;
    for (const auto* c : {&st.a1_freq, &st.beta, &st.se, &st.l95, &st.u95, &st.stat, &st.p, &st.ln_p})
      ok = ok && c->size() == m;
  }
  if (!ok) return Status::Corrupt("gwas rows: the columns' lengths disagree");
  return rows;
}

}  // namespace strata::genomics
