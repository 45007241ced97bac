// Exact SVD of a tall-and-skinny float64 matrix: strata (TSQR) vs Dask `da.linalg.svd` in the
// same run (the Large SVDs post's 10,000,000 × 20 example).
//
//   strata_svd_exact_bench [--rows 10000000] [--cols 20] [--chunk 625000] [--repeats 3]
//                          [--threads 0] [--no-dask] [--json]
//
// strata runs twice: from an in-memory array (generated first, not timed — Dask also holds
// its input in memory) and straight from a counter-based generator (each pass regenerates
// the data; timed end to end, like Dask's own random array). U goes to memory in both,
// as Dask computes u. Accuracy: orthogonality of U and V, ‖A·v_i − s_i·u_i‖ / s_1, and the
// singular values against an independent Gram-matrix eigendecomposition.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/thread_pool.hpp"
#include "strata/linalg/svd.hpp"

// The resources of the run (threads from --threads), made in main().
std::optional<strata::Context> g_ctx;
const strata::Context& run_ctx() { return *g_ctx; }

using namespace strata;
using namespace strata::linalg;

namespace {

using strata::bench::median;
using strata::bench::now_s;

struct Run {
  double seconds = 0;
  SvdResult result;
};

// Runs the SVD, writing U row-major into `u` (rows × cols).
Result<Run> run_strata(const RowBlockSourcePtr& src, std::vector<double>& u, int64_t chunk) {
  SvdParams opt;
  opt.method = SvdMethod::Exact;
  opt.pass.block_rows = 0;
  (void)chunk;
  const int64_t n = src->cols();
  opt.u_sink = [&u, n](int64_t r0, int64_t rows, int64_t k, const double* blk) {
    std::memcpy(u.data() + r0 * n, blk, sizeof(double) * static_cast<size_t>(rows * k));
    return Status::OK();
  };
  const double t0 = now_s();
  STRATA_ASSIGN_OR_RETURN(SvdResult r, svd(run_ctx(), src, opt));
  Run run;
  run.seconds = now_s() - t0;
  run.result = std::move(r);
  return run;
}

struct Accuracy {
  double u_orth = 0, v_orth = 0, residual = 0, s_vs_gram = 0;
};

Accuracy check(const std::vector<double>& a, const std::vector<double>& u, int64_t m, int64_t n, const SvdResult& r) {
  Accuracy acc;
  std::vector<double> g(static_cast<size_t>(n * n)), uu(static_cast<size_t>(n * n));
  cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, (int)n, (int)m, 1.0, a.data(), (int)n, 0.0, g.data(), (int)n);
  cblas_dsyrk(CblasColMajor, CblasUpper, CblasNoTrans, (int)n, (int)m, 1.0, u.data(), (int)n, 0.0, uu.data(), (int)n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) acc.u_orth = std::max(acc.u_orth, std::abs(uu[i + j * n] - (i == j)));
  acc.v_orth = orthogonality_error(r.v);
  // A·V − U·S, row by row.
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t c = 0; c < n; ++c) {
      double av = 0;
      for (int64_t j = 0; j < n; ++j) av += a[i * n + j] * r.v(j, c);
      acc.residual = std::max(acc.residual, std::abs(av - r.s[c] * u[i * n + c]) / r.s[0]);
    }
  }
  DenseMatrix gm(n, n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i; j < n; ++j) gm(i, j) = gm(j, i) = g[i + j * n];
  auto e = eigh(run_ctx(), gm);
  if (e.ok()) {
    for (int64_t i = 0; i < n; ++i) acc.s_vs_gram = std::max(acc.s_vs_gram, std::abs(std::sqrt(e->w[i]) / r.s[i] - 1));
  }
  return acc;
}

// The shared peer runners: $STRATA_SHARED_DATA's parent, else ../shared beside the repository.
std::string shared_bench_dir() {
  if (const char* env = std::getenv("STRATA_SHARED_DATA"); env && *env) {
    std::filesystem::path p(env);
    if (p.filename().empty()) p = p.parent_path();
    return (p.parent_path() / "bench").string();
  }
  return (std::filesystem::path(STRATA_SOURCE_DIR).parent_path() / "shared" / "bench").string();
}

