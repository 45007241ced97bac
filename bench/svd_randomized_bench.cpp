// Randomized SVD (k = 10) of a genotype-like randint(0, 3) matrix generated on the fly:
// strata (block Krylov and subspace iteration) vs Dask `svd_compressed` in the same run, as in
// the Large SVDs post. Each side generates its own data lazily (strata: Philox by element
// index; Dask: da.random.RandomState.randint), so accuracy is measured per side against the
// exact spectrum of its own data (strata: exact TSQR SVD; Dask: eigh of the Gram matrix).
//
//   strata_svd_randomized_bench [--shape 100000,2000] [--k 10] [--repeats 3] [--no-dask]
//                               [--no-exact] [--threads 0]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/thread_pool.hpp"
#include "linalg/bench_svd.hpp"

// The resources of the run (threads from --threads), made in main().
std::optional<strata::Context> g_ctx;
const strata::Context& run_ctx() { return *g_ctx; }

using namespace strata;
using namespace strata::linalg;

namespace {

using strata::bench::median;
using strata::bench::now_s;

struct Side {
  std::string name;
  double seconds = 0;
  double peak_gb = 0;
  std::vector<double> s, exact;
  std::vector<double> estimate;
};

double worst_rel(const std::vector<double>& s, const std::vector<double>& exact, size_t from, size_t to) {
  double w = 0;
  for (size_t i = from; i < std::min({to, s.size(), exact.size()}); ++i)
    w = std::max(w, std::abs(s[i] * s[i] - exact[i] * exact[i]) / (exact[i] * exact[i]));
  return w;
}

const char* kDaskScript = R"PY(
import sys, time, resource, numpy as np, dask, dask.array as da
m, n, k, q = map(int, sys.argv[1:5])
dask.config.set({"optimization.fuse.ave-width": 5})
x = da.random.RandomState(0).randint(0, 3, size=(m, n), chunks=(20000, min(n, 5000)), dtype="uint8")
t = time.time()
u, s, v = da.linalg.svd_compressed(x, k=k, n_power_iter=q, compute=True, seed=0)
s = s.compute(scheduler="threads") if hasattr(s, "compute") else s
v = v.compute(scheduler="threads")
wall = time.time() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
g = np.zeros((n, n))
for i in range(0, m, 20000):
    xb = x[i:i + 20000].compute(scheduler="threads").astype(np.float64)
    g += xb.T @ xb
ref = np.sqrt(np.maximum(np.linalg.eigvalsh(g)[::-1][:k], 0))
print("wall", wall)
print("peak_kb", peak)
print("s", " ".join(repr(float(a)) for a in s))
print("ref", " ".join(repr(float(a)) for a in ref))
)PY";

bool run_dask(int64_t m, int64_t n, int64_t k, int q, Side& side) {
  const std::string script = "/tmp/strata_svd_randomized_bench_dask.py";
  std::ofstream(script) << kDaskScript;
  const std::string cmd = "/usr/bin/python3 " + script + " " + std::to_string(m) + " " + std::to_string(n) + " " +
                          std::to_string(k) + " " + std::to_string(q) + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char buf[1 << 16];
  bool ok = false;
  while (std::fgets(buf, sizeof buf, p)) {
    std::istringstream is(buf);
    std::string key;
    is >> key;
    double x;
    if (key == "wall") {
      is >> side.seconds;
      ok = true;
    } else if (key == "peak_kb") {
      is >> x;
      side.peak_gb = x / 1024 / 1024;
    } else if (key == "s") {
      while (is >> x) side.s.push_back(x);
    } else if (key == "ref") {
      while (is >> x) side.exact.push_back(x);
    }
  }
  pclose(p);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t m = 100'000, n = 2'000, k = 10;
  int repeats = 3, threads = 0;
  bool dask = true, exact = true;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--shape") {
      const std::string s = next();
      m = std::stoll(s.substr(0, s.find(',')));
      n = std::stoll(s.substr(s.find(',') + 1));
    } else if (a == "--k") k = std::stoll(next());
    else if (a == "--repeats") repeats = std::stoi(next());
    else if (a == "--threads") threads = std::stoi(next());
    else if (a == "--no-dask") dask = false;
    else if (a == "--no-exact") exact = false;
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
  std::printf("randomized SVD, k = %lld, randint(0,3) %lld x %lld generated on the fly, %d threads\n", (long long)k,
              (long long)m, (long long)n, g_ctx->threads());

  std::vector<Side> sides;
  struct Config {
    const char* name;
    RandomizedScheme scheme;
    int iterations;
  };
  for (const Config& c : {Config{"strata block Krylov (default, 8 passes)", RandomizedScheme::BlockKrylov, -1},
                          Config{"strata block Krylov, 4 passes", RandomizedScheme::BlockKrylov, 4},
                          Config{"strata subspace iteration, 7 passes", RandomizedScheme::SubspaceIteration, -1}}) {
    Side side;
    side.name = c.name;
    std::vector<double> times;
    for (int rep = 0; rep < repeats; ++rep) {
      BenchSvdOptions o;
      o.rows = m;
      o.cols = n;
      o.k = k;
      o.scheme = c.scheme;
      o.iterations = c.iterations;
      auto r = bench_svd(run_ctx(), o);
      if (!r.ok()) {
        std::fprintf(stderr, "strata: %s\n", r.status().to_string().c_str());
        return 1;
      }
      times.push_back(r->seconds);
      side.s = r->result.s;
      side.estimate = r->result.error_estimate;
      side.peak_gb = r->peak_rss_bytes / 1e9;
    }
    side.seconds = median(times);
    sides.push_back(side);
  }
  if (exact) {
    auto src = make_random_source(m, n, RandomDistribution::RandInt3, 0);
    SvdParams o;
    o.k = k;
    o.method = SvdMethod::Exact;
    o.compute_u = false;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = svd(run_ctx(), *src, o);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r.ok()) {
      for (auto& s : sides) s.exact = r->s;
      std::printf("(exact reference: strata TSQR SVD, %.2f s)\n", t);
    }
  }
  for (int q : {0, 4}) {
    Side side;
    side.name = "dask svd_compressed, n_power_iter=" + std::to_string(q);
    if (dask && run_dask(m, n, k, q, side)) sides.push_back(side);
  }
  const Side* ref = nullptr;
  for (const auto& s : sides)
    if (s.name.rfind("dask svd_compressed, n_power_iter=0", 0) == 0) ref = &s;
  std::printf("%-44s %9s %8s %9s %12s %12s %10s\n", "run", "median s", "peak GB", "vs dask0", "PC1 err", "PC2-10 err",
              "max est.");
  for (const auto& s : sides) {
    double est = 0;
    for (double e : s.estimate) est = std::max(est, e);
    std::printf("%-44s %9.2f %8.2f %9s %12.2e %12.2e %10s\n", s.name.c_str(), s.seconds, s.peak_gb,
                ref ? (std::to_string(ref->seconds / s.seconds).substr(0, 5) + "x").c_str() : "-",
                s.exact.empty() ? NAN : worst_rel(s.s, s.exact, 0, 1),
                s.exact.empty() ? NAN : worst_rel(s.s, s.exact, 1, k),
                s.estimate.empty() ? "-" : (std::to_string(est).substr(0, 8)).c_str());
  }
  std::printf("errors: relative error of s_i^2 against the exact spectrum of the same data\n");
  return 0;
}
