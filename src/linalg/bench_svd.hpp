#pragma once
// The Large SVDs experiment as a library call, for `strata bench svd`: a randomized SVD of a
// genotype-like randint(0, 3) matrix generated on the fly (never stored). Internal (not
// installed): used by the CLI and bench/.

#include <cstdint>

#include "strata/core/result.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {

/// \brief What to run.
struct BenchSvdOptions {
  int64_t rows = 1'000'000;
  int64_t cols = 20'000;
  int64_t k = 10;
  /// Algorithm settings (k and method are taken from the fields above / Randomized).
  RandomizedScheme scheme = RandomizedScheme::BlockKrylov;
  int iterations = -1;
  int64_t oversampling = 10;
  uint64_t seed = 0;         ///< seed of the data (the sketch uses seed + 1)
  bool compute_u = false;    ///< the post computes v only
  PassOptions pass;
};

/// \brief What happened.
struct BenchSvdReport {
  double seconds = 0;            ///< wall time of the decomposition (data generation included)
  int64_t passes = 0;
  double elements_per_second = 0;///< rows · cols · passes / seconds
  double gflops = 0;             ///< 4 · rows · cols · width-per-pass · passes / seconds / 1e9
  int64_t peak_rss_bytes = 0;    ///< process peak RSS after the run
  SvdResult result;
};

/// \brief The decomposition's settings bench_svd() runs (the sketch seeded with seed + 1).
SvdParams bench_svd_params(const BenchSvdOptions& options);

/// \brief Generate randint(0, 3) data (Philox, keyed by element index) and decompose it.
/// \code
/// linalg::BenchSvdOptions o;
/// o.rows = 100000; o.cols = 5000;
/// STRATA_ASSIGN_OR_RETURN(auto rep, linalg::bench_svd(ctx, o));
/// \endcode
Result<BenchSvdReport> bench_svd(const Context& ctx, const BenchSvdOptions& options);

}  // namespace strata::linalg
