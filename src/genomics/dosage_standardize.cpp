// The per-variant dosage frequencies of PCA and the GRM (see dosage_standardize.hpp).
#include "genomics/dosage_standardize.hpp"

#include <algorithm>

#include "strata/core/thread_pool.hpp"

namespace strata::genomics {

Result<DosageMoments> dosage_moments(const Context& ctx, const io::GenotypeView& view, bool nonfounders) {
  const int64_t m = view.num_variants(), n = view.num_samples();
  STRATA_ASSIGN_OR_RETURN(const std::vector<int64_t> founders, frequency_samples(view, nonfounders));
  std::vector<char> in_frequency(static_cast<size_t>(n), founders.empty() ? 1 : 0);
  for (int64_t i : founders) in_frequency[static_cast<size_t>(i)] = 1;
  DosageMoments out;
  out.alt_freq.assign(static_cast<size_t>(m), std::nan(""));
  out.missing.assign(static_cast<size_t>(m), 0);
  out.sum.assign(static_cast<size_t>(m), 0.0);
  out.sum_sq.assign(static_cast<size_t>(m), 0.0);
  out.samples = n;
  // Blocks of about 4 MiB of floats.
  const int64_t rows = std::max<int64_t>(1, (int64_t{4} << 20) / (4 * std::max<int64_t>(1, n)));
  const int64_t blocks = (m + rows - 1) / rows;
  STRATA_RETURN_NOT_OK(ctx.pool().parallel_for(blocks, [&](int64_t b) -> Status {
    const int64_t v0 = b * rows, count = std::min(rows, m - v0);
    std::vector<float> d(static_cast<size_t>(count * n));
    STRATA_RETURN_NOT_OK(view.read_dosages(v0, count, 0, n, d.data(), n));
    for (int64_t r = 0; r < count; ++r) {
      double sum = 0.0, sum_sq = 0.0, freq_sum = 0.0;
      int64_t observed = 0, freq_observed = 0;
      for (int64_t j = 0; j < n; ++j) {
        const float x = d[static_cast<size_t>(r * n + j)];
        if (std::isnan(x)) continue;
        sum += x;
        sum_sq += double(x) * double(x);
        ++observed;
        if (in_frequency[static_cast<size_t>(j)]) {
          freq_sum += x;
          ++freq_observed;
        }
      }
      const auto v = static_cast<size_t>(v0 + r);
      out.missing[v] = n - observed;
      out.sum[v] = sum;
      out.sum_sq[v] = sum_sq;
      if (freq_observed > 0) out.alt_freq[v] = freq_sum / (2.0 * static_cast<double>(freq_observed));
    }
    return Status::OK();
  }));
  // A variant the founders do not vary at, but other samples do, has no usable frequency.
  for (int64_t v = 0; v < m && !founders.empty(); ++v) {
    const double f = out.alt_freq[static_cast<size_t>(v)], obs = static_cast<double>(n - out.missing[static_cast<size_t>(v)]);
    const double all = obs > 0 ? out.sum[static_cast<size_t>(v)] / (2.0 * obs) : f;
    if ((f == 0.0 && all > 0.0) || (f == 1.0 && all < 1.0)) return founders_monomorphic_error(view, v);
  }
  return out;
}

FilterResult dosage_variant_filter(const DosageMoments& moments) {
  FilterResult r;
  for (size_t v = 0; v < moments.alt_freq.size(); ++v) {
    const double f = moments.alt_freq[v];
    if (f > 0.0 && f < 1.0)
      r.kept.push_back(static_cast<int64_t>(v));
    else
      ++r.dropped_monomorphic;
  }
  return r;
}

double dosage_trace_sum(const DosageMoments& moments, const std::vector<int64_t>& kept, Standardization scale) {
  double total = 0.0;
  for (int64_t v : kept) {
    const auto i = static_cast<size_t>(v);
    double lut[4];
    make_standardize_lut_for_freq(moments.alt_freq[i], scale, lut);
    const double a = lut[0], b = lut[1] - lut[0];
    const auto missing = static_cast<double>(moments.missing[i]);
    const double observed = static_cast<double>(moments.samples) - missing;
    total += observed * a * a + 2.0 * a * b * moments.sum[i] + b * b * moments.sum_sq[i] + missing * lut[3] * lut[3];
  }
  return total;
}

}  // namespace strata::genomics
