// Distances between the rows of a numeric Zarr array (strata/genomics/row_distance.hpp): bands
// of rows read within the budget, block pairs of a fixed 64-row grid on the pass engine, Gram
// products (gemm) or direct row-pair kernels on the backend.
#include "strata/genomics/row_distance.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "strata/backend/backend.hpp"
#include "strata/core/buffer.hpp"
#include "strata/core/job.hpp"
#include "strata/core/pass_engine.hpp"
#include "strata/io/remote.hpp"
#include "strata/io/store.hpp"

namespace strata::genomics {
namespace {

using backend::Layout;
using backend::MatrixView;
using backend::RowReduce;
using backend::Trans;
using clock_type = std::chrono::steady_clock;

constexpr int64_t kBlock = kRowDistanceBlock;
// A Gram-form squared distance at most this fraction of the norms it came from is recomputed
// directly: below it the subtraction would cost more than 1e-9 of relative accuracy.
constexpr double kCancellation = 1e-3;

bool is_gram_metric(DistanceMetric m) {
  return m == DistanceMetric::Euclidean || m == DistanceMetric::SqEuclidean || m == DistanceMetric::Cosine ||
         m == DistanceMetric::Correlation;
}

MatrixView<const double> rows_view(const double* p, int64_t rows, int64_t d) {
  return {p, rows, d, std::max<int64_t>(d, 1), Layout::RowMajor};
}

// A band of rows as doubles, with what the Gram metrics need.
struct Panel {
  int64_t row0 = 0, rows = 0;
  std::vector<double> x;                // rows × d (correlation: each row minus its mean)
  std::vector<double> x0, x0sq, mask;   // NaN → 0, squares, observed flags (Gram metrics, when NaN)
  std::vector<double> norm2;            // Σx² of each row (meaningful for rows without NaN)
  std::vector<uint8_t> block_nan;       // per 64-row block: any NaN
  int64_t blocks() const { return (rows + kBlock - 1) / kBlock; }
  int64_t block_rows(int64_t b) const { return std::min(kBlock, rows - b * kBlock); }
};

Status load_panel(const Context& ctx, const RowMatrix& array, const DistanceSpec& spec, int64_t row0,
                  int64_t rows, Panel& p) {
  const backend::Backend& be = backend::of(ctx);
  const int64_t d = array.cols;
  const ScalarType type = array.dtype.type;
  p.row0 = row0;
  p.rows = rows;
  p.x.resize(static_cast<size_t>(rows * d));
  std::vector<uint8_t> raw;
  for (int64_t r = 0; r < rows; r += kBlock) {
    const int64_t g = std::min(kBlock, rows - r);
    double* dst = p.x.data() + r * d;
    if (type == ScalarType::Float64) {
      STRATA_RETURN_NOT_OK(array.read(row0 + r, g, dst, &ctx.pool()));
    } else {
      raw.resize(static_cast<size_t>(g * d * array.dtype.itemsize()));
      STRATA_RETURN_NOT_OK(array.read(row0 + r, g, raw.data(), &ctx.pool()));
      STRATA_RETURN_NOT_OK(be.ew_cast(type, ScalarType::Float64, raw.data(), dst, g * d));
    }
  }
  const bool gram = is_gram_metric(spec.metric);
  p.norm2.assign(static_cast<size_t>(rows), 0.0);
  p.block_nan.assign(static_cast<size_t>(p.blocks()), 0);
  bool any_nan = false;
  for (int64_t r = 0; r < rows; ++r) {
    double* x = p.x.data() + r * d;
    bool nan = false;
    // NaN is a missing value; an infinity has no distance to anything (it gave rows of inf/nan).
    for (int64_t k = 0; k < d; ++k)
      if (std::isinf(x[k]))
        return Status::InvalidData(array.description, ": row ", row0 + r, ", column ", k, " is ",
                                   x[k] > 0 ? "inf" : "-inf", " (values must be finite; NaN marks a missing value)");
    if (spec.metric == DistanceMetric::Correlation) {
      double sum = 0.0;
      int64_t n = 0;
      for (int64_t k = 0; k < d; ++k)
        if (!std::isnan(x[k])) sum += x[k], ++n;
      const double mean = n ? sum / static_cast<double>(n) : 0.0;
      for (int64_t k = 0; k < d; ++k) x[k] -= mean;
    }
    double s = 0.0;
    for (int64_t k = 0; k < d; ++k) {
      nan |= std::isnan(x[k]);
      s += x[k] * x[k];
    }

    p.norm2[static_cast<size_t>(r)] = s;
    if (nan) p.block_nan[static_cast<size_t>(r / kBlock)] = 1, any_nan = true;
  }
  p.x0.clear(), p.x0sq.clear(), p.mask.clear();
  if (gram && any_nan) {
    p.x0.resize(p.x.size()), p.x0sq.resize(p.x.size()), p.mask.resize(p.x.size());
    for (size_t i = 0; i < p.x.size(); ++i) {
      const bool obs = !std::isnan(p.x[i]);
      p.x0[i] = obs ? p.x[i] : 0.0;
      p.x0sq[i] = p.x0[i] * p.x0[i];
      p.mask[i] = obs ? 1.0 : 0.0;
    }
  }
  return Status::OK();
}

// Pearson's r distance of two rows over their common coordinates, two passes (the fallback
// where the moment form cancels).
double correlation_direct(const double* x, const double* y, int64_t d) {
  double sx = 0, sy = 0;
  int64_t n = 0;
  for (int64_t k = 0; k < d; ++k)
    if (!std::isnan(x[k]) && !std::isnan(y[k])) sx += x[k], sy += y[k], ++n;
  if (n == 0) return std::nan("");
  const double mx = sx / static_cast<double>(n), my = sy / static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (int64_t k = 0; k < d; ++k)
    if (!std::isnan(x[k]) && !std::isnan(y[k])) {
      const double a = x[k] - mx, b = y[k] - my;
      sxy += a * b, sxx += a * a, syy += b * b;
    }
  return 1.0 - sxy / std::sqrt(sxx * syy);
}

double clamp_unit(double v) { return std::isnan(v) ? v : std::clamp(v, 0.0, 2.0); }

// Everything one block pair needs: the panels, the block indices inside them, the output.
struct BlockPair {
  const Panel* a;
  int64_t ab;  // block of a
  const Panel* b;
  int64_t bb;  // block of b
};

class BlockPairKernel {
 public:
  BlockPairKernel(const backend::Backend& be, const DistanceSpec& spec, int64_t d) : be_(be), spec_(spec), d_(d) {}

