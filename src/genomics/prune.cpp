// `strata prune`: plink2's --indep-pairwise arguments, the chromosome-by-chromosome driver of
// ld_prune and the `.prune.in` / `.prune.out` writer (the window sweep is prune_window.cpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <string_view>
#include <unordered_set>

#include "genomics/prune_internal.hpp"
#include "genomics/text_writer.hpp"
#include "strata/core/output.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/freq.hpp"
#include "strata/genomics/prune.hpp"
#include "strata/io/chromosome.hpp"

namespace strata::genomics {
namespace {

using io::ChromosomeKind;

bool is_kb(const std::string& s) { return s.size() == 2 && (s[0] == 'k' || s[0] == 'K') && (s[1] == 'b' || s[1] == 'B'); }

// A whole number or decimal with nothing after it.
bool parse_number(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(*out);
}

// The variants' metadata: the view's own table when it holds one in memory (a .bed's .bim), else
// contig, position and ID read into `storage` in pieces.
Result<const io::VariantInfo*> variant_layout(const io::GenotypeView& view, io::VariantInfo* storage) {
  if (const io::VariantInfo* table = view.variant_table()) return table;
  const int64_t m = view.num_variants();
  for (int64_t start = 0; start < m; start += 65536) {
    STRATA_ASSIGN_OR_RETURN(io::VariantInfo info, view.variants(start, std::min<int64_t>(65536, m - start)));
    storage->contig.insert(storage->contig.end(), info.contig.begin(), info.contig.end());
    storage->position.insert(storage->position.end(), info.position.begin(), info.position.end());
    for (auto& s : info.id) storage->id.push_back(std::move(s));
  }
  return storage;
}

// Whose calls count on a chromosome of `kind` (plink2's --indep-pairwise, --ld-xchr 3).
detail::PruneGroups groups_for(ChromosomeKind kind, const std::vector<int64_t>& founders,
                               const std::vector<int64_t>& males, const std::vector<int64_t>& nonmales, int64_t n) {
  detail::PruneGroups g;
  g.num_view_samples = n;
  switch (kind) {
    case ChromosomeKind::kX:
      g.samples[0] = males, g.samples[1] = nonmales, g.het_missing = true;
      break;
    case ChromosomeKind::kY:
      g.samples[0] = males, g.het_missing = true;
      break;
    case ChromosomeKind::kMT:
      g.samples[0] = founders, g.het_missing = true;
      break;
    default:
      g.samples[0] = founders;
  }
  return g;
}

}  // namespace

Status validate_prune_window(const PruneWindow& w) {
  if (w.in_bp ? w.size < 2 : w.size < 1)
    return Status::Invalid("--indep-pairwise: the window must be at least ", w.in_bp ? "2 bp" : "1 variant", ", got ",
                           w.size);
  if (w.step < 1) return Status::Invalid("--indep-pairwise: the step must be a positive integer, got ", w.step);
  if (w.in_bp && w.step != 1)
    return Status::Invalid("--indep-pairwise: the step must be 1 when the window is in kb, got ", w.step);
  if (!w.in_bp && w.step > w.size)
    return Status::Invalid("--indep-pairwise: the step (", w.step, ") cannot be larger than the window (", w.size, ")");
  if (!(w.r2 > 0.0 && w.r2 <= 1.0))
    return Status::Invalid("--indep-pairwise: the r² threshold must be in (0, 1], got ", w.r2);
  return Status::OK();
}

Result<PruneWindow> parse_indep_pairwise(const std::vector<std::string>& args) {
  if (args.size() < 2 || args.size() > 4)
    return Status::Invalid("--indep-pairwise takes WINDOW [kb] [STEP] R2, got ", args.size(), " arguments");
  PruneWindow w;
  std::string first = args[0];
  size_t next = 1;
  if (first.size() > 2 && is_kb(first.substr(first.size() - 2))) {
    w.in_bp = true;
    first.resize(first.size() - 2);
  } else if (is_kb(args[1])) {
    w.in_bp = true;
    next = 2;
  }
  double size = 0;
  if (!parse_number(first, &size) || size < 0)
    return Status::Invalid("--indep-pairwise: invalid window size '", args[0], "'");
  // plink2 truncates a variant count and rounds kb to bp with a small upward nudge.
  w.size = w.in_bp ? (size > 2147483.646 ? 2147483646 : static_cast<int64_t>(size * 1000 * (1 + 0x1p-44)))
                   : static_cast<int64_t>(std::min(size, 2147483647.0));
  if (next + 2 < args.size() || args.size() - next == 0)
    return Status::Invalid("--indep-pairwise: invalid argument sequence (WINDOW [kb] [STEP] R2)");
  w.step = 1;
  if (args.size() - next == 2) {
    double step = 0;
    if (!parse_number(args[next], &step) || step != static_cast<double>(static_cast<int64_t>(step)) || step < 1)
      return Status::Invalid("--indep-pairwise: invalid step '", args[next], "' (a positive integer)");
    w.step = static_cast<int64_t>(step);
  }
  if (!parse_number(args.back(), &w.r2)) return Status::Invalid("--indep-pairwise: invalid r² threshold '", args.back(), "'");
  STRATA_RETURN_NOT_OK(validate_prune_window(w));
  return w;
}

namespace {

// ld_prune with the variants' metadata already at hand (run_prune_to_files writes the lists
// from the same layout: a view without a table of its own is read once).
Result<PruneResult> prune_with_layout(const Context& ctx, const io::GenotypeViewPtr& view,
                                      const io::VariantInfo& layout, const PruneWindow& window) {
  STRATA_RETURN_NOT_OK(validate_prune_window(window));
  const int64_t n = view->num_samples(), m = view->num_variants();
  const io::SampleInfo& info = view->samples();
  std::vector<int64_t> founders, males, nonmales;
  for (int64_t i = 0; i < n; ++i) {
    if (!is_founder(info, i)) continue;
    const bool male = i < static_cast<int64_t>(info.sex.size()) && info.sex[static_cast<size_t>(i)] == 1;
    // plink2 2.00a3 picks X and Y samples with a mask over founders applied to every sample:
    // the k-th sample counts as a male when the k-th founder is one (the same samples when
    // every sample is a founder).
    (male ? males : nonmales).push_back(static_cast<int64_t>(founders.size()));
    founders.push_back(i);
  }
  if (founders.size() < 2)
    return Status::Invalid("prune: ", view->describe(), " has ", founders.size(),
                           " founders (samples with no parent in the .fam); pruning needs at least two");
  const std::vector<std::string>& contigs = view->contigs();
  PruneResult r;
  r.founders = static_cast<int64_t>(founders.size());
  r.removed.assign(static_cast<size_t>(m), 0);
  r.skipped.assign(static_cast<size_t>(m), 0);
  // Chromosome runs; plink2 reads a chromosome in one piece and skips chromosome 0.
  // A chromosome is its plink2 code (chrX and 23 are one) or, for other names, the name.
  std::vector<int64_t> chrom(contigs.size());
  for (size_t c = 0; c < contigs.size(); ++c) {
    const int code = io::chromosome_code(contigs[c]);
    chrom[c] = code >= 0 ? code : 1000 + static_cast<int64_t>(c);
  }
  auto chrom_of = [&](int64_t v) {
    const int32_t c = layout.contig[static_cast<size_t>(v)];
    return c >= 0 && c < static_cast<int32_t>(chrom.size()) ? chrom[static_cast<size_t>(c)] : int64_t{-1};
  };
  std::vector<std::pair<int64_t, int64_t>> runs;
  std::unordered_set<int64_t> seen;
  for (int64_t v = 0; v < m;) {
    int64_t e = v + 1;
    const int64_t c = chrom_of(v);
    while (e < m && chrom_of(e) == c) ++e;
    if (!seen.insert(c).second)
      return Status::Invalid("prune: ", view->describe(), ": chromosome ",
                             contigs[static_cast<size_t>(layout.contig[static_cast<size_t>(v)])], " is split (variant ",
                             layout.id[static_cast<size_t>(v)], "); sort the variants first");
    const bool chr0 = c == 0;
    if (chr0) {
      std::fill(r.skipped.begin() + v, r.skipped.begin() + e, uint8_t{1});
    } else {
      runs.emplace_back(v, e - v);
    }
    v = e;
  }
  // Unique IDs: an open-addressing table of variant indices (no node per ID; 100,000s of them).
  std::vector<int64_t> slots(std::bit_ceil(static_cast<size_t>(2 * m + 2)), -1);
  const size_t mask = slots.size() - 1;
  for (int64_t v = 0; v < m; ++v) {
    if (r.skipped[static_cast<size_t>(v)]) continue;
    const std::string& id = layout.id[static_cast<size_t>(v)];
    size_t h = std::hash<std::string_view>{}(id) & mask;
    for (; slots[h] >= 0; h = (h + 1) & mask) {
      if (layout.id[static_cast<size_t>(slots[h])] == id)
        return Status::Invalid("prune: ", view->describe(), ": variant ID '", id, "' appears more than once (variants ",
                               slots[h] + 1, " and ", v + 1, "); pruning needs unique IDs");
    }
    slots[h] = v;
  }
  auto kind_of = [&](int64_t v) {
    const int32_t c = layout.contig[static_cast<size_t>(v)];
    return c >= 0 && c < static_cast<int32_t>(contigs.size()) ? io::chromosome_kind(contigs[static_cast<size_t>(c)])
                                                              : ChromosomeKind::kOther;
  };
  // Diploid chromosomes take their frequencies from the pruning's own counts; X, Y and MT
  // from plink2's --freq counts (haploid males, males only on Y).
  bool haploid = false;
  for (const auto& [first, len] : runs) haploid = haploid || io::is_haploid_somewhere(kind_of(first));
  FreqTable freq;
  if (haploid) {
    STRATA_ASSIGN_OR_RETURN(freq, compute_freq_table(ctx, view));
  }
  // Every stretch is pruned on its own (plink2 carries nothing across them).
  struct Stretch {
    int64_t first, len;
    ChromosomeKind kind;
  };
  std::vector<Stretch> stretches;
  int64_t total = 0, largest = 0;
  for (const auto& [first, len] : runs) {
    const std::vector<int64_t> pos(layout.position.begin() + first, layout.position.begin() + first + len);
    for (const auto& [off, count] : detail::prune_stretches(pos, len, window)) {
      stretches.push_back({first + off, count, kind_of(first)});
      total += count, largest = std::max(largest, count);
    }
  }
  auto prune_one = [&](const Stretch& st) -> Status {
    const detail::PruneGroups groups = groups_for(st.kind, founders, males, nonmales, n);
    const std::vector<int64_t> p(layout.position.begin() + st.first, layout.position.begin() + st.first + st.len);
    std::vector<double> maj;
    if (io::is_haploid_somewhere(st.kind)) maj.resize(static_cast<size_t>(st.len));
    for (int64_t i = 0; i < static_cast<int64_t>(maj.size()); ++i) {
      const AlleleCounts& a = freq.alleles[static_cast<size_t>(st.first + i)];
      // plink2 keeps the REF frequency and takes the major allele's.
      const double ref = a.observed_alleles == 0 ? 0.0 : 1.0 - a.alt_freq();
      maj[static_cast<size_t>(i)] = ref >= 0.5 ? ref : 1.0 - ref;
    }
    std::vector<uint8_t> removed(static_cast<size_t>(st.len), 0);
    STRATA_RETURN_NOT_OK(detail::prune_stretch(ctx, *view, st.first, st.len, p, maj, groups, window, removed));
    std::copy(removed.begin(), removed.end(), r.removed.begin() + st.first);
    return Status::OK();
  };
  // Stretches run side by side, one thread each (largest first), unless one holds most of the
  // variants: then one at a time, each reading ahead on the other threads while it sweeps (the
  // sweep, ~60 % of the work, is serial either way).
  if (ctx.pool().size() > 1 && stretches.size() > 1 && largest * 5 <= total * 3) {
    std::vector<size_t> order(stretches.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return stretches[x].len > stretches[y].len; });
    STRATA_RETURN_NOT_OK(parallel_for(&ctx.pool(), static_cast<int64_t>(order.size()),
                                      [&](int64_t i) { return prune_one(stretches[order[static_cast<size_t>(i)]]); }));
  } else {
    for (const Stretch& st : stretches) STRATA_RETURN_NOT_OK(prune_one(st));
  }
  return r;
}

}  // namespace

