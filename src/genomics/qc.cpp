// Per-variant genotype counts in one pass, PLINK-style variant filters, and standardization
// lookup tables.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/genomics/selection.hpp"
#include "strata/io/genotype_counts.hpp"

namespace strata::genomics {

using namespace strata::io;

Status count_rows(const Context& ctx, const uint8_t* codes, int64_t rows, int64_t samples, int64_t stride,
                  VariantCounts* out) {
  std::vector<int64_t> counts(static_cast<size_t>(4 * rows));
  STRATA_RETURN_NOT_OK(backend::of(ctx).count_codes({codes, rows, samples, stride}, counts.data()));
  for (int64_t v = 0; v < rows; ++v) {
    const int64_t* c = counts.data() + 4 * v;
    out[v].hom_ref = c[0];
    out[v].het = c[1];
    out[v].hom_alt = c[2];
    out[v].missing = c[3];
  }
  return Status::OK();
}

Status count_block(const Context& ctx, const GenotypeBlock& block, VariantCounts* out) {
  return count_rows(ctx, block.row(0), block.variant_count, block.sample_count, block.stride, out);
}

namespace {
// The block grid ranks split the counts pass on.
constexpr int64_t kCountRankBlock = 4096;
// Smallest block the counts pass splits a small input into.
constexpr int64_t kMinCountBlock = 1024;
// Counts are integers, so the block height changes nothing but memory: a few blocks of the
// window fit the budget. A small input is still split into a window's worth of blocks: one
// 8 MiB block (14,000 variants of 1,000 samples) was read and counted by one thread while the
// others waited.
int64_t count_block_variants(const Context& ctx, const GenotypeView& view, int64_t count) {
  const int64_t row = std::max<int64_t>(1, packed_row_bytes(view.num_samples()));
  const int64_t window = std::max<int64_t>(1, pass_window(ctx, {}));
  const int64_t fit = ctx.memory_budget() / (4 * row * window);
  // default_block_variants keeps whole storage chunks where they are not much larger.
  const int64_t spread = default_block_variants(view, std::max(kMinCountBlock, (count + window - 1) / window) * row);
  return std::max<int64_t>(1, std::min({default_block_variants(view), fit, spread}));
}

// Counts of variants [first, first + count) from a source that counts its own storage
// (GenotypeCounter): no decoded blocks, in blocks of the source's chunks.
Status count_from_storage(const Context& ctx, const GenotypeView& view, const GenotypeCounter& counter,
                          int64_t first, int64_t count, VariantCounts* base) {
  const int64_t block = std::max<int64_t>(1, view.variant_chunk());
  const int64_t nblocks = (count + block - 1) / block;
  const int64_t row = packed_row_bytes(view.num_samples());
  PassOptions o{.label = "variant counts"};
  o.progress_units = [&](int64_t i) { return std::min(block, count - i * block); };
  return run_blocks(
      ctx, nblocks, 4 * block * static_cast<int64_t>(sizeof(int64_t)),
      [&](int64_t i) -> Status {
        const int64_t v0 = first + i * block, nv = std::min(block, first + count - v0);
        thread_local std::vector<int64_t> c;
        c.resize(static_cast<size_t>(4 * nv));
        STRATA_RETURN_NOT_OK(counter.count_genotypes(v0, nv, c.data()));
        for (int64_t v = 0; v < nv; ++v) {
          VariantCounts& out = base[v0 + v];
          out.hom_ref = c[4 * v];
          out.het = c[4 * v + 1];
          out.hom_alt = c[4 * v + 2];
          out.missing = c[4 * v + 3];
        }
        ctx.report().add_bytes_read(nv * row);
        return Status::OK();
      },
      nullptr, o);
}
}  // namespace

Result<std::vector<VariantCounts>> compute_variant_counts(const Context& ctx, const GenotypeView& view) {
  const Communicator& comm = ctx.communicator();
  const int64_t m = view.num_variants();
  // Under MPI each rank counts its contiguous part (whole 4,096-variant blocks: a grid fixed
  // by the data, so every rank computes the same split) and the parts go to every rank in
  // rank order. Counts are integers: the same bytes for any split.
  const auto [first, count] = rank_range(m, kCountRankBlock, comm.rank(), comm.size());
  std::vector<VariantCounts> counts(static_cast<size_t>(comm.size() == 1 ? m : count));
  VariantCounts* base = counts.data() - (comm.size() == 1 ? 0 : first);
  // Each block writes its own rows of `counts`, so the result does not depend on threads.
  if (const GenotypeCounter* counter = genotype_counter(view)) {
    STRATA_RETURN_NOT_OK(count_from_storage(ctx, view, *counter, first, count, base));
  } else {
    STRATA_RETURN_NOT_OK(for_each_genotype_block(
      ctx, view, first, count, count_block_variants(ctx, view, count),
        [&](GenotypeBlock& b) { return count_block(ctx, b, base + b.variant_start); },
        nullptr, PassOptions{.label = "variant counts"}));
  }
  if (comm.size() == 1) return counts;
  static_assert(sizeof(VariantCounts) == 6 * sizeof(int64_t), "VariantCounts travels as six int64");
  std::vector<std::string> parts;
  STRATA_RETURN_NOT_OK(comm.allgather(
      std::string(reinterpret_cast<const char*>(counts.data()), counts.size() * sizeof(VariantCounts)), &parts));
  size_t bytes = 0;
  for (const std::string& p : parts) bytes += p.size();
  if (bytes != static_cast<size_t>(m) * sizeof(VariantCounts))
    return Status::CommError("variant counts: the ranks' parts hold ", bytes / sizeof(VariantCounts),
                             " variants, the input ", m);
  std::vector<VariantCounts> all(static_cast<size_t>(m));
  char* dst = reinterpret_cast<char*>(all.data());
  for (const std::string& p : parts) {
    std::memcpy(dst, p.data(), p.size());
    dst += p.size();
  }
  return all;
}

Result<std::vector<int64_t>> frequency_samples(const GenotypeView& view, bool nonfounders) {
  const int64_t n = view.num_samples();
  std::vector<int64_t> founders;
  for (int64_t i = 0; i < n; ++i)
    if (is_founder(view.samples(), i)) founders.push_back(i);
  if (nonfounders || static_cast<int64_t>(founders.size()) == n) return std::vector<int64_t>{};
  if (static_cast<int64_t>(founders.size()) < kMinFounders) {
    return Status::InvalidData(view.describe(), ": ", founders.size(), " of ", n, " samples are founders (no parent in "
                               "the sample table); allele frequencies count founders only (as plink2) and need at "
                               "least ", kMinFounders, ": use --nonfounders to count every sample");
  }
  return founders;
}

Status use_founder_frequencies(const Context& ctx, const io::GenotypeViewPtr& view, bool nonfounders,
                               std::vector<VariantCounts>& counts) {
  const int64_t m = view->num_variants();
  if (static_cast<int64_t>(counts.size()) != m)
    return Status::Invalid("founder frequencies: ", counts.size(), " counts for ", m, " variants");
  STRATA_ASSIGN_OR_RETURN(std::vector<int64_t> founders, frequency_samples(*view, nonfounders));
  if (founders.empty()) return Status::OK();
  std::vector<int64_t> every(static_cast<size_t>(m));
  for (int64_t v = 0; v < m; ++v) every[static_cast<size_t>(v)] = v;
  STRATA_ASSIGN_OR_RETURN(io::GenotypeViewPtr sub, io::make_genotype_subset(view, founders, std::move(every)));
  STRATA_ASSIGN_OR_RETURN(std::vector<VariantCounts> fc, compute_variant_counts(ctx, *sub));
  for (size_t v = 0; v < counts.size(); ++v) {
    counts[v].freq_alt_alleles = fc[v].alt_alleles();
    counts[v].freq_allele_count = fc[v].allele_count();
    if (fc[v].monomorphic() && !counts[v].monomorphic()) {
      return founders_monomorphic_error(*view, static_cast<int64_t>(v));
    }
  }
  return Status::OK();
}

Status founders_monomorphic_error(const GenotypeView& view, int64_t v) {
  std::string id = std::to_string(v + 1);
  if (auto info = view.variants(v, 1); info.ok() && info->size() == 1) id = "'" + info->id[0] + "' (" + id + ")";
  return Status::InvalidData(view.describe(), ": variant ", id, " is monomorphic among the founders but not among "
                             "every sample (its minor allele is only seen in non-founders), so its founders' "
                             "frequency cannot standardize it; as plink2, filter very rare variants out (--maf) "
                             "or use --nonfounders");
}

FilterResult apply_variant_filter(const std::vector<VariantCounts>& counts,
                                  const VariantFilter& f) {
  FilterResult r;
  r.kept.reserve(counts.size());
  for (size_t i = 0; i < counts.size(); ++i) {
    const VariantCounts& c = counts[i];
    if (c.missing_rate() > f.max_missing) {
      ++r.dropped_missing;
    } else if (f.drop_monomorphic && c.monomorphic()) {
      ++r.dropped_monomorphic;
    } else if (f.min_maf > 0.0 && !(c.maf() >= f.min_maf)) {  // NaN (no calls) is dropped too
      ++r.dropped_maf;
    } else {
      r.kept.push_back(static_cast<int64_t>(i));
    }
  }
  return r;
}

Result<Standardization> parse_standardization(const std::string& name) {
  if (name == "binom2" || name == "patterson") return Standardization::Binom2;
  if (name == "binom") return Standardization::Binom;
  if (name == "center" || name == "centre") return Standardization::Center;
  if (name == "none") return Standardization::None;
  return Status::Invalid("unknown standardization '", name, "' (expected binom2, binom, center or none)");
}

const char* standardization_name(Standardization mode) {
  switch (mode) {
    case Standardization::Binom2: return "binom2";
    case Standardization::Binom: return "binom";
    case Standardization::Center: return "center";
    case Standardization::None: return "none";
  }
  return "none";
}

namespace {

template <class T>
void make_lut(double f, Standardization mode, T lut[4]) {
  if (!(f == f)) {  // nothing observed: no information
    for (int c = 0; c < 4; ++c) lut[c] = T(0);
    return;
  }
  const double mean = 2.0 * f;
  if (mode == Standardization::None) {
    for (int c = 0; c < 3; ++c) lut[c] = static_cast<T>(c);
    lut[3] = static_cast<T>(mean);
    return;
  }
  double scale = 1.0;
  if (mode != Standardization::Center) {
    const double var = (mode == Standardization::Binom2 ? 2.0 : 1.0) * f * (1.0 - f);
    scale = var > 0.0 ? 1.0 / std::sqrt(var) : 0.0;  // monomorphic → all zeros
  }
  for (int c = 0; c < 3; ++c) lut[c] = static_cast<T>((c - mean) * scale);
  lut[3] = T(0);
}

}  // namespace

void make_standardize_lut(const VariantCounts& counts, Standardization mode, float lut[4]) {
  make_lut(counts.alt_freq(), mode, lut);
}
void make_standardize_lut(const VariantCounts& counts, Standardization mode, double lut[4]) {
  make_lut(counts.alt_freq(), mode, lut);
}
void make_standardize_lut_for_freq(double alt_freq, Standardization mode, float lut[4]) {
  make_lut(alt_freq, mode, lut);
}
void make_standardize_lut_for_freq(double alt_freq, Standardization mode, double lut[4]) {
  make_lut(alt_freq, mode, lut);
}

}  // namespace strata::genomics
