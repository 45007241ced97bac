#pragma once
/// \file
/// strata::backend::Backend: the coarse operations algorithms run on a device, on views that
/// carry their layout, grouped by capability — DenseOps (BLAS/LAPACK), GenotypeOps (the
/// genotype-code kernels), ElementwiseOps and ReduceOps (the array engine's blocks, row-pair
/// metrics, regression products) and RandomOps (random fill). The CPU backend (OpenBLAS/LAPACKE
/// and the vectorized kernels of one CpuIsa level) is the reference; a CUDA backend implements
/// the same interface and passes the same conformance suite (tests/backend/conformance_*_test.cpp).
/// The benchmark data sources of `strata bench` live outside it (strata/backend/bench_source.hpp).
///
/// Algorithms reach the backend of their Context with backend::of(ctx). Operations are
/// coarse (a matrix, a tile of variants, a block of rows), so the virtual call never sits in
/// an inner loop. Every method is const and thread-safe.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto portable, strata::backend::make_cpu_backend(strata::backend::CpuIsa::Portable));
/// strata::ContextOptions o;
/// o.backend_impl = portable;          // every algorithm on this context runs portable kernels
/// const strata::backend::Backend& be = strata::backend::of(ctx);
/// STRATA_RETURN_NOT_OK(be.potrf(strata::backend::Uplo::Upper, a));
/// \endcode

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "strata/core/dtype.hpp"
#include "strata/core/random.hpp"
#include "strata/core/result.hpp"

namespace strata {
class Context;
}

namespace strata::backend {

class BenchDeviceOps;  // strata/backend/bench_source.hpp

/// \brief Element order of a dense view.
enum class Layout : uint8_t { RowMajor, ColMajor };

/// \brief A dense rows × cols matrix at `data`: element (i, j) is data[i·ld + j] (RowMajor) or
/// data[i + j·ld] (ColMajor). Views do not own memory.
template <class T>
struct MatrixView {
  T* data = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  Layout layout = Layout::ColMajor;

  T& operator()(int64_t i, int64_t j) const { return layout == Layout::ColMajor ? data[i + j * ld] : data[i * ld + j]; }
  /// The same elements read as const.
  operator MatrixView<const T>() const { return {data, rows, cols, ld, layout}; }
};

/// \brief A column-major view (ld = rows when 0).
template <class T>
MatrixView<T> col_major(T* data, int64_t rows, int64_t cols, int64_t ld = 0) {
  return {data, rows, cols, ld ? ld : rows, Layout::ColMajor};
}
/// \brief A row-major view (ld = cols when 0).
template <class T>
MatrixView<T> row_major(T* data, int64_t rows, int64_t cols, int64_t ld = 0) {
  return {data, rows, cols, ld ? ld : cols, Layout::RowMajor};
}

/// \brief Packed 2-bit genotype rows (strata/io/genotype.hpp's order: 4 codes per byte, low
/// bits first, 3 = missing), `stride` bytes apart, `samples` codes each.
struct CodesView {
  const uint8_t* data = nullptr;
  int64_t rows = 0, samples = 0, stride = 0;
  const uint8_t* row(int64_t i) const { return data + i * stride; }
};

/// \brief Variants per run of the GRM's sparse float64 step (Backend::gram_sparse_f64).
inline constexpr int64_t kSparseRun = 128;

/// \brief Row lists of Backend::gram_sparse_f64. Row i's list is entries[i·stride + t] (variant
/// indices of the run, < kSparseRun): first the ones[i] = counts[3i] variants it has c = 1 at,
/// then the counts[3i + 1] with c = 2, then the counts[3i + 2] with the coefficient coef[k]
/// (its missing calls); at most kSparseRun in all (the last row's slot holds kSparseRun bytes).
struct SparseRowLists {
  const uint8_t* entries = nullptr;
  const uint8_t* counts = nullptr;
  int64_t stride = 0;
  const double* coef = nullptr;
};

/// \brief Elementwise operations of the array engine's fused programs (strata/array).
enum class EwOp : uint8_t {
  Add, Sub, Mul, Div, Pow, Max, Min,   // binary arithmetic, same-type operands and result
  Eq, Ne, Lt, Le, Gt, Ge,              // comparisons: same-type operands, bool result
  And, Or,                             // bool operands and result
  Not, Neg, Abs, Sqrt, Exp, Log,       // unary
  Where,                               // (bool, T, T) -> T
  Cast,                                // a -> type
};

/// \brief Per-output states of the reduction tile kernel. The layout of a state is part of
/// the contract (the array engine merges and finalizes them):
/// - SumF64: double (values converted to double; float sums and every mean);
/// - SumWrap: uint64 (integer and bool sums, wrapping modulo 2⁶⁴ like numpy's int64);
/// - Moments: backend::Moments (count, mean, M2), merged with merge_moments();
/// - Min, Max: the input type, NaN propagating;
/// - CountNonzero: int64.
enum class ReduceKind : uint8_t { SumF64, SumWrap, Moments, Min, Max, CountNonzero };

/// \brief (count, mean, sum of squared deviations) of a run of values.
struct Moments {
  double n = 0, mean = 0, m2 = 0;
};
/// \brief a ← the moments of a's and b's values together (Chan et al.'s pairwise formula).
inline void merge_moments(Moments& a, const Moments& b) {
  if (b.n == 0) return;
  if (a.n == 0) {
    a = b;
    return;
  }
  const double n = a.n + b.n, d = b.mean - a.mean;
  a.mean += d * (b.n / n);
  a.m2 += b.m2 + d * d * (a.n * b.n / n);
  a.n = n;
}

/// \brief Min and max as the Min/Max states combine: a NaN on either side wins.
template <class T>
T nan_min(T s, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (s != s) return s;
    if (x != x) return x;
  }
  return x < s ? x : s;
}
template <class T>
T nan_max(T s, T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (s != s) return s;
    if (x != x) return x;
  }
  return x > s ? x : s;
}

