// The selection flags every computing command shares, and how their outcome is reported.
#include <cstdio>

#include "cli_common.hpp"
#include "strata/core/log.hpp"

namespace strata::cli {

void add_selection_options(CLI::App* cmd, genomics::SelectionOptions& s) {
  const std::string g = "Selection (plink2 semantics and order)";
  auto files = [&](const char* name, std::vector<std::string>& v, const char* help) {
    // One file per use; repeat the flag for several (their union).
    cmd->add_option(name, v, help)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->check(non_empty_path())->group(g);
  };
  files("--keep", s.keep, "Keep only the samples listed (FID IID, #FID IID / #IID header, or a .fam)");
  files("--remove", s.remove, "Remove the samples listed (same formats as --keep)");
  files("--extract", s.extract, "Keep only the variants whose IDs are listed (whitespace-separated, e.g. a .prune.in)");
  files("--exclude", s.exclude, "Remove the variants whose IDs are listed");
  cmd->add_option("--chr", s.chr, "Keep only these chromosomes, e.g. 1-4,22,X")->check(name_list())->group(g);
  auto* autosome = cmd->add_flag("--autosome", s.autosome, "Keep only chromosomes 1-22 (no X, Y, XY, MT or other contigs)")->group(g);
  cmd->add_flag("--autosome-xy", s.autosome_xy, "Keep only chromosomes 1-22 and XY (the pseudo-autosomal region)")
      ->excludes(autosome)->group(g);
  const auto number = real_in([](double) { return true; }, "a number");
  cmd->add_option("--from-bp", s.from_bp, "First base-pair position kept (needs --chr naming one chromosome)")
      ->check(number)->group(g);
  cmd->add_option("--to-bp", s.to_bp, "Last base-pair position kept (needs --chr naming one chromosome)")
      ->check(number)->group(g);
  const auto rate = real_in([](double v) { return v >= 0.0 && v <= 1.0; }, "a number from 0 to 1");
  cmd->add_option("--mind", s.mind, "Remove samples with a missing-call rate above this (before --geno)")
      ->check(rate)->group(g);
  cmd->add_option("--geno", s.geno, "Remove variants with a missing-call rate above this")->check(rate)->group(g);
  cmd->add_option("--hwe", s.hwe, "Remove variants with a Hardy-Weinberg exact test p-value below this (founders)")
      ->check(real_in([](double v) { return v > 0.0 && v < 1.0; }, "a p-value above 0 and below 1"))
      ->group(g);
  cmd->add_option("--maf", s.maf, "Remove variants with minor allele frequency below this (founders)")
      ->check(real_in([](double v) { return v >= 0.0 && v <= 0.5; }, "a number from 0 to 0.5"))
      ->group(g);
  cmd->add_option("--prune", s.prune,
                  "WINDOW [kb] [STEP] R2: last, LD-prune what is left as `strata prune --indep-pairwise` would and "
                  "keep its .prune.in (the same as --extract of that list, without the file)")
      ->expected(2, 4)->group(g);
}

void note_selection(CliState& state, const genomics::SelectionReport& r) {
  if (r.messages.empty()) return;
  // Like plink2's log: each step on stderr (stdout carries results), unless --quiet; IDs that
  // match nothing are warnings either way.
  for (const auto& m : r.messages) {
    if (m.find("not in the data") != std::string::npos) log_warning(m);
    else if (!state.quiet) std::fprintf(stderr, "strata: %s\n", m.c_str());
  }
}

void set_report(CliState& state, const Summary& summary) {
  const nlohmann::json fields = nlohmann::json::parse(summary.to_json());
  if (!state.report.is_object()) state.report = nlohmann::json::object();
  for (const auto& [key, value] : fields.items()) state.report[key] = value;
}

double wall_seconds(const Summary& summary) {
  const Summary::Value* v = summary.find("wall_seconds");
  return v && std::holds_alternative<double>(*v) ? std::get<double>(*v) : 0.0;
}

}  // namespace strata::cli