  // Distances of the pair's rows into out[i·ldo + j].
  Status run(const BlockPair& bp, double* out, int64_t ldo) const {
    const Panel& A = *bp.a;
    const Panel& B = *bp.b;
    const int64_t ra = A.block_rows(bp.ab), rb = B.block_rows(bp.bb);
    const int64_t a0 = bp.ab * kBlock, b0 = bp.bb * kBlock;
    const bool nan = A.block_nan[static_cast<size_t>(bp.ab)] || B.block_nan[static_cast<size_t>(bp.bb)];
    const double* xa = A.x.data() + a0 * d_;
    const double* xb = B.x.data() + b0 * d_;
    const MatrixView<double> o{out, ra, rb, ldo, Layout::RowMajor};
    if (!is_gram_metric(spec_.metric)) {
      STRATA_RETURN_NOT_OK(direct(xa, ra, xb, rb, nan, out, ldo));
    } else if (!nan) {
      STRATA_RETURN_NOT_OK(be_.gemm(Trans::No, Trans::Yes, 1.0, rows_view(xa, ra, d_), rows_view(xb, rb, d_), 0.0, o));
      for (int64_t i = 0; i < ra; ++i)
        for (int64_t j = 0; j < rb; ++j) {
          double& v = out[i * ldo + j];
          const double na = A.norm2[static_cast<size_t>(a0 + i)], nb = B.norm2[static_cast<size_t>(b0 + j)];
          if (spec_.metric == DistanceMetric::Cosine || spec_.metric == DistanceMetric::Correlation) {
            v = clamp_unit(1.0 - v / std::sqrt(na * nb));
          } else {
            double d2 = na + nb - 2.0 * v;
            if (d2 <= kCancellation * (na + nb)) d2 = sq_direct(xa + i * d_, xb + j * d_);
            v = finish_sq(std::max(d2, 0.0));
          }
        }
    } else {
      STRATA_RETURN_NOT_OK(gram_with_missing(A, a0, ra, B, b0, rb, out, ldo));
    }
    // The diagonal of the whole matrix is 0 (a row to itself), as scipy's squareform.
    if (A.row0 + a0 == B.row0 + b0)
      for (int64_t i = 0; i < std::min(ra, rb); ++i) out[i * ldo + i] = 0.0;
    return Status::OK();
  }