/// \brief A rows × cols tile of values (dense, C order, `type`) whose element (r, c) goes to
/// state[base + r·row_stride + c·col_stride].
struct ReduceTile {
  const void* data = nullptr;
  ScalarType type = ScalarType::Float64;
  int64_t rows = 0, cols = 0, base = 0, row_stride = 0, col_stride = 0;
};
/// \brief Bit planes of genotype codes for the pair-count kernels: for every sample, per word of
/// 64 variants (variant 64w + k at bit k), three planes — het (code 1), hom-alt (code 2) and
/// observed (code ≠ 3). Samples sit in groups of kCodePlaneLanes: plane p, word w of sample s is
/// data[((⌊s/8⌋·words + w)·3 + p)·8 + s mod 8]. `samples` is rounded up to 8 in the buffer;
/// padding samples and variants are never observed (all planes 0), so they count nothing.
inline constexpr int64_t kCodePlaneLanes = 8;
inline constexpr int64_t kCodePlaneCount = 3;
struct CodePlanesView {
  const uint64_t* data = nullptr;
  int64_t samples = 0, words = 0;
  /// uint64 words of a buffer holding `samples` samples × `words` words.
  static int64_t buffer_words(int64_t samples, int64_t words) {
    return (samples + kCodePlaneLanes - 1) / kCodePlaneLanes * kCodePlaneLanes * words * kCodePlaneCount;
  }
};

/// \brief The joint counts pair_code_counts() returns for a pair (a, b), over the variants of
/// the planes: "Obs" = observed, "Het" = code 1, "Alt" = code 2, the first name a's, the second
/// b's (kPairHetAlt = variants where a is het and b hom-alt). With them the whole 3 × 3 table of
/// jointly observed codes follows (genomics/pair_counts.hpp).
enum PairCountField : int {
  kPairBoth = 0,  ///< both observed
  kPairHetHet,
  kPairHetAlt,
  kPairAltHet,
  kPairAltAlt,
  kPairHetObs,
  kPairAltObs,
  kPairObsHet,
  kPairObsAlt,
};
inline constexpr int kPairCountFields = 9;

