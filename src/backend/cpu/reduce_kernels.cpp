// The CPU backend's reduction tile kernel for the array engine. Float sums use eight independent
// float64 accumulators per contiguous run (a fixed association: the result depends only on the
// tiles, never on threads); variance takes per-run two-pass moments merged with Chan's formula.
#include <cmath>
#include <type_traits>
#include <vector>

#include "backend/cpu/cpu_backend.hpp"

namespace strata::backend::cpu {
namespace {

double fast_sum(const double* x, int64_t n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += x[i + k];
  }
  for (int k = 0; i < n; ++i, ++k) acc[k] += x[i];
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

Moments moments_of(const double* x, int64_t n) {
  const double mean = fast_sum(x, n) / static_cast<double>(n);
  double acc[4] = {0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < 4; ++k) acc[k] += (x[i + k] - mean) * (x[i + k] - mean);
  }
  for (int k = 0; i < n; ++i, ++k) acc[k] += (x[i] - mean) * (x[i] - mean);
  Moments m;
  m.n = static_cast<double>(n);
  m.mean = mean;
  m.m2 = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  return m;
}

template <class T, class F>
void for_each_pos(const T* x, const ReduceTile& t, F f) {
  for (int64_t r = 0; r < t.rows; ++r) {
    for (int64_t c = 0; c < t.cols; ++c) f(t.base + r * t.row_stride + c * t.col_stride, x[r * t.cols + c]);
  }
}

// SumF64 and Moments: the tile as doubles.
void reduce_as_double(ReduceKind kind, const ReduceTile& t, void* state) {
  const int64_t n = t.rows * t.cols;
  const double* x = static_cast<const double*>(t.data);
  thread_local std::vector<double> converted;
  if (t.type != ScalarType::Float64) {
    converted.resize(static_cast<size_t>(n));
    Status st = visit_scalar(t.type, [&](auto tag) {
      using T = decltype(tag);
      for (int64_t i = 0; i < n; ++i) converted[static_cast<size_t>(i)] = static_cast<double>(static_cast<const T*>(t.data)[i]);
    });
    (void)st;
    x = converted.data();
  }
  const int64_t rs = t.row_stride, cs = t.col_stride;
  if (kind == ReduceKind::Moments) {
    auto* s = static_cast<Moments*>(state);
    if (cs == 0) {
      for (int64_t r = 0; r < (rs == 0 ? 1 : t.rows); ++r) {
        const int64_t len = rs == 0 ? n : t.cols;
        merge_moments(s[t.base + r * rs], moments_of(x + r * t.cols, len));
      }
    } else {
      for_each_pos(x, t, [&](int64_t o, double v) {
        Moments& m = s[o];
        m.n += 1;
        const double d = v - m.mean;
        m.mean += d / m.n;
        m.m2 += d * (v - m.mean);
      });
    }
    return;
  }
  auto* s = static_cast<double*>(state);
  if (cs == 0 && rs == 0) {
    s[t.base] += fast_sum(x, n);
  } else if (cs == 0) {
    for (int64_t r = 0; r < t.rows; ++r) s[t.base + r * rs] += fast_sum(x + r * t.cols, t.cols);
  } else {
    for_each_pos(x, t, [&](int64_t o, double v) { s[o] += v; });
  }
}

}  // namespace

Status CpuBackend::reduce_tile(ReduceKind kind, const ReduceTile& t, void* state) const {
  if (kind == ReduceKind::SumF64 || kind == ReduceKind::Moments) {
    reduce_as_double(kind, t, state);
    return Status::OK();
  }
  return visit_scalar(t.type, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(t.data);
    switch (kind) {
      case ReduceKind::SumWrap: {
        auto* s = static_cast<uint64_t*>(state);  // int64 sums wrap like numpy: add as unsigned
        if constexpr (std::is_unsigned_v<T> || std::is_same_v<T, bool>) {
          for_each_pos(x, t, [&](int64_t o, T v) { s[o] += static_cast<uint64_t>(v); });
        } else if constexpr (std::is_integral_v<T>) {
          for_each_pos(x, t, [&](int64_t o, T v) { s[o] += static_cast<uint64_t>(static_cast<int64_t>(v)); });
        }
        break;
      }
      case ReduceKind::CountNonzero: {
        auto* s = static_cast<int64_t*>(state);
        for_each_pos(x, t, [&](int64_t o, T v) { s[o] += v != T(0) ? 1 : 0; });
        break;
      }
      case ReduceKind::Min: {
        auto* s = static_cast<T*>(state);
        for_each_pos(x, t, [&](int64_t o, T v) { s[o] = nan_min(s[o], v); });
        break;
      }
      case ReduceKind::Max: {
        auto* s = static_cast<T*>(state);
        for_each_pos(x, t, [&](int64_t o, T v) { s[o] = nan_max(s[o], v); });
        break;
      }
      default: break;
    }
  });
}

}  // namespace strata::backend::cpu
