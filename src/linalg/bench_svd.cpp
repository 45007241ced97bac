#include "linalg/bench_svd.hpp"

#include <algorithm>
#include <chrono>

#include "strata/core/buffer.hpp"

namespace strata::linalg {

SvdParams bench_svd_params(const BenchSvdOptions& options) {
  SvdParams opt;
  opt.k = options.k;
  opt.method = SvdMethod::Randomized;
  opt.scheme = options.scheme;
  opt.iterations = options.iterations;
  opt.oversampling = options.oversampling;
  opt.seed = options.seed + 1;
  opt.compute_u = options.compute_u;
  opt.pass = options.pass;
  return opt;
}

Result<BenchSvdReport> bench_svd(const Context& ctx, const BenchSvdOptions& options) {
  STRATA_ASSIGN_OR_RETURN(RowBlockSourcePtr src,
                          make_random_source(options.rows, options.cols, RandomDistribution::RandInt3, options.seed));
  const SvdParams opt = bench_svd_params(options);
  const auto t0 = std::chrono::steady_clock::now();
  STRATA_ASSIGN_OR_RETURN(SvdResult r, svd(ctx, src, opt));
  BenchSvdReport rep;
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rep.passes = r.passes;
  const double elems = static_cast<double>(options.rows) * static_cast<double>(options.cols);
  rep.elements_per_second = elems * static_cast<double>(r.passes) / rep.seconds;
  const int64_t per_pass = std::min(options.k + options.oversampling, std::min(options.rows, options.cols));
  rep.gflops = 4.0 * elems * static_cast<double>(per_pass) * static_cast<double>(r.passes) / rep.seconds / 1e9;
  rep.peak_rss_bytes = peak_rss_bytes();
  rep.result = std::move(r);
  return rep;
}

}  // namespace strata::linalg