/// \brief The five counts pair_king_counts() returns for a pair (a, b): KING-robust kinship
/// needs only these (HetObs − HetHet = a het and b homozygous; Ibs0 = opposite homozygotes).
enum KingCountField : int { kKingBoth = 0, kKingHetHet, kKingHetObs, kKingObsHet, kKingIbs0 };
inline constexpr int kKingCountFields = 5;

/// \brief Coordinate-wise reductions of row pairs (the float distance metrics' direct forms):
/// with d = a(i, k) − b(j, k) over the coordinates k where neither value is NaN,
/// Cityblock Σ|d|, SqEuclidean Σd², Chebyshev max|d| (0 with none), Minkowski Σ|d|ᵖ,
/// Mismatch Σ[a ≠ b].
enum class RowReduce : uint8_t { Cityblock, SqEuclidean, Chebyshev, Minkowski, Mismatch };

enum class Trans : uint8_t { No, Yes };
enum class Uplo : uint8_t { Lower, Upper };
enum class Side : uint8_t { Left, Right };

/// \brief Dense products (BLAS) and factorizations (LAPACK) on float64/float32 views.
/// Factorizations return InvalidData when the input does not admit one.
class DenseOps {
 public:
  virtual ~DenseOps() = default;
  /// c = alpha·op(a)·op(b) + beta·c.
  virtual Status gemm(Trans ta, Trans tb, double alpha, MatrixView<const double> a, MatrixView<const double> b,
                      double beta, MatrixView<double> c) const = 0;
  virtual Status gemm(Trans ta, Trans tb, float alpha, MatrixView<const float> a, MatrixView<const float> b,
                      float beta, MatrixView<float> c) const = 0;
  /// c = alpha·op(a)·op(a)ᵀ + beta·c on the `uplo` triangle of c (the other is left alone):
  /// op(a) = a (No) or aᵀ (Yes).
  virtual Status syrk(Uplo uplo, Trans ta, double alpha, MatrixView<const double> a, double beta,
                      MatrixView<double> c) const = 0;
  /// Solves op(a)·x = alpha·b (Left) or x·op(a) = alpha·b (Right) in place of b, with a
  /// triangular (`uplo`, non-unit diagonal).
  virtual Status trsm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                      MatrixView<double> b) const = 0;
  /// b = alpha·op(a)·b (Left) or alpha·b·op(a) (Right) in place, a triangular (`uplo`, non-unit
  /// diagonal; the other triangle is never read).
  virtual Status trmm(Side side, Uplo uplo, Trans ta, double alpha, MatrixView<const double> a,
                      MatrixView<double> b) const = 0;
  /// Cholesky in place: a = uᵀu (Upper) or l·lᵀ (Lower) on that triangle; the other triangle
  /// is left alone. InvalidData when a is not positive definite.
  virtual Status potrf(Uplo uplo, MatrixView<double> a) const = 0;
  /// Thin QR of an m × n matrix, m ≥ n: q (m × n, may alias a) and upper-triangular r (n × n,
  /// zeros below the diagonal) with a = q·r.
  virtual Status qr(MatrixView<const double> a, MatrixView<double> q, MatrixView<double> r) const = 0;
  /// Symmetric eigensolver: the n eigenvalues of a (its lower triangle is read) in ascending
  /// order in w; with `vectors`, a is overwritten by the orthonormal eigenvectors (column k
  /// for w[k]), else its contents are unspecified afterwards.
  virtual Status syev(MatrixView<double> a, double* w, bool vectors) const = 0;
  /// The `count` largest eigenpairs of the symmetric n × n a (its lower triangle is read):
  /// eigenvalues ascending in w[0, count), the matching orthonormal eigenvectors in the columns
  /// of z (n × count). a's contents are unspecified afterwards.
  virtual Status syev_top(MatrixView<double> a, int64_t count, double* w, MatrixView<double> z) const = 0;
  /// Reciprocal condition number of the triangular a (`uplo`) in the 1-norm, estimated as
  /// LAPACK's trcon does: in [0, 1], 0 for a singular triangle.
  virtual Result<double> trcon(Uplo uplo, MatrixView<const double> a) const = 0;
  /// Thin SVD of an m × n matrix, k = min(m, n): u (m × k), s (k, descending), vt (k × n).
  /// a is left unchanged.
  virtual Status svd(MatrixView<const double> a, MatrixView<double> u, double* s, MatrixView<double> vt) const = 0;
};