 private:
  double finish_sq(double d2) const { return spec_.metric == DistanceMetric::Euclidean ? std::sqrt(d2) : d2; }

  double sq_direct(const double* x, const double* y) const {
    double v = 0.0;
    int64_t n = 0;
    (void)be_.row_pair_reduce(RowReduce::SqEuclidean, 0.0, rows_view(x, 1, d_), rows_view(y, 1, d_),
                              {&v, 1, 1, 1, Layout::RowMajor}, &n);
    return n == 0 ? std::nan("") : v;
  }

  Status direct(const double* xa, int64_t ra, const double* xb, int64_t rb, bool nan, double* out, int64_t ldo) const {
    RowReduce op = RowReduce::Cityblock;
    switch (spec_.metric) {
      case DistanceMetric::Chebyshev: op = RowReduce::Chebyshev; break;
      case DistanceMetric::Minkowski: op = RowReduce::Minkowski; break;
      case DistanceMetric::Hamming: op = RowReduce::Mismatch; break;
      default: break;
    }
    // A block-sized tile (the band's rows are as long as the whole matrix).
    std::vector<double> tile(static_cast<size_t>(ra * rb));
    std::vector<int64_t> observed(nan ? tile.size() : 0);
    STRATA_RETURN_NOT_OK(be_.row_pair_reduce(op, spec_.p, rows_view(xa, ra, d_), rows_view(xb, rb, d_),
                                             {tile.data(), ra, rb, rb, Layout::RowMajor},
                                             nan ? observed.data() : nullptr));
    for (int64_t i = 0; i < ra; ++i)
      for (int64_t j = 0; j < rb; ++j) {
        double v = tile[static_cast<size_t>(i * rb + j)];
        const int64_t n = nan ? observed[static_cast<size_t>(i * rb + j)] : d_;
        if (n == 0) {
          v = std::nan("");
        } else if (op == RowReduce::Minkowski) {
          v = std::pow(v, 1.0 / spec_.p);
        } else if (op == RowReduce::Mismatch) {
          v /= static_cast<double>(n);
        }
        out[i * ldo + j] = v;
      }
    return Status::OK();
  }

