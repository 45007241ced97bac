// `strata bench`: the published experiments, as tables (or JSON lines with --json).
//   random-sum  (x + 1)[::2, ::2].sum() of x = normal(10, 1)   ("GPU Dask Arrays, first steps")
//   random-gen  single-thread generation throughput of the random sources
//   svd         randomized SVD (k = 10) of randint(0, 3) data made on the fly ("Large SVDs")
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli_common.hpp"
#include "strata/array/ops.hpp"
#include "strata/backend/backend.hpp"
#include "strata/backend/bench_source.hpp"
#include "strata/core/random.hpp"
#include "strata/core/shape.hpp"
#include "terminal_progress.hpp"
#include "strata/exec/run.hpp"
#include "linalg/bench_svd.hpp"

namespace strata::cli {
namespace {

struct RandomSumOptions {
  std::string shape = "40000,40000";
  std::string chunks = "10000,10000";
  std::string threads = "1,2";
  int64_t budget = 0;  ///< --memory-budget; 0 = default_memory_budget(), as every command
  uint64_t seed = 0;
  bool json = false;
};

Result<std::vector<int>> parse_thread_list(const std::string& text) {
  STRATA_ASSIGN_OR_RETURN(Shape s, parse_shape(text));
  std::vector<int> out;
  for (int64_t t : s) {
    if (t < 1 || t > kMaxThreads)
      return Status::Invalid("--threads must be comma-separated thread counts, each 1–", kMaxThreads, ", got '", text, "'");
    out.push_back(static_cast<int>(t));
  }
  return out;
}

// On a device the whole expression is one operation (BenchSource::random_slice_sum: only
// the kept elements are generated, the + 1 and the sum fused), timed after a small warm-up call
// that starts the device. Chunks and threads do not apply there.
Status run_random_sum_on_device(const RandomSumOptions& o, const Shape& shape, const backend::Backend& be,
                                CliState& state) {
  random::FillParams p;
  p.dist = random::Dist::Normal;
  p.seed = o.seed;
  p.mean = 10.0;
  p.sd = 1.0;
  const int64_t rows = (shape[0] + 1) / 2, cols = (shape[1] + 1) / 2;
  const backend::BenchSource source(be);
  STRATA_RETURN_NOT_OK(source.random_slice_sum(p, shape[1], 0, 2, 1, 0, 2, 1, 1.0).status());  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(double result, source.random_slice_sum(p, shape[1], 0, 2, rows, 0, 2, cols, 1.0));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double total_elems = static_cast<double>(shape[0]) * static_cast<double>(shape[1]);
  const double gen = static_cast<double>(rows) * static_cast<double>(cols);
  nlohmann::json j = {{"benchmark", "random-sum"}, {"shape", shape},      {"device", be.name()},
                      {"path", "fused"},           {"seed", o.seed},      {"result", result},
                      {"seconds", secs},           {"elements_generated", rows * cols},
                      {"elements_per_second", total_elems / secs},    {"generated_per_second", gen / secs}};
  if (o.json) {
    std::printf("%s\n", j.dump().c_str());
  } else {
    std::printf("%8s %12.3f %16.4g %18lld %22.4g  %.17g\n", "device", secs, total_elems / secs,
                static_cast<long long>(rows * cols), gen / secs, result);
  }
  std::fflush(stdout);
  state.report = {{"runs", nlohmann::json::array({j})}};
  return Status::OK();
}

Status run_random_sum(const RandomSumOptions& o, CliState& state) {
  STRATA_ASSIGN_OR_RETURN(Shape shape, parse_shape(o.shape));
  STRATA_ASSIGN_OR_RETURN(Shape chunks, parse_shape(o.chunks));
  STRATA_ASSIGN_OR_RETURN(std::vector<int> threads, parse_thread_list(o.threads));
  if (shape.size() != 2 || chunks.size() != 2) return Status::Invalid("--shape and --chunks take two extents");
  const Array x = Array::random_normal(shape, chunks, 10.0, 1.0, o.seed);
  const Array expr = sum((x + 1).slice({Slice::every(2), Slice::every(2)}));
  STRATA_RETURN_NOT_OK(expr.status());
  const double total_elems = static_cast<double>(shape[0]) * static_cast<double>(shape[1]);
  const backend::Backend& be = backend::of(state.ctx());
  const bool device = &be != backend::cpu_backend().get();
  if (!o.json) {
    std::printf("(x + 1)[::2, ::2].sum(), x = normal(10, 1) of %s, chunks %s, seed %llu\n",
                shape_to_string(shape).c_str(), shape_to_string(chunks).c_str(),
                static_cast<unsigned long long>(o.seed));
    std::printf("device: %s\n", be.name().c_str());
    std::printf("%8s %12s %16s %18s %22s  %s\n", "threads", "seconds", "elements/s", "generated", "generated/s",
                "result");
  }
  if (device) return run_random_sum_on_device(o, shape, be, state);
  RunReport all;
  nlohmann::json runs = nlohmann::json::array();
  for (int t : threads) {
    ContextOptions co;
    co.threads = t;
    co.memory_budget = o.budget;
    co.backend_impl = state.ctx().backend_impl();
    co.progress = make_terminal_progress(state.quiet || o.json);
    STRATA_ASSIGN_OR_RETURN(Context ctx, Context::make(co));
    PassOptions opts;
    opts.label = "random-sum";
    const auto t0 = std::chrono::steady_clock::now();
    STRATA_ASSIGN_OR_RETURN(HostArray r, compute(ctx, expr, opts));
    const RunReport report = ctx.report().snapshot();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double result = r.value_as_double(0);
    const double gen = static_cast<double>(report.elements_generated);
    nlohmann::json j = {{"benchmark", "random-sum"},  {"shape", shape},
                        {"chunks", chunks},           {"threads", t},
                        {"device", backend::of(ctx).name()}, {"path", "array engine"},
                        {"seed", o.seed},             {"result", result},
                        {"seconds", secs},            {"elements_generated", report.elements_generated},
                        {"elements_per_second", total_elems / secs},
                        {"generated_per_second", gen / secs},
                        {"peak_rss_bytes", report.peak_rss_bytes}};
    if (o.json) {
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%8d %12.3f %16.4g %18lld %22.4g  %.17g\n", t, secs, total_elems / secs,
                  static_cast<long long>(report.elements_generated), gen / secs, result);
    }
    std::fflush(stdout);
    nlohmann::json rj = nlohmann::json::parse(report.to_json());
    rj["configuration"] = j;
    runs.push_back(rj);
    all += report;
  }
  state.report = nlohmann::json::parse(all.to_json());
  state.report["runs"] = runs;
  return Status::OK();
}

struct RandomGenOptions {
  int64_t n = 50'000'000;
  bool json = false;
};

Status run_random_gen(const RandomGenOptions& o) {
  if (o.n < 1) return Status::Invalid("--n must be >= 1");
  ContextOptions co;
  co.threads = 1;
  struct Case {
    const char* name;
    Array a;
  };
  const int64_t cols = 1 << 20, rows = (o.n + cols - 1) / cols;
  const Shape shape{rows, cols}, chunks{1, cols};
  const std::vector<Case> cases = {
      {"normal float64", Array::random_normal(shape, chunks, 0.0, 1.0, 1)},
      {"normal float64 [:, ::2]", Array::random_normal(shape, {1, 2 * cols}, 0.0, 1.0, 1).slice(
                                      {Slice::all(), Slice::every(2)})},
      {"uniform float64", Array::random_uniform(shape, chunks, 1)},
      {"uniform float32", Array::random_uniform(shape, chunks, 1, DType(ScalarType::Float32))},
      {"integers [0, 3) int64", Array::random_integers(shape, chunks, 0, 3, 1)},
  };
  if (!o.json) std::printf("%-26s %14s %10s   (1 thread, summed so nothing is stored)\n", "source", "M elements/s", "seconds");
  for (const Case& c : cases) {
    const Array s = sum(c.a);
    STRATA_ASSIGN_OR_RETURN(Context ctx, Context::make(co));
    const auto t0 = std::chrono::steady_clock::now();
    STRATA_ASSIGN_OR_RETURN(HostArray r, compute(ctx, s));
    const RunReport report = ctx.report().snapshot();
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double rate = static_cast<double>(report.elements_generated) / secs;
    if (o.json) {
      nlohmann::json j = {{"benchmark", "random-gen"}, {"source", c.name}, {"threads", 1},
                          {"elements_generated", report.elements_generated}, {"seconds", secs},
                          {"elements_per_second", rate}, {"result", r.value_as_double(0)}};
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%-26s %14.1f %10.3f\n", c.name, rate / 1e6, secs);
    }
  }
  return Status::OK();
}

struct SvdBenchOptions {
  std::string shape = "100000,2000";
  std::string threads = "1,2";
  int64_t k = 10;
  int iterations = -1;
  uint64_t seed = 0;
  bool json = false;
};

// Where bench svd's products run: a backend whose BenchSource is fused_randint3() generates the
// matrix where it multiplies (linalg's gram pass then takes BenchSource::randint3_product).
const char* svd_products(const backend::Backend& be) {
  return backend::BenchSource(be).fused_randint3() ? "randint3_product, generated on the device" : "host-generated rows";
}

Status run_svd_bench(const SvdBenchOptions& o, const CliState& state) {
  STRATA_ASSIGN_OR_RETURN(Shape shape, parse_shape(o.shape));
  STRATA_ASSIGN_OR_RETURN(std::vector<int> threads, parse_thread_list(o.threads));
  if (shape.size() != 2) return Status::Invalid("--shape takes two extents (rows,cols)");
  if (o.k < 1 || o.k >= std::min(shape[0], shape[1])) {
    return Status::Invalid("--k must be in [1, min(rows, cols)), got ", o.k);
  }
  if (!o.json) {
    std::printf("randomized SVD (block Krylov) k=%lld of randint(0, 3) uint8 %s generated on the fly, seed %llu\n",
                static_cast<long long>(o.k), shape_to_string(shape).c_str(),
                static_cast<unsigned long long>(o.seed));
    std::printf("device: %s (products: %s)\n", backend::of(state.ctx()).name().c_str(),
                svd_products(backend::of(state.ctx())));
    std::printf("%8s %10s %7s %14s %10s %12s %12s %12s\n", "threads", "seconds", "passes", "elements/s", "GFLOP/s",
                "s[0]", "s[k-1]", "max error");
  }
  std::vector<double> last_s;
  for (int t : threads) {
    if (t < 1) return Status::Invalid("--threads entries must be >= 1");
    ContextOptions co;
    co.threads = t;
    co.backend_impl = state.ctx().backend_impl();
    STRATA_ASSIGN_OR_RETURN(Context ctx, Context::make(co));
    linalg::BenchSvdOptions b;
    b.rows = shape[0];
    b.cols = shape[1];
    b.k = o.k;
    b.iterations = o.iterations;
    b.seed = o.seed;
    STRATA_ASSIGN_OR_RETURN(linalg::BenchSvdReport rep, linalg::bench_svd(ctx, b));
    const std::vector<double>& s = rep.result.s;
    const std::vector<double>& err = rep.result.error_estimate;
    const double max_err = err.empty() ? 0.0 : *std::max_element(err.begin(), err.end());
    if (o.json) {
      nlohmann::json j = {{"benchmark", "svd"},
                          {"shape", shape},
                          {"k", o.k},
                          {"threads", t},
                          {"device", backend::of(ctx).name()},
                          {"products", svd_products(backend::of(ctx))},
                          {"seed", o.seed},
                          {"seconds", rep.seconds},
                          {"passes", rep.passes},
                          {"elements_per_second", rep.elements_per_second},
                          {"gflops", rep.gflops},
                          {"singular_values", s},
                          {"error_estimate", err},
                          {"residual_norms", rep.result.residual_norms},
                          {"peak_rss_bytes", rep.peak_rss_bytes}};
      std::printf("%s\n", j.dump().c_str());
    } else {
      std::printf("%8d %10.3f %7lld %14.4g %10.2f %12.6g %12.6g %12.3g\n", t, rep.seconds,
                  static_cast<long long>(rep.passes), rep.elements_per_second, rep.gflops, s.front(), s.back(),
                  max_err);
    }
    std::fflush(stdout);
    last_s = s;
  }
  // Values are identical for every thread count, so one line lists them all.
  if (!o.json && !last_s.empty()) {
    std::printf("singular values:");
    for (double v : last_s) std::printf(" %.6g", v);
    std::printf("\n");
  }
  return Status::OK();
}

}  // namespace