/// \brief Kernels on packed 2-bit genotype codes: decoding and counting, the Gram operator's
/// tiles, the GRM's panels and the pair counts of distances and kinship.
class GenotypeOps {
 public:
  virtual ~GenotypeOps() = default;
  /// out(i, j) = luts[4i + code(i, j)] for every row and sample (out: rows × samples, any
  /// layout). Exact (a table lookup).
  virtual Status decode(CodesView codes, const float* luts, MatrixView<float> out) const = 0;
  virtual Status decode(CodesView codes, const double* luts, MatrixView<double> out) const = 0;
  /// counts[4i + c] = number of samples of row i with code c. Exact.
  virtual Status count_codes(CodesView codes, int64_t* counts) const = 0;

  /// Tile kernels of the genotype Gram operator (a(i, n) = luts[4i + code(i, n)]). Rows are
  /// read 16 (float) or 32 (int16) codes at a time: codes.samples is rounded up to that, the
  /// buffer needs 64 bytes of slack past the last row, and dense entries for samples past the
  /// real ones must be zero. Widths w are multiples of 8 (codes_times: of 4).
  ///
  /// y (codes.rows × w, row-major) += A·Q with qt = Qᵀ (w × ≥samples, row stride ldq); column
  /// c of y does not depend on w.
  virtual Status codes_times(CodesView codes, const float* luts, const float* qt, int64_t ldq, int64_t w,
                             float* y) const = 0;
  /// zt[c·ldz + n] += Σ_i a(i, n)·y[i·w + c] for samples n in [n0, n0 + len) (the columns
  /// of (AᵀY)ᵀ), y row-major rows × w; n0 and len multiples of 16.
  virtual Status codes_t_times(CodesView codes, const float* luts, int64_t n0, int64_t len, const float* y, int64_t w,
                               float* zt, int64_t ldz) const = 0;
  /// Exact integer products of raw codes (0..3): p (rows × w, row-major) += codes·Q,
  /// |qt| ≤ 32767. `packed` is null or what pack_times_i16 made of this qt (the backend's own
  /// layout of it, made once for the many tiles of a pass).
  virtual Status codes_times_i16(CodesView codes, const int16_t* qt, int64_t ldq, int64_t w, int64_t* p,
                                 const uint8_t* packed) const = 0;
  /// qt (w × n32, row stride ldq) in the layout this backend's codes_times_i16 reads fastest;
  /// empty when it reads qt as it is. n32: codes.samples rounded up to 32.
  virtual Result<std::vector<uint8_t>> pack_times_i16(const int16_t* qt, int64_t ldq, int64_t w, int64_t n32) const = 0;
  /// zt[c·ldz + n] += Σ_i code(i, n)·y(i, c) for n < codes.samples (rounded up to 16), y(i, c) =
  /// wpairs[(i/2)·2w + 2c + i%2] (row pairs interleaved). Odd rows: the last pair's second
  /// entries are zero and the row after the last is readable. rows ≤ 10,000 (int32 sums).
  /// `packed` is null or what pack_t_times_i16 made of this wpairs (once for a group's slices).
  virtual Status codes_t_times_i16(CodesView codes, const int16_t* wpairs, int64_t w, int32_t* zt, int64_t ldz,
                                   const uint8_t* packed) const = 0;
  /// wpairs (rows of the group) in the layout this backend's codes_t_times_i16 reads fastest;
  /// empty when it reads them as they are.
  virtual Result<std::vector<uint8_t>> pack_t_times_i16(const int16_t* wpairs, int64_t rows, int64_t w) const = 0;
  /// Whether the int16 kernels run at least as fast as float32 ones (picks PCA's default
  /// arithmetic).
  virtual bool fast_int16() const = 0;
  /// acc[i] += (double)x[i] for i < n: float32 partial sums joining float64 accumulators (the
  /// GRM's runs). Exact conversion and one rounded add: the same bits on every backend.
  virtual Status accumulate_f32(const float* x, double* acc, int64_t n) const = 0;
  /// The GRM's tile step: acc[i·ldacc + j] += (double)(Σ_{k<kk} a(k, i)·b(k, j)) for i < rows,
  /// j < cols, where each sum is one float32 fused multiply-add per k in k order (so the same
  /// bits on every backend). a and b are group-packed panels: samples in groups of 32, group g
  /// a kk × 32 row-major block at offset g·kk·32 (a, b point at the tile's first group; entries
  /// of samples past the real ones must be zero). mode 0: every entry; 1: only j ≤ i; 2: only
  /// j < i (a diagonal tile; the other entries are left as they were).
  virtual Status gram_panels_f32(const float* a, const float* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                                 double* acc, int64_t ldacc) const = 0;
  /// gram_panels_f32 in float64: acc[i·ldacc + j] += Σ_{k<kk} a(k, i)·b(k, j), each sum one
  /// float64 fused multiply-add per k in k order, then one rounded add (the same bits on every
  /// backend with an FMA unit); panels of doubles, packed likewise (groups of 32 samples).
  virtual Status gram_panels_f64(const double* a, const double* b, int64_t kk, int64_t rows, int64_t cols, int mode,
                                 double* acc, int64_t ldacc) const = 0;
  /// The float64 GRM's sparse tile step (codes, not dosages): acc[i·ldacc + j] += s(i, j) for
  /// i < rows, j < cols (mode 0; mode 1: only j ≤ i). s(i, j) starts at u[j] and takes row i's
  /// list in order: s + y(k, j) for its c = 1 entries, s + 2·y(k, j) for c = 2 and
  /// fma(coef[k], y(k, j), s) for the rest, each one rounded float64 step (the products are
  /// exact or fused): the same bits on every backend. y is a group-packed panel of kk ≤
  /// kSparseRun variants, as gram_panels_f64 reads b (pointing at the tile's first group;
  /// samples past the real ones zero); u holds cols rounded up to 32 values.
  virtual Status gram_sparse_f64(const SparseRowLists& rows_lists, const double* y, const double* u, int64_t kk,
                                 int64_t rows, int64_t cols, int mode, double* acc, int64_t ldacc) const = 0;
  /// The exact-integer GRM product: acc[i·ldacc + j] += scale · Σ_v c_jv · l_iv (exact integer
  /// sums, so the same bits on every backend) for i < rows, j < cols, 4·quads ≤ 65,536 variants.
  /// `codes` (u8 per sample and variant, columns) and `limbs` (three s8 limbs, l = l⁰ + 128 l¹ +
  /// 16384 l², per sample and variant, rows) are panels of 32-sample groups as pack_u8s8()
  /// writes them, pointing at the tile's first group. mode 0: every entry; 1: only j ≤ i.
  /// Codes are at most 128 (the GRM writes g·2^s ≤ 2·64; tests keep to that range).
  virtual Status gram_panels_u8s8(const uint8_t* codes, const int8_t* limbs, int64_t quads, int64_t rows,
                                  int64_t cols, int mode, double scale, double* acc, int64_t ldacc) const = 0;
  /// Packs quads × 4 rows of 2-bit codes (row 4q + t: rows[4q + t], samples [0, n)) into the
  /// panels of gram_panels_u8s8 (samples past n zero, n rounded up to 32) through one 80-byte
  /// table per quad: [0, 16) the code value and [16 + 16l, 32 + 16l) limb l by 4t + code, and
  /// bytes 64 + 4l + t the limbs of a weight A_t; rsum[j] = Σ code value · A (exact).
  virtual Status pack_u8s8(const uint8_t* const* rows, const uint8_t* tables, int64_t quads, int64_t n,
                           uint8_t* codes, int8_t* limbs, int64_t* rsum) const = 0;
  /// Whether gram_panels_u8s8 runs a vector kernel (else it is the slow reference).
  virtual bool fast_u8s8() const = 0;
  /// Bit planes of a block of packed code rows: rows ≤ 64 variants become word `word` of every
  /// sample's planes (planes.words words per sample; all kCodePlaneCount planes of that word
  /// are written, for codes.samples rounded up to 8). Exact.
  virtual Status code_planes(CodesView codes, uint64_t* planes, int64_t words, int64_t word) const = 0;
  /// counts[(f·rows + i)·ldc + j] += field f (PairCountField) of the pair (row0 + i, col0 + j)
  /// over every word of `planes`, for i < rows and j < ldc = cols rounded up to 8 (columns past
  /// the samples count 0). col0: a multiple of 8. Exact integer counts: the same bits on every
  /// backend. Invalid when the tile does not fit the planes.
  virtual Status pair_code_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                  int64_t* counts) const = 0;
  /// As pair_code_counts() with the five KingCountField counts (about half the work). On a
  /// diagonal tile (row0 = col0) only pairs with j ≤ i are required: the others may be left
  /// as they were.
  virtual Status pair_king_counts(CodePlanesView planes, int64_t row0, int64_t rows, int64_t col0, int64_t cols,
                                  int64_t* counts) const = 0;
};

