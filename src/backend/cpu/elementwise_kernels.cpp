// The CPU backend's elementwise loops for the array engine. Integer arithmetic wraps (computed
// in the unsigned type), float maximum/minimum propagate NaN, float->integer casts saturate
// (NaN -> 0) so no input can reach undefined behaviour.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backend/cpu/cpu_backend.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

namespace strata::backend::cpu {
namespace {

template <class T> using Unsigned = std::make_unsigned_t<T>;

template <class T> T wrap_add(T x, T y) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<Unsigned<T>>(x) + static_cast<Unsigned<T>>(y));
  } else {
    return x + y;
  }
}
template <class T> T wrap_sub(T x, T y) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    return static_cast<T>(static_cast<Unsigned<T>>(x) - static_cast<Unsigned<T>>(y));
  } else {
    return x - y;
  }
}
template <class T> T wrap_mul(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return x && y;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::conditional_t<(sizeof(T) < sizeof(unsigned)), unsigned, Unsigned<T>>;
    return static_cast<T>(static_cast<U>(static_cast<Unsigned<T>>(x)) * static_cast<U>(static_cast<Unsigned<T>>(y)));
  } else {
    return x * y;
  }
}
template <class T> T int_pow(T base, T exp) {
  if constexpr (std::is_signed_v<T>) {
    if (exp < 0) return base == 1 ? T(1) : base == -1 ? ((exp & 1) ? T(-1) : T(1)) : T(0);
  }
  T r = 1;
  while (exp > 0) {
    if (exp & 1) r = wrap_mul(r, base);
    base = wrap_mul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return r;
}

// x + c on float64 tiles (the common "array + scalar"): one function compiled per ISA level,
// the backend's level picks one (KernelTable::add_scalar_f64). IEEE addition: the same bits on
// every level.
void add_scalar_f64_portable(const double* a, double y, double* o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = a[i] + y;
}
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
__attribute__((target("avx2"))) void add_scalar_f64_avx2(const double* a, double y, double* o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = a[i] + y;
}
__attribute__((target("avx512f"))) void add_scalar_f64_avx512(const double* a, double y, double* o, int64_t n) {
  for (int64_t i = 0; i < n; ++i) o[i] = a[i] + y;
}
#endif

template <class T, class O, class F>
void loop2(const T* a, bool as, const T* b, bool bs, O* o, int64_t n, F f) {
  if (as && bs) {
    const O v = f(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i) o[i] = v;
  } else if (as) {
    const T x = a[0];
    for (int64_t i = 0; i < n; ++i) o[i] = f(x, b[i]);
  } else if (bs) {
    const T y = b[0];
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], y);
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
  }
}

template <class T>
void binary_typed(EwOp op, const T* a, bool as, const T* b, bool bs, void* out, int64_t n,
                  AddScalarF64Fn add_scalar_f64) {
  T* o = static_cast<T*>(out);
  bool* ob = static_cast<bool*>(out);
  switch (op) {
    case EwOp::Add:
      if constexpr (std::is_same_v<T, double>) {
        if (bs && !as) return add_scalar_f64(a, b[0], o, n);
      }
      loop2(a, as, b, bs, o, n, [](T x, T y) { return wrap_add(x, y); });
      return;
    case EwOp::Sub: loop2(a, as, b, bs, o, n, [](T x, T y) { return wrap_sub(x, y); }); return;
    case EwOp::Mul: loop2(a, as, b, bs, o, n, [](T x, T y) { return wrap_mul(x, y); }); return;
    case EwOp::Div:
      if constexpr (std::is_floating_point_v<T>) loop2(a, as, b, bs, o, n, [](T x, T y) { return x / y; });
      return;
    case EwOp::Pow:
      if constexpr (std::is_floating_point_v<T>) {
        loop2(a, as, b, bs, o, n, [](T x, T y) { return static_cast<T>(std::pow(x, y)); });
      } else if constexpr (!std::is_same_v<T, bool>) {
        loop2(a, as, b, bs, o, n, [](T x, T y) { return int_pow(x, y); });
      }
      return;
    case EwOp::Max:
      loop2(a, as, b, bs, o, n, [](T x, T y) {
        if constexpr (std::is_floating_point_v<T>) {
          if (x != x) return x;
          if (y != y) return y;
        }
        return x > y ? x : y;
      });
      return;
    case EwOp::Min:
      loop2(a, as, b, bs, o, n, [](T x, T y) {
        if constexpr (std::is_floating_point_v<T>) {
          if (x != x) return x;
          if (y != y) return y;
        }
        return x < y ? x : y;
      });
      return;
    case EwOp::Eq: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x == y; }); return;
    case EwOp::Ne: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x != y; }); return;
    case EwOp::Lt: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x < y; }); return;
    case EwOp::Le: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x <= y; }); return;
    case EwOp::Gt: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x > y; }); return;
    case EwOp::Ge: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x >= y; }); return;
    case EwOp::And: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x != T(0) && y != T(0); }); return;
    case EwOp::Or: loop2(a, as, b, bs, ob, n, [](T x, T y) { return x != T(0) || y != T(0); }); return;
    default: return;
  }
}