CLI::Validator shape2_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        auto sh = parse_shape(s);
        if (!sh.ok() || sh->size() != 2) return "must be two positive integers separated by a comma (e.g. 1000,2000), got '" + s + "'";
        return std::string();
      },
      "ROWS,COLS", "");
}

CLI::Validator thread_list_check() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        auto t = parse_thread_list(s);
        return t.ok() ? std::string() : "must be comma-separated thread counts, each 1–1024 (e.g. 1,2), got '" + s + "'";
      },
      "N,N,...", "");
}

void register_bench_commands(CLI::App& app, CliState& state) {
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks reproducing published experiments");
  bench->require_subcommand(1);

  auto rs = std::make_shared<RandomSumOptions>();
  CLI::App* sum_cmd = bench->add_subcommand(
      "random-sum", "(x + 1)[::2, ::2].sum() of a lazily generated normal(10, 1) array (GPU Dask Arrays, first steps)");
  sum_cmd->add_option("--shape", rs->shape, "Array shape, e.g. 500000,500000")->capture_default_str()->check(shape2_check());
  sum_cmd->add_option("--chunks", rs->chunks, "Chunk shape")->capture_default_str()->check(shape2_check());
  sum_cmd->add_option("--threads", rs->threads, "Comma-separated thread counts, one run each")
      ->capture_default_str()
      ->check(thread_list_check());
  sum_cmd->add_option("--seed", rs->seed, "Random seed")->capture_default_str()->check(seed_check());
  sum_cmd
      ->add_option_function<std::string>(
          "--memory-budget", [rs](const std::string& s) { rs->budget = parse_memory_budget(s).value_or(0); },
          "Memory budget for blocks in flight, e.g. 2G (default: half the physical memory)")
      ->check(memory_size());
  sum_cmd->add_flag("--json", rs->json, "One JSON object per configuration instead of a table");
  sum_cmd->add_flag("-q,--quiet", state.quiet, "No progress bars");
  sum_cmd->add_option("--report", state.report_path, "Write a JSON run report");
  add_device_option(sum_cmd, state);
  sum_cmd->callback([rs, &state] { state.run = [rs, &state] { return run_random_sum(*rs, state); }; });

  auto rg = std::make_shared<RandomGenOptions>();
  CLI::App* gen_cmd = bench->add_subcommand("random-gen", "Single-thread throughput of the random sources");
  gen_cmd->add_option("--n", rg->n, "Elements per source")
      ->capture_default_str()
      ->check(integer_in(1, 1'000'000'000'000, "an integer from 1 to 1,000,000,000,000"));
  gen_cmd->add_flag("--json", rg->json, "JSON lines instead of a table");
  gen_cmd->callback([rg, &state] { state.run = [rg] { return run_random_gen(*rg); }; });

  auto sv = std::make_shared<SvdBenchOptions>();
  CLI::App* svd_cmd = bench->add_subcommand(
      "svd", "Randomized SVD (k=10) of genotype-like randint(0, 3) data generated on the fly (Large SVDs)");
  svd_cmd->add_option("--shape", sv->shape, "rows,cols, e.g. 1000000,20000 as in the post")
      ->capture_default_str()
      ->check(shape2_check());
  svd_cmd->add_option("--k", sv->k, "Singular values to compute")
      ->capture_default_str()
      ->check(integer_in(1, 1'000'000, "an integer from 1 to 1,000,000"));
  svd_cmd->add_option("--iterations", sv->iterations, "Passes of the iteration; -1 = default")
      ->capture_default_str()
      ->check(integer_in(-1, 100'000, "-1 (default) or 1–100,000") & CLI::Validator(
                  [](std::string& s) -> std::string {
                    return s == "0" ? "must be -1 (default) or 1–100,000, got 0" : std::string();
                  },
                  "", ""));
  svd_cmd->add_option("--threads", sv->threads, "Comma-separated thread counts, one run each")
      ->capture_default_str()
      ->check(thread_list_check());
  svd_cmd->add_option("--seed", sv->seed, "Seed of the data (the sketch uses seed + 1)")
      ->capture_default_str()
      ->check(seed_check());
  svd_cmd->add_flag("--json", sv->json, "One JSON object per configuration instead of a table");
  add_device_option(svd_cmd, state);
  svd_cmd->callback([sv, &state] { state.run = [sv, &state] { return run_svd_bench(*sv, state); }; });
}

}  // namespace strata::cli