/// \brief The array engine's elementwise block kernels (strata/array's fused programs).
class ElementwiseOps {
 public:
  virtual ~ElementwiseOps() = default;
  /// out[i] = op(a[i], b[i]) for i < n, typed by t (comparisons write bool); a `scalar`
  /// operand is one value for all n. Integers wrap; float max/min propagate NaN.
  virtual Status ew_binary(EwOp op, ScalarType t, const void* a, bool a_scalar, const void* b, bool b_scalar,
                           void* out, int64_t n) const = 0;
  /// out[i] = op(a[i]) (Not, Neg, Abs, Sqrt, Exp, Log).
  virtual Status ew_unary(EwOp op, ScalarType t, const void* a, void* out, int64_t n) const = 0;
  /// out[i] = a[i] converted; float → integer saturates, NaN → 0.
  virtual Status ew_cast(ScalarType from, ScalarType to, const void* a, void* out, int64_t n) const = 0;
  /// out[i] = cond[i] ? a[i] : b[i].
  virtual Status ew_where(ScalarType t, const void* cond, bool c_scalar, const void* a, bool a_scalar, const void* b,
                          bool b_scalar, void* out, int64_t n) const = 0;
};

/// \brief Reductions: the array engine's reduction tiles, row-pair metrics and the weighted Gram
/// products of regressions. Every sum has an order fixed by its contract, so every
/// implementation gives the same bits.
class ReduceOps {
 public:
  virtual ~ReduceOps() = default;
  /// Accumulates a tile into per-output states (see ReduceKind). The association of float
  /// sums is fixed by the tile: the same bits on every backend for the same tiles.
  virtual Status reduce_tile(ReduceKind kind, const ReduceTile& tile, void* state) const = 0;