Result<PruneResult> ld_prune(const Context& ctx, const io::GenotypeViewPtr& view, const PruneWindow& window) {
  io::VariantInfo storage;
  STRATA_ASSIGN_OR_RETURN(const io::VariantInfo* layout, variant_layout(*view, &storage));
  return prune_with_layout(ctx, view, *layout, window);
}

namespace {

Status write_lists(OutputSet& out, const std::string& prefix, const std::vector<std::string>& ids,
                   const PruneResult& r) {
  for (const bool kept : {true, false}) {
    const std::string path = prefix + (kept ? ".prune.in" : ".prune.out");
    STRATA_ASSIGN_OR_RETURN(std::string staged, out.add_file(path));
    STRATA_ASSIGN_OR_RETURN(detail::TextWriter w, detail::TextWriter::open(staged, path));
    std::string buf;
    for (size_t v = 0; v < ids.size(); ++v) {
      if (r.skipped[v] || (r.removed[v] != 0) == kept) continue;
      buf += ids[v];
      buf += '\n';
      if (buf.size() > (1 << 20)) {
        STRATA_RETURN_NOT_OK(w.write(buf));
        buf.clear();
      }
    }
    STRATA_RETURN_NOT_OK(w.write(buf));
    STRATA_RETURN_NOT_OK(w.close());
  }
  return Status::OK();
}

}  // namespace

