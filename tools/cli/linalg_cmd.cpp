// `strata svd` and `strata pca`: thin wrappers over strata/linalg/svd_zarr.hpp and
// strata/genomics/pca_output.hpp.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/log.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/genomics/pca_output.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/linalg/row_blocks.hpp"
#include "strata/linalg/svd_zarr.hpp"

namespace strata::cli {
namespace {

// The options bind to the library's parameter structs: their defaults are the library's.
struct SvdArgs {
  std::string path, out;
  linalg::SvdParams params;
  linalg::SvdZarrOptions zarr;
};

Status run_svd(const SvdArgs& a, CliState& state) {
  STRATA_ASSIGN_OR_RETURN(linalg::SvdZarrSummary summary,
                          linalg::svd_to_zarr(state.ctx(), a.path, a.out, a.params, a.zarr));
  const linalg::SvdResult& r = summary.result;
  const double wall = wall_seconds(summary.report);
  if (!state.quiet) {
    std::printf("%s SVD, k = %zu, %lld passes, %.2f s -> %s\n",
                linalg::svd_method_name(r.method), r.s.size(),
                static_cast<long long>(r.passes), wall, a.out.c_str());
    std::printf("%4s %16s %12s\n", "i", "singular value", "est. error");
    for (size_t i = 0; i < r.s.size(); ++i) std::printf("%4zu %16.8g %12.2e\n", i + 1, r.s[i], r.error_estimate[i]);
  }
  if (!r.converged)
    log_warning("the SVD did not meet --tolerance: largest error estimate ", r.max_error_estimate, " after ", r.passes,
                " passes (raise --iterations or loosen --tolerance)");
  set_report(state, summary.report);
  return Status::OK();
}

// The options bind to genomics::PcaRunOptions (PcaParams, the selection, the outputs).
struct PcaArgs {
  io::GenotypeInputFlags input;
  std::string out;
  genomics::PcaRunOptions run;
  std::string missing;  // --pca-missing; empty: PcaParams' default
};

Status run_pca(const PcaArgs& a, CliState& state) {
  genomics::PcaRunOptions o = a.run;
  if (!a.missing.empty()) o.pca.meanimpute = a.missing == "meanimpute";
  STRATA_ASSIGN_OR_RETURN(const std::string input, io::resolve_genotype_input(a.input, o.selection.open));
  // --maf/--geno are plink2's global filters: applied in the selection, before pca(). PCA still
  // leaves monomorphic variants out of the products but counts them in M, as plink2 does.
  STRATA_RETURN_NOT_OK(genomics::validate_selection(o.selection));
  // Failures that depend on the data (k too large for it, everything filtered, constant data)
  // come back as InvalidData (exit 1); Invalid stays for usage errors (exit 2).
  auto r = genomics::run_pca_to_files(state.ctx(), input, a.out, o);
  if (!r.ok()) return r.status();
  const genomics::PcaRunSummary& s = *r;
  const double wall = wall_seconds(s.report);
  const char* method = linalg::svd_method_name(s.result.method);
  const genomics::PcaResult& res = s.result;
  if (!state.quiet) {
    std::printf("%s PCA (%s route) of %lld samples x %lld variants used (M = %lld, of %lld), k = %zu, %lld passes (%s), %.2f s\n",
                method, res.route.c_str(), static_cast<long long>(s.num_samples), static_cast<long long>(res.variants_used.size()),
                static_cast<long long>(res.grm_variants), static_cast<long long>(s.num_variants_input),
                res.eigenvalues.size(), static_cast<long long>(res.passes), res.stop.c_str(), wall);
    std::printf("%4s %14s %10s %12s\n", "PC", "eigenvalue", "% var", res.errors_bounded ? "error bound" : "est. error");
    for (size_t i = 0; i < res.eigenvalues.size(); ++i) {
      const double e = i < res.error_estimate.size() ? res.error_estimate[i] : 0.0;
      const bool unmet = !res.converged && o.pca.tolerance > 0 && e > o.pca.tolerance;
      std::printf("%4zu %14.6f %10.3f %12.2e%s\n", i + 1, res.eigenvalues[i], 100.0 * res.variance_ratio[i], e,
                  unmet ? "  NOT CONVERGED" : "");
    }
    if (!s.pop_labels.empty()) std::printf("--pop-file %s\n", s.pop_labels.c_str());
    for (const auto& f : s.files) std::printf("wrote %s\n", f.c_str());
  }
  if (!res.converged)
    log_warning("the PCA did not meet --tolerance ", o.pca.tolerance, ": largest eigenvalue error estimate ",
                res.max_error_estimate, " after ", res.passes, " passes (raise --iterations or loosen --tolerance)");
  set_report(state, s.report);
  note_selection(state, s.selection);
  return Status::OK();
}

}  // namespace

void register_linalg_commands(CLI::App& app, CliState& state) {
  const CLI::Validator kCheck = integer_in(1, 1'000'000, "an integer from 1 to 1,000,000");
  const CLI::Validator kIterationsCheck = integer_in(1, 100'000, "an integer from 1 to 100,000");
  const CLI::Validator kOversamplingCheck = integer_in(0, 100'000, "an integer from 0 to 100,000");
  const auto methods = enum_names(linalg::svd_method_name, linalg::SvdMethod::Randomized);
  const auto precisions = enum_names(precision_name, Precision::Float64);
  auto args = std::make_shared<SvdArgs>();
  linalg::SvdParams& sp = args->params;
  auto* svd = app.add_subcommand("svd", "SVD of a 2-D numeric Zarr array: writes U, S and Vt to a Zarr group");
  svd->add_option("PATH", args->path, "Input array (store.zarr or store.zarr/path/to/array)")->required()->check(non_empty_path());
  svd->add_option("-k", sp.k, "Number of components (1 <= k < min(rows, cols))")->required()->check(kCheck);
  add_enum_option(svd, "--method", sp.method, linalg::parse_svd_method,
                  "auto (exact when min(rows, cols) <= 2048), exact (TSQR), or randomized", CLI::IsMember(methods));
  svd->add_option("--iterations", sp.iterations, "Randomized: passes over the data (default 8 krylov, 7 subspace)")
      ->check(kIterationsCheck);
  add_enum_option(svd, "--scheme", sp.scheme, linalg::parse_randomized_scheme,
                  "Randomized: krylov (block Krylov, default) or subspace",
                  library_check(linalg::parse_randomized_scheme, "krylov|subspace"));
  svd->add_option("--oversampling", sp.oversampling, "Randomized: extra sketch columns (default 10)")
      ->check(kOversamplingCheck);
  svd->add_option("--seed", sp.seed, "Randomized: seed of the start block (default 0)")->check(seed_check());
  add_enum_option(svd, "--precision", sp.precision, parse_precision,
                  "Randomized: arithmetic of the products: auto (float32 for data stored in 32 bits or fewer, else "
                  "float64), float32 or float64 (int16 and mixed are for genotype codes: strata pca)",
                  CLI::IsMember(precisions));
  svd->add_option("--out", args->out, "Output Zarr group (U, S, Vt)")->required()->check(non_empty_path());
  svd->add_flag("--overwrite", args->zarr.overwrite, "Replace --out if it is an existing Zarr store (never an input)");
  add_memory_option(svd, state, "row blocks in flight; the randomized method's sketch and basis come on top");
  add_common_options(svd, state);
  svd->callback([&state, args] {
    state.run = [args, &state] { return run_svd(*args, state); };
    state.distributed = true;  // linalg::svd_to_zarr shares the row blocks of every pass across MPI ranks
  });

  auto pa = std::make_shared<PcaArgs>();
  genomics::PcaParams& pp = pa->run.pca;
  auto* pca = app.add_subcommand(
      "pca",
      "Genotype PCA (PLINK 2 compatible): writes PREFIX.eigenvec, .eigenval, .eigenvec.var, .zarr and .svg. "
      "Genotypes are standardized per variant; missing genotypes are mean-imputed (see --pca-missing). "
      "Eigenvalues are those of the GRM X'X/M, M = variants passing --maf/--geno, monomorphic ones included (as "
      "plink2 --pca; they add nothing to X'X). The randomized and converged-Krylov routes end with one float64 pass "
      "that makes each printed error a bound: 0 <= (exact - reported)/reported <= bound, exact = the float64 "
      "eigenvalue, int16/float32 rounding of the products included, assuming the random search missed no "
      "eigen-direction (it would have to start nearly orthogonal to a top eigenvector); the report adds each "
      "eigenvector's bound on sin(angle to the exact one). Existing files are replaced; an existing PREFIX.zarr only "
      "with --overwrite.");
  add_input_options(pca, pa->input, &pa->run.selection.open.vcf_dosage,
                    "Genotypes: PLINK prefix or .bed, .pgen, .bgen, VCF/BCF (.vcf, .vcf.gz, .bcf), VCF Zarr, "
                    "scikit-allel or dosage Zarr");
  pca->add_option("-k", pp.k, "Number of principal components (1 <= k < min(variants used, samples))")
      ->required()
      ->check(kCheck);
  add_enum_option(pca, "--method", pp.method, linalg::parse_svd_method,
                  "auto (exact when min(variants, samples) <= 5000, else randomized), exact (the cheaper exact route: the GRM tile pass + a partial eigensolve, or TSQR; the output says which ran), or randomized",
                  CLI::IsMember(methods));
  add_enum_option(pca, "--scale", pp.scale, genomics::parse_standardization,
                  "binom2 ((g-2f)/sqrt(2f(1-f)), plink2's default), binom, center, or none",
                  CLI::IsMember(enum_names(genomics::standardization_name, genomics::Standardization::None)));
  add_memory_option(pca, state,
                    "the packed genotypes stay in memory across passes when they fit, and are re-read from INPUT "
                    "every pass otherwise; the exact route and the --tolerance pass cap depend on it");
  pca->add_option("--iterations", pp.iterations,
                  "Randomized: most passes over the data (default ceil(18(k + oversampling) / block): 36 for k = 10; "
                  "with --tolerance, up to 8 times that); a small cohort stops earlier, once the search space spans "
                  "it (exact)")
      ->check(kIterationsCheck);
  pca->add_option("--oversampling", pp.oversampling,
                  "Randomized: extra components the default number of passes is sized for (default 6)")
      ->check(kOversamplingCheck);
  pca->add_option("--tolerance", pp.tolerance,
                  "Randomized: stop early once every eigenvalue's relative error estimate is below this (default: "
                  "run all --iterations); 'converged' only when the final float64 bound is. It covers eigenvalues: "
                  "eigenvectors get their own bound in the report (1e-6 gave HapMap3's eigenvalues plink2's six "
                  "digits, its eigenvectors within 2.4e-5 of plink2's; 1e-8 within 1.2e-6)")
      ->check(real_in([](double v) { return v > 0.0; }, "a positive number such as 1e-6"));
  pca->add_option("--pca-missing", pa->missing,
                  "Missing calls: meanimpute (default: at the variant mean, as plink2 --pca meanimpute; one linear "
                  "operator, so every method applies) or pairwise (plink2's default --pca without meanimpute: each "
                  "GRM entry divided by the variants both samples observe; exact GRM route only, samples^2 memory)")
      ->check(CLI::IsMember({"meanimpute", "pairwise"}));
  pca->add_flag("--nonfounders", pp.nonfounders,
                "Allele frequencies (standardization, PREFIX.afreq) from every sample (plink2 --nonfounders); "
                "default: the founders' when some sample has a parent, as plink2");
  pca->add_option("--block", pp.block_columns,
                  "Randomized: columns per pass (default 8; may be below k; padded to a multiple of 8)")
      ->check(integer_in(0, 4096, "0 (default) or 1–4096"));
  add_enum_option(pca, "--precision", pp.precision, parse_precision,
                  "Randomized: arithmetic of the genotype products: int16 (exact integer sums of 15-bit rounded "
                  "operands, twice the float32 speed with AVX-512 VNNI), float32, mixed (integer A*Q of the rounded "
                  "block, which becomes the basis, then float32: float32 accuracy at ~0.8x its cost), or auto (int16 "
                  "where vectorized; with --tolerance, mixed where vectorized, else float32). --method exact, GRM route: "
                  "float64 (auto: plink2's printed digits) or float32 (float32 and exact-integer products, ~1.5x "
                  "faster GRM pass, eigenvectors ~1e-6 from float64)",
                  CLI::IsMember(precisions));
  pca->add_option("--seed", pp.seed, "Randomized: seed of the start block (default 0)")->check(seed_check());
  pca->add_option("--pop-file", pa->run.pop_file, "Plot labels: two columns IID POP, or a sample sheet whose header names IID (and FID) and population/POP/super_pop (default: the source's population, or the .fam FID)")
      ->check(non_empty_path());
  pca->add_option("--pop-col", pa->run.pop_column, "The --pop-file column holding the population, by header name (e.g. super_pop)");
  add_plot_options(pca, pa->run.write_plot, pa->run.plot_format, "PREFIX.svg (PCs coloured by population, scree panel)");
  pca->add_option("--out", pa->out, "Output prefix")->required()->check(non_empty_path());
  pca->add_flag("--overwrite", pa->run.overwrite, "Replace an existing PREFIX.zarr that strata did not write (its own earlier output is replaced without it); files are always replaced");
  add_common_options(pca, state);
  add_selection_options(pca, pa->run.selection);
  pca->callback([&state, pa] {
    state.run = [pa, &state] { return run_pca(*pa, state); };
    state.distributed = true;  // genomics::run_pca_to_files splits its passes across MPI ranks
  });
}

}  // namespace strata::cli