template <class To, class From> To convert(From x) {
  if constexpr (std::is_same_v<To, bool>) {
    return x != From(0);
  } else if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    if (x != x) return To(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    if (static_cast<double>(x) <= lo) return std::numeric_limits<To>::min();
    if (static_cast<double>(x) >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(x);
  } else {
    return static_cast<To>(x);
  }
}

}  // namespace

AddScalarF64Fn add_scalar_f64_for(CpuIsa isa) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  switch (isa) {
    case CpuIsa::Avx2:
    case CpuIsa::Avx2Vnni: return add_scalar_f64_avx2;
    case CpuIsa::Avx512:
    case CpuIsa::Avx512Vnni:
    case CpuIsa::Avx512Amx: return add_scalar_f64_avx512;
    default: break;
  }
#endif
  return add_scalar_f64_portable;
}

Status CpuBackend::ew_binary(EwOp op, ScalarType t, const void* a, bool as, const void* b, bool bs, void* out,
                           int64_t n) const {
  return visit_scalar(t, [&](auto tag) {
    using T = decltype(tag);
    binary_typed<T>(op, static_cast<const T*>(a), as, static_cast<const T*>(b), bs, out, n, k_.add_scalar_f64);
  });
}

Status CpuBackend::ew_unary(EwOp op, ScalarType t, const void* a, void* out, int64_t n) const {
  return visit_scalar(t, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a);
    T* o = static_cast<T*>(out);
    switch (op) {
      case EwOp::Not: {
        bool* ob = static_cast<bool*>(out);
        for (int64_t i = 0; i < n; ++i) ob[i] = !(x[i] != T(0));
        return;
      }
      case EwOp::Neg:
        if constexpr (!std::is_same_v<T, bool>) {
          for (int64_t i = 0; i < n; ++i) o[i] = wrap_sub(T(0), x[i]);
        }
        return;
      case EwOp::Abs:
        if constexpr (std::is_floating_point_v<T>) {
          for (int64_t i = 0; i < n; ++i) o[i] = std::fabs(x[i]);
        } else if constexpr (std::is_signed_v<T>) {
          for (int64_t i = 0; i < n; ++i) o[i] = x[i] < 0 ? wrap_sub(T(0), x[i]) : x[i];
        } else {
          if (o != x) std::memcpy(o, x, sizeof(T) * n);
        }
        return;
      case EwOp::Sqrt:
        if constexpr (std::is_floating_point_v<T>) {
          for (int64_t i = 0; i < n; ++i) o[i] = std::sqrt(x[i]);
        }
        return;
      case EwOp::Exp:
        if constexpr (std::is_floating_point_v<T>) {
          for (int64_t i = 0; i < n; ++i) o[i] = std::exp(x[i]);
        }
        return;
      case EwOp::Log:
        if constexpr (std::is_floating_point_v<T>) {
          for (int64_t i = 0; i < n; ++i) o[i] = std::log(x[i]);
        }
        return;
      default: return;
    }
  });
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
namespace {
__attribute__((target("avx512f"))) void accumulate_f32_avx512(const float* x, double* acc, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm512_storeu_pd(acc + i, _mm512_add_pd(_mm512_loadu_pd(acc + i), _mm512_maskz_cvtps_pd(0xFF, _mm256_loadu_ps(x + i))));
  for (; i < n; ++i) acc[i] += static_cast<double>(x[i]);
}
}  // namespace
#endif

Status CpuBackend::accumulate_f32(const float* x, double* acc, int64_t n) const {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (k_.isa >= CpuIsa::Avx512 && k_.isa != CpuIsa::Neon) {
    accumulate_f32_avx512(x, acc, n);
    return Status::OK();
  }
#endif
  for (int64_t i = 0; i < n; ++i) acc[i] += static_cast<double>(x[i]);
  return Status::OK();
}

Status CpuBackend::ew_cast(ScalarType from, ScalarType to, const void* a, void* out, int64_t n) const {
  Status inner = Status::OK();
  STRATA_RETURN_NOT_OK(visit_scalar(from, [&](auto ftag) {
    using F = decltype(ftag);
    const F* x = static_cast<const F*>(a);
    inner = visit_scalar(to, [&](auto ttag) {
      using T = decltype(ttag);
      T* o = static_cast<T*>(out);
      for (int64_t i = 0; i < n; ++i) o[i] = convert<T>(x[i]);
    });
  }));
  return inner;
}

Status CpuBackend::ew_where(ScalarType t, const void* cond, bool cs, const void* a, bool as, const void* b, bool bs,
                          void* out, int64_t n) const {
  const bool* c = static_cast<const bool*>(cond);
  return visit_scalar(t, [&](auto tag) {
    using T = decltype(tag);
    const T* x = static_cast<const T*>(a);
    const T* y = static_cast<const T*>(b);
    T* o = static_cast<T*>(out);
    for (int64_t i = 0; i < n; ++i) o[i] = c[cs ? 0 : i] ? x[as ? 0 : i] : y[bs ? 0 : i];
  });
}

}  // namespace strata::backend::cpu