// Dask's run in a child process; returns wall seconds (its own timer) and its peak RSS.
bool run_dask(int64_t m, int64_t n, int64_t chunk, double* wall, double* rss_gb) {
  const std::string runner = shared_bench_dir() + "/dask_tsqr.py";
  if (!std::filesystem::exists(runner)) {
    std::fprintf(stderr, "svd_exact_bench: the Dask runner %s is missing (set STRATA_SHARED_DATA)\n", runner.c_str());
    return false;
  }
  const std::string cmd =
      "/usr/bin/python3 -c \"import runpy, resource, sys; sys.argv = ['dask_tsqr.py', '" + std::to_string(m) + "', '" +
      std::to_string(n) + "', '" + std::to_string(chunk) +
      "']; runpy.run_path('" + runner + "', run_name='__main__'); "
      "print('peak_kb', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\" 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char line[4096];
  bool ok = false;
  while (std::fgets(line, sizeof line, p)) {
    if (const char* w = std::strstr(line, "wall_s")) {
      *wall = std::atof(w + 6);
      ok = true;
    }
    if (std::strncmp(line, "peak_kb", 7) == 0) *rss_gb = std::atof(line + 7) / 1024.0 / 1024.0;
  }
  pclose(p);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t m = 10'000'000, n = 20, chunk = 625'000;
  int repeats = 3, threads = 0;
  bool dask = true, json = false, ram_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--rows") m = std::stoll(next());
    else if (a == "--cols") n = std::stoll(next());
    else if (a == "--chunk") chunk = std::stoll(next());
    else if (a == "--repeats") repeats = std::stoi(next());
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--no-dask") dask = false;
    else if (a == "--json") json = true;
    else if (a == "--ram-only") ram_only = true;
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  {
    strata::ContextOptions co;
    co.threads = threads > 0 ? threads : 0;
    g_ctx.emplace(*strata::Context::make(co));
  }
  std::printf("exact SVD of %lld x %lld float64, %d threads\n", (long long)m, (long long)n, g_ctx->threads());

  std::vector<double> u(static_cast<size_t>(m * n));
  // 1) Generated on the fly: every pass regenerates the blocks it reads.
  auto gen = make_random_source(m, n, RandomDistribution::Uniform01, 42);
  if (!gen.ok()) return 1;
  std::vector<double> t_gen{0.0};
  SvdResult r_gen;
  if (!ram_only) t_gen.clear();
  for (int rep = 0; rep < (ram_only ? 0 : repeats); ++rep) {
    auto run = run_strata(*gen, u, chunk);
    if (!run.ok()) {
      std::fprintf(stderr, "strata: %s\n", run.status().to_string().c_str());
      return 1;
    }
    t_gen.push_back(run->seconds);
    r_gen = std::move(run->result);
  }
  const double rss_gen = peak_rss_bytes() / 1e9;

  // 2) From memory.
  const double tg0 = now_s();
  auto all = read_all(**gen);
  if (!all.ok()) return 1;
  const double gen_s = now_s() - tg0;
  auto mem = make_dense_source(all->data(), m, n);
  std::vector<double> t_mem;
  SvdResult r_mem;
  for (int rep = 0; rep < repeats; ++rep) {
    auto run = run_strata(mem, u, chunk);
    if (!run.ok()) return 1;
    t_mem.push_back(run->seconds);
    r_mem = std::move(run->result);
  }
  const double rss_mem = peak_rss_bytes() / 1e9;
  const Accuracy acc = ram_only ? Accuracy{} : check(*all, u, m, n, r_mem);
  const bool bits_equal = r_mem.s == r_gen.s && r_mem.v.data == r_gen.v.data;

  double dask_s = 0, dask_rss = 0;
  const bool have_dask = dask && run_dask(m, n, chunk, &dask_s, &dask_rss);

  const double med_gen = median(t_gen), med_mem = median(t_mem);
  std::printf("%-40s %9s %9s %9s\n", "run", "median s", "peak GB", "vs dask");
  std::printf("%-40s %9.3f %9.2f %9s\n", "strata, generated on the fly", med_gen, rss_gen,
              have_dask ? (std::to_string(dask_s / med_gen).substr(0, 5) + "x").c_str() : "-");
  std::printf("%-40s %9.3f %9.2f %9s   (+%.2f s to generate into RAM)\n", "strata, from RAM", med_mem, rss_mem,
              have_dask ? (std::to_string(dask_s / med_mem).substr(0, 5) + "x").c_str() : "-", gen_s);
  if (have_dask) std::printf("%-40s %9.3f %9.2f %9s\n", "dask svd (tsqr), generates in memory", dask_s, dask_rss, "1.00x");
  std::printf("accuracy: |UtU-I| %.1e  |VtV-I| %.1e  max|Av-su|/s1 %.1e  s vs Gram eig %.1e  gen==RAM bits %s\n",
              acc.u_orth, acc.v_orth, acc.residual, acc.s_vs_gram, bits_equal ? "yes" : "no");
  std::printf("s[0:3] = %.6f %.6f %.6f, u route %s, passes %lld\n", r_mem.s[0], r_mem.s[1], r_mem.s[2],
              r_mem.u_route.c_str(), (long long)r_mem.passes);
  if (json) {
    std::printf("{\"rows\":%lld,\"cols\":%lld,\"strata_gen_s\":%.4f,\"strata_ram_s\":%.4f,\"dask_s\":%.3f,"
                "\"ratio_gen\":%.2f,\"ratio_ram\":%.2f,\"peak_gb_gen\":%.3f,\"peak_gb_ram\":%.3f,\"dask_peak_gb\":%.3f,"
                "\"u_orth\":%.2e,\"residual\":%.2e}\n",
                (long long)m, (long long)n, med_gen, med_mem, dask_s, have_dask ? dask_s / med_gen : 0.0,
                have_dask ? dask_s / med_mem : 0.0, rss_gen, rss_mem, dask_rss, acc.u_orth, acc.residual);
  }
  return 0;
}