  /// out(i, j) = the `op` reduction of row i of a and row j of b (both row-major, d = a.cols =
  /// b.cols coordinates; out row-major a.rows × b.rows); with `observed`, observed[i·out.ld + j]
  /// = the coordinates where neither is NaN. Sums run in 8 partial sums (coordinate k into
  /// k mod 8, in order) added in a fixed tree, so every implementation gives the same bits.
  /// Invalid for shapes or layouts that do not fit.
  virtual Status row_pair_reduce(RowReduce op, double p, MatrixView<const double> a, MatrixView<const double> b,
                                 MatrixView<double> out, int64_t* observed) const = 0;

  /// The products of one iteratively reweighted least-squares step on predictor-major data:
  /// x is p × n row-major (row i = predictor i over n observations); h(i, j) = Σ_s w[s]·x(i, s)·
  /// x(j, s) for j ≤ i (the lower triangle of the p × p h; the upper is left alone) and, when
  /// v and g are not null, g[i] = Σ_s v[s]·x(i, s). Each sum runs in 8 partials (observation s
  /// into partial s mod 8, in order; w·x rounded first, then each product, then the add) added
  /// in one fixed tree, so every implementation returns the same bits. Invalid for shapes or
  /// layouts that do not fit.
  virtual Status weighted_gram(MatrixView<const double> x, const double* w, const double* v, MatrixView<double> h,
                               double* g) const = 0;