  // Gram products over the common coordinates: S = X0·Y0ᵀ, Qa = X0²·Myᵀ, Qb = Mx·Y0²ᵀ, and for
  // correlation also n = Mx·Myᵀ, Sa = X0·Myᵀ, Sb = Mx·Y0ᵀ.
  Status gram_with_missing(const Panel& A, int64_t a0, int64_t ra, const Panel& B, int64_t b0, int64_t rb,
                           double* out, int64_t ldo) const {
    const size_t tile = static_cast<size_t>(ra * rb);
    std::vector<double> s(tile), qa(tile), qb(tile), cnt, sa, sb;
    auto prod = [&](const double* x, const double* y, std::vector<double>& c) {
      return be_.gemm(Trans::No, Trans::Yes, 1.0, rows_view(x, ra, d_), rows_view(y, rb, d_), 0.0,
                      {c.data(), ra, rb, rb, Layout::RowMajor});
    };
    // A panel without NaN keeps no x0/x0²/mask arrays: its x is x0, the squares and an
    // all-ones mask are made here, with the same values the panel's arrays would hold.
    auto x0_of = [&](const Panel& p, int64_t r0) { return (p.x0.empty() ? p.x : p.x0).data() + r0 * d_; };
    auto sq_of = [&](const Panel& p, int64_t r0, int64_t rows, std::vector<double>& tmp) -> const double* {
      if (!p.x0sq.empty()) return p.x0sq.data() + r0 * d_;
      tmp.resize(static_cast<size_t>(rows * d_));
      const double* x = p.x.data() + r0 * d_;
      for (size_t i = 0; i < tmp.size(); ++i) tmp[i] = x[i] * x[i];
      return tmp.data();
    };
    auto mask_of = [&](const Panel& p, int64_t r0, int64_t rows, std::vector<double>& tmp) -> const double* {
      if (!p.mask.empty()) return p.mask.data() + r0 * d_;
      tmp.assign(static_cast<size_t>(rows * d_), 1.0);
      return tmp.data();
    };
    std::vector<double> sq_a, sq_b, ones_a, ones_b;
    const double* xa = x0_of(A, a0);
    const double* xb = x0_of(B, b0);
    const double* qa_sq = sq_of(A, a0, ra, sq_a);
    const double* qb_sq = sq_of(B, b0, rb, sq_b);
    const double* ma = mask_of(A, a0, ra, ones_a);
    const double* mb = mask_of(B, b0, rb, ones_b);
    STRATA_RETURN_NOT_OK(prod(xa, xb, s));
    STRATA_RETURN_NOT_OK(prod(qa_sq, mb, qa));
    STRATA_RETURN_NOT_OK(prod(ma, qb_sq, qb));
    const bool corr = spec_.metric == DistanceMetric::Correlation;
    if (corr) {
      cnt.resize(tile), sa.resize(tile), sb.resize(tile);
      STRATA_RETURN_NOT_OK(prod(ma, mb, cnt));
      STRATA_RETURN_NOT_OK(prod(xa, mb, sa));
      STRATA_RETURN_NOT_OK(prod(ma, xb, sb));
    }
    for (int64_t i = 0; i < ra; ++i)
      for (int64_t j = 0; j < rb; ++j) {
        const size_t t = static_cast<size_t>(i * rb + j);
        const double* x = A.x.data() + (a0 + i) * d_;
        const double* y = B.x.data() + (b0 + j) * d_;
        double& v = out[i * ldo + j];
        if (spec_.metric == DistanceMetric::Cosine) {
          v = clamp_unit(1.0 - s[t] / std::sqrt(qa[t] * qb[t]));
        } else if (corr) {
          const double n = cnt[t];
          const double va = n * qa[t] - sa[t] * sa[t], vb = n * qb[t] - sb[t] * sb[t];
          if (n == 0) {
            v = std::nan("");
          } else if (va <= kCancellation * n * qa[t] || vb <= kCancellation * n * qb[t]) {
            v = clamp_unit(correlation_direct(x, y, d_));
          } else {
            v = clamp_unit(1.0 - (n * s[t] - sa[t] * sb[t]) / std::sqrt(va * vb));
          }
        } else {
          double d2 = qa[t] + qb[t] - 2.0 * s[t];
          if (d2 <= kCancellation * (qa[t] + qb[t])) d2 = sq_direct(x, y);
          v = std::isnan(d2) ? d2 : finish_sq(std::max(d2, 0.0));
        }
      }
    return Status::OK();
  }

