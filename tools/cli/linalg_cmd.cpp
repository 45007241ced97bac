// `strata svd`: thin wrapper over strata/linalg/svd_zarr.hpp (`strata pca` joins later).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/progress.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/linalg/row_blocks.hpp"
#include "strata/linalg/svd_zarr.hpp"

namespace strata::cli {
namespace {

struct SvdArgs {
  std::string path, out;
  int64_t k = 0;
  std::string method = "auto";
  std::string scheme = "krylov";
  int iterations = -1;
  int64_t oversampling = 10;
  uint64_t seed = 0;
  std::string precision = "auto";
  bool overwrite = false;
};

Status run_svd(const SvdArgs& a, const CliState& state) {
  const auto t0 = std::chrono::steady_clock::now();
  linalg::SvdOptions opt;
  opt.k = a.k;
  STRATA_ASSIGN_OR_RETURN(opt.method, linalg::parse_svd_method(a.method));
  if (a.scheme == "krylov") {
    opt.scheme = linalg::RandomizedScheme::BlockKrylov;
  } else if (a.scheme == "subspace") {
    opt.scheme = linalg::RandomizedScheme::SubspaceIteration;
  } else {
    return Status::Invalid("--scheme must be krylov or subspace, got '", a.scheme, "'");
  }
  if (a.precision == "auto") {
    opt.precision = linalg::Precision::Auto;
  } else if (a.precision == "float32") {
    opt.precision = linalg::Precision::Float32;
  } else if (a.precision == "float64") {
    opt.precision = linalg::Precision::Float64;
  } else {
    return Status::Invalid("--precision must be auto, float32 or float64, got '", a.precision, "'");
  }
  opt.iterations = a.iterations;
  opt.oversampling = a.oversampling;
  opt.seed = a.seed;
  // The bar counts rows streamed over all passes; its total is an estimate for randomized runs.
  std::unique_ptr<ProgressBar> bar;
  if (!state.quiet) {
    auto src = linalg::open_zarr_source(a.path);
    if (src.ok()) {
      const int passes = opt.method == linalg::SvdMethod::Exact ? 2 : (a.iterations > 0 ? a.iterations : 8) + 1;
      bar = std::make_unique<ProgressBar>("svd", (*src)->rows() * passes);
      opt.pass.progress = bar.get();
    }
  }
  linalg::SvdZarrOptions zo;
  zo.overwrite = a.overwrite;
  STRATA_ASSIGN_OR_RETURN(linalg::SvdResult r, linalg::svd_to_zarr(a.path, a.out, opt, zo));
  if (bar) bar->finish();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!state.quiet) {
    std::printf("%s SVD, k = %zu, %lld passes, %.2f s -> %s\n",
                r.method == linalg::SvdMethod::Exact ? "exact" : "randomized", r.s.size(),
                static_cast<long long>(r.passes), wall, a.out.c_str());
    std::printf("%4s %16s %12s\n", "i", "singular value", "est. error");
    for (size_t i = 0; i < r.s.size(); ++i) std::printf("%4zu %16.8g %12.2e\n", i + 1, r.s[i], r.error_estimate[i]);
  }
  if (!state.report_path.empty()) {
    nlohmann::json rep = {{"command", "svd"},
                          {"input", a.path},
                          {"output", a.out},
                          {"method", r.method == linalg::SvdMethod::Exact ? "exact" : "randomized"},
                          {"passes", r.passes},
                          {"wall_seconds", wall},
                          {"threads", ThreadPool::default_threads()},
                          {"peak_rss_bytes", peak_rss_bytes()},
                          {"singular_values", r.s},
                          {"error_estimate", r.error_estimate},
                          {"residual_norms", r.residual_norms}};
    std::ofstream f(state.report_path);
    f << rep.dump(2) << "\n";
    if (!f) return Status::IOError("cannot write report ", state.report_path);
  }
  return Status::OK();
}

}  // namespace

void register_linalg_commands(CLI::App& app, CliState& state) {
  auto args = std::make_shared<SvdArgs>();
  auto* svd = app.add_subcommand("svd", "SVD of a 2-D numeric Zarr array: writes U, S and Vt to a Zarr group");
  svd->add_option("PATH", args->path, "Input array (store.zarr or store.zarr/path/to/array)")->required();
  svd->add_option("-k", args->k, "Number of components (1 <= k < min(rows, cols))")->required();
  svd->add_option("--method", args->method,
                  "auto (exact when min(rows, cols) <= 2048), exact (TSQR), or randomized")
      ->check(CLI::IsMember({"auto", "exact", "randomized"}));
  svd->add_option("--iterations", args->iterations, "Randomized: passes over the data (default 8 krylov, 7 subspace)");
  svd->add_option("--scheme", args->scheme, "Randomized: krylov (block Krylov, default) or subspace");
  svd->add_option("--oversampling", args->oversampling, "Randomized: extra sketch columns (default 10)");
  svd->add_option("--seed", args->seed, "Randomized: seed of the start block (default 0)");
  svd->add_option("--precision", args->precision, "Randomized: auto, float32 or float64 products");
  svd->add_option("--out", args->out, "Output Zarr group (U, S, Vt)")->required();
  svd->add_flag("--overwrite", args->overwrite, "Replace --out if it exists");
  add_common_options(svd, state);
  svd->callback([&state, args] { state.run = [args, &state] { return run_svd(*args, state); }; });
}

}  // namespace strata::cli