  /// The weighted Gram of observation-major data: x is n × p row-major (row s = observation s);
  /// h(i, j) += Σ_s (w[s]·x(s, i))·x(s, j) for j ≤ i (the lower triangle of the p × p row-major
  /// h; the upper is left alone). Each element's sum continues from h over s in order (w·x
  /// rounded first, then the product, then the add), so every implementation returns the same
  /// bits. Invalid for shapes or layouts that do not fit.
  virtual Status weighted_gram_rows(MatrixView<const double> x, const double* w, MatrixView<double> h) const = 0;

  /// The linear predictor of predictor-major data: η_s = Σ_i c[i]·x(i, s) over the p = x.rows
  /// predictors (x row-major p × n), summed from 0 in predictor order with each product rounded
  /// before its add; out[s] = η_s, or with `logistic` 1 / (1 + exp(−η_s)) through the backend's
  /// own exp (within ~2 ulp of e^x; arguments below −708 are taken as −708). Every
  /// implementation returns the same bits. Invalid for a column-major x.
  virtual Status linear_predictor(MatrixView<const double> x, const double* c, bool logistic, double* out) const = 0;

  /// The products of one Newton step of a logistic regression (x, h, g as weighted_gram; y the
  /// 0/1 outcomes): π = linear_predictor(x, c, logistic), w = π·(1 − π), r = π − y, then
  /// weighted_gram(x, w, r, h, g) — the same bits as those calls, in one sweep over x.
  virtual Status logistic_gram(MatrixView<const double> x, const double* c, const double* y, MatrixView<double> h,
                               double* g) const = 0;
};

/// \brief Random numbers (strata/core/random.hpp's streams).
class RandomOps {
 public:
  virtual ~RandomOps() = default;
  /// out[k] = element e0 + k·step of strata/core/random.hpp's stream `p` (same bits on every
  /// backend).
  virtual Status random_fill(const random::FillParams& p, int64_t e0, int64_t step, int64_t n, void* out) const = 0;
};

/// \brief What algorithms run on: every capability above. Sizes are taken from the views; a
/// view whose shape does not fit an operation is Invalid. Dense operations accept any mix of
/// layouts. Every operation that can fail returns Status (or Result): a device reports its
/// failures there, never by throwing.
class Backend : public DenseOps, public GenotypeOps, public ElementwiseOps, public ReduceOps, public RandomOps {
 public:
  ~Backend() override = default;
  /// "cpu-avx512", "cpu-portable", … (for reports and test names).
  virtual std::string name() const = 0;
  /// The device's own generators of strata bench's data sources (strata/backend/bench_source.hpp),
  /// or null when they run on the host through this backend's random_fill and gemm.
  virtual const BenchDeviceOps* bench_device_ops() const { return nullptr; }
};

using BackendPtr = std::shared_ptr<const Backend>;