  const backend::Backend& be_;
  DistanceSpec spec_;
  int64_t d_;
};

}  // namespace

Result<std::optional<io::ZarrArray>> open_row_matrix(const std::string& path) {
  std::error_code ec;
  if (!io::is_remote_url(path) && !std::filesystem::is_directory(path, ec)) return std::optional<io::ZarrArray>{};
  auto loc = io::open_zarr_location(path);
  if (!loc.ok()) return std::optional<io::ZarrArray>{};
  std::shared_ptr<io::Store> store = loc->store;
  auto info = io::zarr_node_info(store, loc->node_path);
  if (!info.ok() || info->kind != io::NodeKind::Array) return std::optional<io::ZarrArray>{};
  auto array = io::ZarrArray::open(store, loc->node_path);
  if (!array.ok())
    return Status::InvalidData(path, ": distances need a 2-D numeric (integer or float) array with one observation "
                               "per row: ", array.status().message());
  if (array->ndim() == 3) return std::optional<io::ZarrArray>{};  // genotype calls
  const DType t = array->dtype();
  if (array->ndim() != 2)
    return Status::InvalidData(path, ": a ", array->ndim(), "-D array: distances need a 2-D numeric array with one "
                               "observation per row");
  if (!(t.is_integer() || t.is_float()))
    return Status::InvalidData(path, ": dtype ", t.name(), " is not numeric: distances need an integer or float array");
  const int64_t n = array->shape()[0];
  if (n < 2)
    return Status::InvalidData(path, ": ", n, n == 1 ? " row" : " rows",
                               ": distances need at least two rows (there is no pair)");
  return std::optional<io::ZarrArray>{std::move(*array)};
}

RowMatrix RowMatrix::of(const io::ZarrArray& array) {
  RowMatrix m;
  m.rows = array.shape()[0];
  m.cols = array.ndim() > 1 ? array.shape()[1] : 1;
  m.dtype = array.dtype();
  m.description = array.describe();
  m.read = [array, cols = m.cols](int64_t row0, int64_t count, void* dst, ThreadPool* pool) {
    return array.read_region({row0, 0}, {count, cols}, dst, pool);
  };
  return m;
}

Result<RowMatrix> RowMatrix::in_memory(const void* data, int64_t rows, int64_t cols, DType dtype) {
  if (!(dtype.is_integer() || dtype.is_float()) || dtype.type == ScalarType::Float16)
    return Status::InvalidData("dtype ", dtype.name(), " is not numeric: distances need an integer or float array");
  if (rows < 2)
    return Status::InvalidData(rows, rows == 1 ? " row" : " rows", ": distances need at least two rows (there is no pair)");
  if (cols < 0 || (rows * cols > 0 && data == nullptr)) return Status::Invalid("row matrix: no data");
  RowMatrix m;
  m.rows = rows;
  m.cols = cols;
  m.dtype = dtype.native();
  m.description = str_cat("a ", rows, " x ", cols, " ", dtype.name(), " array");
  const int64_t row_bytes = cols * dtype.itemsize();
  m.read = [p = static_cast<const uint8_t*>(data), row_bytes](int64_t row0, int64_t count, void* dst, ThreadPool*) {
    if (count > 0) std::memcpy(dst, p + row0 * row_bytes, static_cast<size_t>(count * row_bytes));
    return Status::OK();
  };
  return m;
}

Result<RowMatrix> RowMatrix::of_bands(int64_t rows, int64_t cols, DType dtype, std::vector<Band> bands) {
  STRATA_ASSIGN_OR_RETURN(RowMatrix m, in_memory(nullptr, rows, 0, dtype));  // the checks and the wording
  m.cols = cols;
  m.description = str_cat("a ", rows, " x ", cols, " ", dtype.name(), " array");
  for (const Band& b : bands)
    if (b.row0 < 0 || b.rows < 0 || b.row0 + b.rows > rows || (b.rows * cols > 0 && b.data == nullptr))
      return Status::Invalid(m.description, ": band of rows [", b.row0, ", ", b.row0 + b.rows, ") is not in the array");
  const int64_t row_bytes = cols * dtype.itemsize();
  m.read = [bands = std::move(bands), row_bytes, what = m.description](int64_t row0, int64_t count, void* dst,
                                                                       ThreadPool*) -> Status {
    for (const Band& b : bands)
      if (row0 >= b.row0 && row0 + count <= b.row0 + b.rows) {
        if (count > 0)
          std::memcpy(dst, static_cast<const uint8_t*>(b.data) + (row0 - b.row0) * row_bytes,
                      static_cast<size_t>(count * row_bytes));
        return Status::OK();
      }
    return Status::Invalid(what, ": rows [", row0, ", ", row0 + count, ") are not in the bands held here");
  };
  return m;
}

Result<std::vector<double>> row_distance_matrix(const Context& ctx, const RowMatrix& matrix, const DistanceSpec& spec,
                                                const RowDistanceOptions& options) {
  const int64_t n = matrix.rows;
  std::vector<double> d(static_cast<size_t>(n * n));
  STRATA_RETURN_NOT_OK(for_each_row_distance_band(ctx, matrix, spec, options, [&](const RowDistanceBand& b) {
    for (int64_t r = 0; r < b.rows; ++r) {
      const int64_t i = b.row0 + r;
      for (int64_t j = 0; j <= i; ++j) {
        const double v = b.values[r * b.ld + j];
        d[static_cast<size_t>(i * n + j)] = v;
        d[static_cast<size_t>(j * n + i)] = v;
      }
    }
    return Status::OK();
  }));
  return d;
}

Status check_row_distance_metric(const RowMatrix& array, const DistanceSpec& spec) {
  if (spec.metric == DistanceMetric::Ibs || spec.metric == DistanceMetric::AlleleSharing)
    return Status::Invalid("--metric ", distance_metric_name(spec), " needs genotype input; ", array.description,
                           " is a numeric array (rows are observations): use euclidean, sqeuclidean, cityblock, "
                           "chebyshev, minkowski:P, cosine, correlation or hamming");
  return Status::OK();
}

namespace {

// Bytes a band row costs while loaded: its doubles (four arrays for a Gram metric on floats).
int64_t panel_row_bytes(const RowMatrix& array, const DistanceSpec& spec) {
  const bool gram_nan_arrays = is_gram_metric(spec.metric) && array.dtype.is_float();
  return array.cols * 8 * (gram_nan_arrays ? 4 : 1);
}

// The block pairs (a, b) of a panel pair with b's rows at or left of a's (the lower triangle),
// each by one kernel call into out (row a·64 of `rows` at out[a·64·ldo], column 0 = cols' first
// row). Every value depends on the two blocks alone: the same bits for any banding.
Status run_panel_pair(const Context& ctx, const BlockPairKernel& kernel, const Panel& rows, const Panel& cols,
                      double* out, int64_t ldo) {
  std::vector<BlockPair> pairs;
  for (int64_t a = 0; a < rows.blocks(); ++a)
    for (int64_t b = 0; b < cols.blocks() && cols.row0 + b * kBlock <= rows.row0 + a * kBlock; ++b)
      pairs.push_back({&rows, a, &cols, b});
  PassOptions po;
  po.label = "row distances";
  return run_blocks(
      ctx, static_cast<int64_t>(pairs.size()), 8 * kBlock * kBlock * 8,
      [&](int64_t t) -> Status {
        const BlockPair& bp = pairs[static_cast<size_t>(t)];
        return kernel.run(bp, out + bp.ab * kBlock * ldo + bp.bb * kBlock, ldo);
      },
      [](int64_t) { return Status::OK(); }, po);
}

}  // namespace

Result<std::vector<double>> row_distance_tile(const Context& ctx, const RowMatrix& array, int64_t row0,
                                              int64_t row_count, int64_t col0, int64_t col_count,
                                              const DistanceSpec& spec) {
  STRATA_RETURN_NOT_OK(check_row_distance_metric(array, spec));
  const int64_t n = array.rows;
  if (row0 < 0 || col0 < 0 || row0 % kBlock || col0 % kBlock || col0 > row0 || row_count < 1 || col_count < 1 ||
      row0 + row_count > n || col0 + col_count > n || (row0 + row_count < n && row_count % kBlock) ||
      (col0 + col_count < n && col_count % kBlock))
    return Status::Invalid(array.description, ": tile rows [", row0, ", ", row0 + row_count, ") x [", col0, ", ",
                           col0 + col_count, ") is not on the ", kBlock, "-row block grid of the lower triangle");
  const int64_t need = (row_count + col_count) * panel_row_bytes(array, spec) + 8 * row_count * col_count;
  if (need > ctx.memory_budget())
    return Status::OutOfMemory(array.description, ": a tile of ", row_count, " x ", col_count, " rows needs ",
                               format_bytes(need), ", more than the memory budget of ",
                               format_bytes(ctx.memory_budget()));
  const BlockPairKernel kernel(backend::of(ctx), spec, array.cols);
  Panel rows_panel, cols_panel;
  STRATA_RETURN_NOT_OK(load_panel(ctx, array, spec, row0, row_count, rows_panel));
  const Panel* cols = &rows_panel;
  if (col0 != row0 || col_count != row_count) {
    STRATA_RETURN_NOT_OK(load_panel(ctx, array, spec, col0, col_count, cols_panel));
    cols = &cols_panel;
  }
  std::vector<double> out(static_cast<size_t>(row_count * col_count), std::nan(""));
  STRATA_RETURN_NOT_OK(run_panel_pair(ctx, kernel, rows_panel, *cols, out.data(), col_count));
  return out;
}

Status for_each_row_distance_band(const Context& ctx, const RowMatrix& array, const DistanceSpec& spec,
                                  const RowDistanceOptions& options,
                                  const std::function<Status(const RowDistanceBand&)>& on_band) {
  STRATA_RETURN_NOT_OK(check_row_distance_metric(array, spec));
  const int64_t n = array.rows, d = array.cols;
  const int64_t row_bytes = panel_row_bytes(array, spec);
  const int64_t padded_n = (n + kBlock - 1) / kBlock * kBlock;
  int64_t band = options.band > 0 ? (options.band + kBlock - 1) / kBlock * kBlock : 0;
  if (band == 0) {
    const int64_t per_row = 2 * row_bytes + 8 * n;
    band = std::min(padded_n, ctx.memory_budget() / 2 / std::max<int64_t>(per_row, 1) / kBlock * kBlock);
  }
  band = std::min(band, padded_n);
  const int64_t need = band * (2 * row_bytes + 8 * n);
  if (band < kBlock || need > ctx.memory_budget())
    return Status::OutOfMemory(array.description, ": ", kBlock, " rows of ", d, " coordinates and their distances need ",
                               format_bytes(kBlock * (2 * row_bytes + 8 * n)), ", more than the memory budget of ",
                               format_bytes(ctx.memory_budget()), " (raise --memory)");

  const auto t0 = clock_type::now();
  const int64_t blocks = padded_n / kBlock;
  ProgressScope progress(ctx, "row distances", blocks * (blocks + 1) / 2, "tiles");
  const BlockPairKernel kernel(backend::of(ctx), spec, d);
  std::vector<double> out(static_cast<size_t>(band * n));
  Panel rows_panel, cols_panel;
  for (int64_t i0 = 0; i0 < n; i0 += band) {
    STRATA_RETURN_NOT_OK(ctx.check_cancelled());
    STRATA_RETURN_NOT_OK(load_panel(ctx, array, spec, i0, std::min(band, n - i0), rows_panel));
    for (int64_t j0 = 0; j0 <= i0; j0 += band) {
      const Panel* cols = &rows_panel;
      if (j0 != i0) {
        STRATA_RETURN_NOT_OK(load_panel(ctx, array, spec, j0, std::min(band, n - j0), cols_panel));
        cols = &cols_panel;
      }
      STRATA_RETURN_NOT_OK(run_panel_pair(ctx, kernel, rows_panel, *cols, out.data() + j0, n));
    }
    STRATA_RETURN_NOT_OK(on_band({i0, rows_panel.rows, out.data(), n}));
  }
  ctx.report().add_phase("row distances", std::chrono::duration<double>(clock_type::now() - t0).count());
  return Status::OK();
}

}  // namespace strata::genomics