Result<PruneSummary> run_prune_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                        const PruneOptions& options) {
  if (prefix.empty()) return Status::Invalid("prune: no output prefix");
  STRATA_RETURN_NOT_OK(validate_prune_window(options.window));
  Job job(ctx, "prune", input, prefix);
  PhaseTimer open = job.phase("open");
  OutputRules rules;
  rules.inputs = options.selection.files();
  STRATA_RETURN_NOT_OK(job.declare(prefix + ".prune.in", std::move(rules), nullptr));
  auto selected = open_selected_genotypes(ctx, input, options.selection, options.open);
  STRATA_RETURN_NOT_OK(job.agree(selected.status()));
  open.stop();
  PruneSummary s;
  s.num_samples = selected->view->num_samples();
  s.num_variants = selected->view->num_variants();
  s.selection = std::move(selected->report);
  PhaseTimer prune = job.phase("prune");
  io::VariantInfo storage;
  Result<const io::VariantInfo*> layout = variant_layout(*selected->view, &storage);
  STRATA_RETURN_NOT_OK(job.agree(layout.status()));
  Result<PruneResult> pruned = prune_with_layout(ctx, selected->view, **layout, options.window);
  STRATA_RETURN_NOT_OK(job.agree(pruned.status()));
  prune.stop();
  for (size_t v = 0; v < pruned->removed.size(); ++v) {
    if (pruned->skipped[v]) ++s.skipped_chr0;
    else if (pruned->removed[v]) ++s.removed;
    else ++s.kept;
  }
  s.founders = pruned->founders;
  PhaseTimer write = job.phase("write");
  STRATA_RETURN_NOT_OK(job.commit(job.writer() ? write_lists(*job.outputs(), prefix, (*layout)->id, *pruned) : Status::OK()));
  write.stop();
  s.files = job.files();
  Summary& r = job.summary();
  r.set("samples", s.num_samples).set("founders", s.founders).set("variants", s.num_variants);
  r.set("kept", s.kept).set("removed", s.removed).set("skipped_chr0", s.skipped_chr0);
  s.selection.add_to(r);
  s.report = r;  // a copy: the Job logs its summary when it ends
  return s;
}

}  // namespace strata::genomics