/// \brief Instruction sets of the CPU backend's kernels, lowest first. Each level uses the
/// best kernel of every operation up to it: Avx2 the AVX2 + FMA decoders, float and int16 Gram
/// kernels and random normals; Avx2Vnni the int16 Gram kernels on AVX-VNNI's 256-bit
/// `vpdpwssd` (client CPUs without AVX-512); Avx512 adds the AVX-512 decoders and float Gram
/// kernels (float32 products there); Avx512Vnni adds the VNNI integer Gram kernels; Avx512Amx
/// runs the int16 Gram kernels on AMX tiles. The int16 levels give the same exact sums. Neon,
/// after the x86 levels, is aarch64's (the pair counts on Advanced SIMD, the rest portable);
/// no level of one architecture exists on the other.
enum class CpuIsa : uint8_t { Best, Portable, Avx2, Avx2Vnni, Avx512, Avx512Vnni, Avx512Amx, Neon };
const char* cpu_isa_name(CpuIsa isa);
/// \brief The highest level this CPU runs, capped by STRATA_CPU (strata/core/cpu_pin.hpp):
/// what cpu_backend() and every Context without a backend of its own use.
CpuIsa best_cpu_isa();
/// \brief The highest level this CPU runs, STRATA_CPU aside.
CpuIsa detected_cpu_isa();
/// \brief True when this CPU (and this build) runs `isa` and STRATA_CPU allows it: levels above
/// the pin are unavailable, as on a CPU without them.
bool cpu_isa_available(CpuIsa isa);
/// \brief "avx512-vnni", or "avx2 (STRATA_CPU=avx2; this CPU runs up to avx512-vnni)" when
/// pinned: for --version, reports and logs.
std::string cpu_level_summary();

/// \brief A CPU backend whose kernels are chosen once, here, for `isa`. Unsupported when the
/// CPU lacks it (never a silent fallback: a test asking for AVX-512 must know it got it).
/// The first CPU backend made sets BLAS to one thread for the rest of the process: strata owns
/// parallelism (one level, the Context's workers), so each BLAS call is one worker's work and
/// results never depend on how BLAS would split it.
Result<BackendPtr> make_cpu_backend(CpuIsa isa = CpuIsa::Best);
/// \brief The shared CPU backend at the best level (what a Context without one uses).
const BackendPtr& cpu_backend();

/// \brief Whether this strata was built with the CUDA backend (the module libstrata_cuda.so,
/// opened at the first request for a CUDA device; nothing loads the CUDA runtime before).
bool cuda_backend_built();
/// \brief CUDA devices present: Unsupported naming the cause when the module, the driver or a
/// device is missing ("no CUDA device (cudaGetDeviceCount: …)").
Result<int> cuda_device_count();
/// \brief A backend on CUDA device `device` (its dense products and factorizations, random fill
/// and fused random sums run on the device; operations it does not offload yet run on
/// cpu_backend(), with the same contracts). With `small_dense_on_host`, dense operations below
/// ~10⁸ flops (factorizations of n < 512) stay on the host: they are latency-bound, and PCA's
/// small n × l steps then give the CPU's bits. Unsupported when there is no such device.
Result<BackendPtr> make_cuda_backend(int device = 0, bool small_dense_on_host = true);
/// \brief "cpu (avx512-vnni), cuda (nvcc 13.0.88, architectures 80,90)": the backends this
/// build has (for --version; opens nothing).
std::string backends_built();
/// \brief The backend a `--device` value names: "cpu"; "cuda" (= cuda:0), "cuda:N", "cuda:all"
/// (every device of the machine: random_slice_sum splits its rows across them, every other
/// operation runs on cuda:0 so far); "auto" (cuda:0 when a device is present, else cpu). Invalid for other text; Unsupported (naming `option` and the CUDA error)
/// when CUDA is asked for and cannot run.
Result<BackendPtr> backend_for_device(const std::string& spec, const std::string& option = "--device");
/// \brief Invalid ("must be cpu, cuda, cuda:N (N = 0, 1, …), cuda:all or auto, got '…'") unless
/// `spec` is a spelling backend_for_device takes; opens nothing (the CLI checks --device with it).
Status check_device_spec(const std::string& spec);

/// \brief The backend computations on `ctx` run on: ContextOptions::backend_impl, or
/// cpu_backend() when that is null.
const Backend& of(const Context& ctx);

}  // namespace strata::backend
