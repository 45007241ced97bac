// In-memory and counter-based random RowBlockSources, and the interface's defaults.
#include "strata/linalg/row_blocks.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "strata/backend/bench_source.hpp"
#include "strata/core/random.hpp"
#include "strata/core/shape.hpp"

namespace strata::linalg {

Status RowBlockSource::read_block(int64_t row0, int64_t nrows, float* out) const {
  STRATA_ASSIGN_OR_RETURN(int64_t n, checked_mul(nrows, cols()));
  std::vector<double> tmp(static_cast<size_t>(n));
  STRATA_RETURN_NOT_OK(read_block(row0, nrows, tmp.data()));
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(tmp[static_cast<size_t>(i)]);
  return Status::OK();
}

Result<RowBlockSourcePtr> RowBlockSource::transposed() const {
  return Status::Unsupported(describe(), ": this source cannot be read transposed");
}

namespace {

Status check_range(const RowBlockSource& s, int64_t row0, int64_t nrows) {
  if (row0 < 0 || nrows < 0 || row0 > s.rows() || nrows > s.rows() - row0) {
    return Status::Invalid(s.describe(), ": rows [", row0, ", ", row0 + nrows, ") out of range (",
                           s.rows(), " rows)");
  }
  return Status::OK();
}

// A row-major array, optionally viewed transposed. `owner` keeps owned data alive.
class DenseSource final : public RowBlockSource {
 public:
  DenseSource(std::shared_ptr<const std::vector<double>> owner, const double* data, int64_t rows,
              int64_t cols, int64_t block_rows, bool transposed)
      : owner_(std::move(owner)), data_(data), rows_(rows), cols_(cols), block_rows_(block_rows),
        transposed_(transposed) {}

  int64_t rows() const override { return transposed_ ? cols_ : rows_; }
  int64_t cols() const override { return transposed_ ? rows_ : cols_; }
  int64_t preferred_block_rows() const override { return block_rows_; }
  std::string describe() const override {
    return str_cat("dense ", rows_, " x ", cols_, transposed_ ? " (transposed)" : "");
  }

  Status read_block(int64_t row0, int64_t nrows, double* out) const override { return read(row0, nrows, out); }
  Status read_block(int64_t row0, int64_t nrows, float* out) const override { return read(row0, nrows, out); }

  Result<RowBlockSourcePtr> transposed() const override {
    return RowBlockSourcePtr(std::make_shared<DenseSource>(owner_, data_, rows_, cols_, 0, !transposed_));
  }
  const double* direct_rows(int64_t row0, int64_t nrows) const override {
    if (transposed_ || row0 < 0 || nrows < 0 || row0 + nrows > rows_) return nullptr;
    return data_ + row0 * cols_;
  }

 private:
  template <class T>
  Status read(int64_t row0, int64_t nrows, T* out) const {
    STRATA_RETURN_NOT_OK(check_range(*this, row0, nrows));
    if (!transposed_) {
      const double* src = data_ + row0 * cols_;
      if constexpr (std::is_same_v<T, double>) {
        std::memcpy(out, src, sizeof(double) * static_cast<size_t>(nrows * cols_));
      } else {
        for (int64_t i = 0; i < nrows * cols_; ++i) out[i] = static_cast<T>(src[i]);
      }
      return Status::OK();
    }
    // Row r of Aᵀ is column r of A.
    for (int64_t i = 0; i < rows_; ++i) {
      const double* src = data_ + i * cols_ + row0;
      for (int64_t r = 0; r < nrows; ++r) out[r * rows_ + i] = static_cast<T>(src[r]);
    }
    return Status::OK();
  }

  std::shared_ptr<const std::vector<double>> owner_;
  const double* data_;
  int64_t rows_, cols_, block_rows_;
  bool transposed_;
};

// Element (i, j) of the untransposed matrix is element e = i·cols + j of stream 0 under the
// random module's keying, so Uniform01 and Normal equal Array::random_uniform /
// The RandInt3 matrix of `seed` multiplied where the backend generates it (BenchSource).
class RandInt3Products final : public GeneratedProducts {
 public:
  RandInt3Products(const backend::Backend& be, uint64_t seed, int64_t cols) : source_(be), seed_(seed), cols_(cols) {}
  Status times(int64_t r0, int64_t rows, backend::MatrixView<const double> x,
               backend::MatrixView<double> out) const override {
    return source_.randint3_product({seed_, cols_, r0, rows}, backend::RandInt3Op::Times, x, out);
  }
  Status gram(int64_t r0, int64_t rows, backend::MatrixView<const double> q,
              backend::MatrixView<double> out) const override {
    return source_.randint3_product({seed_, cols_, r0, rows}, backend::RandInt3Op::Gram, q, out);
  }

 private:
  backend::BenchSource source_;
  uint64_t seed_;
  int64_t cols_;
};

// random_normal({rows, cols}, any chunks, 0, 1, seed) element by element; RandInt3 is
// random::randint3 of byte e.
class RandomSource final : public RowBlockSource {
 public:
  RandomSource(int64_t rows, int64_t cols, RandomDistribution dist, uint64_t seed, int64_t block_rows,
               bool transposed)
      : rows_(rows), cols_(cols), dist_(dist), seed_(seed), block_rows_(block_rows), transposed_(transposed) {}

  int64_t rows() const override { return transposed_ ? cols_ : rows_; }
  int64_t cols() const override { return transposed_ ? rows_ : cols_; }
  int64_t preferred_block_rows() const override { return block_rows_; }
  ScalarType natural_type() const override {
    return dist_ == RandomDistribution::RandInt3 ? ScalarType::UInt8 : ScalarType::Float64;
  }
  std::string describe() const override {
    static const char* kNames[] = {"uniform", "randint(0,3)", "normal"};
    return str_cat("random ", kNames[static_cast<int>(dist_)], " ", rows_, " x ", cols_,
                   transposed_ ? " (transposed)" : "", " seed ", seed_);
  }
  Status read_block(int64_t row0, int64_t nrows, double* out) const override { return read(row0, nrows, out); }
  Status read_block(int64_t row0, int64_t nrows, float* out) const override { return read(row0, nrows, out); }
  Result<RowBlockSourcePtr> transposed() const override {
    return RowBlockSourcePtr(std::make_shared<RandomSource>(rows_, cols_, dist_, seed_, 0, !transposed_));
  }
  std::unique_ptr<const GeneratedProducts> generated_products(const backend::Backend& be) const override {
    if (dist_ != RandomDistribution::RandInt3 || transposed_ || !backend::BenchSource(be).fused_randint3())
      return nullptr;
    return std::make_unique<RandInt3Products>(be, seed_, cols_);
  }

 private:
  static constexpr uint64_t kStream = 0;

  // RandInt3 of elements e0 .. e0 + n − 1, drawn in chunks of whole words.
  template <class T>
  void fill_randint3(int64_t e0, int64_t n, T* out) const {
    constexpr int64_t kChunk = 4096;
    uint8_t buf[kChunk];
    for (int64_t k = 0; k < n; k += kChunk) {
      const int64_t take = std::min(kChunk, n - k);
      random::fill_randint3(seed_, kStream, e0 + k, take, buf);
      for (int64_t i = 0; i < take; ++i) out[k + i] = static_cast<T>(buf[i]);
    }
  }

  // out[k] = element e0 + k·step, k < n.
  template <class T>
  void fill_run(int64_t e0, int64_t step, int64_t n, T* out) const {
    if (dist_ == RandomDistribution::RandInt3) {
      if (step == 1) {
        fill_randint3(e0, n, out);
      } else {
        for (int64_t k = 0; k < n; ++k)
          out[k] = static_cast<T>(random::randint3(random::byte_at(seed_, kStream, static_cast<uint64_t>(e0 + k * step))));
      }
      return;
    }
    random::FillParams p;
    p.dist = dist_ == RandomDistribution::Normal ? random::Dist::Normal : random::Dist::Uniform;
    p.seed = seed_;
    p.stream = kStream;
    if constexpr (std::is_same_v<T, double>) {
      random::fill(p, e0, step, n, out);
    } else {  // float: the float64 values rounded
      double tmp[1024];
      for (int64_t k = 0; k < n; k += 1024) {
        const int64_t c = std::min<int64_t>(1024, n - k);
        random::fill(p, e0 + k * step, step, c, tmp);
        for (int64_t i = 0; i < c; ++i) out[k + i] = static_cast<T>(tmp[i]);
      }
    }
  }

  template <class T>
  Status read(int64_t row0, int64_t nrows, T* out) const {
    STRATA_RETURN_NOT_OK(check_range(*this, row0, nrows));
    if (!transposed_) {
      fill_run(row0 * cols_, 1, nrows * cols_, out);
      return Status::OK();
    }
    // Row r of the transpose is column row0 + r: elements row0 + r + i·cols.
    for (int64_t r = 0; r < nrows; ++r) fill_run(row0 + r, cols_, rows_, out + r * rows_);
    return Status::OK();
  }

  int64_t rows_, cols_;
  RandomDistribution dist_;
  uint64_t seed_;
  int64_t block_rows_;
  bool transposed_;
};

}  // namespace

RowBlockSourcePtr make_dense_source(const double* data, int64_t rows, int64_t cols, int64_t block_rows) {
  return std::make_shared<DenseSource>(nullptr, data, rows, cols, block_rows, false);
}

Result<RowBlockSourcePtr> make_dense_source(std::vector<double> data, int64_t rows, int64_t cols,
                                            int64_t block_rows) {
  STRATA_ASSIGN_OR_RETURN(int64_t n, checked_mul(rows, cols));
  if (static_cast<int64_t>(data.size()) != n) {
    return Status::Invalid("dense source: ", data.size(), " values for a ", rows, " x ", cols, " matrix");
  }
  auto owner = std::make_shared<const std::vector<double>>(std::move(data));
  const double* p = owner->data();
  return RowBlockSourcePtr(std::make_shared<DenseSource>(std::move(owner), p, rows, cols, block_rows, false));
}

Result<RowBlockSourcePtr> make_random_source(int64_t rows, int64_t cols, RandomDistribution dist,
                                             uint64_t seed, int64_t block_rows) {
  if (rows < 0 || cols < 0) return Status::Invalid("random source: negative shape ", rows, " x ", cols);
  STRATA_RETURN_NOT_OK(checked_mul(rows, cols).status());
  return RowBlockSourcePtr(std::make_shared<RandomSource>(rows, cols, dist, seed, block_rows, false));
}

Result<std::vector<double>> read_all(const RowBlockSource& source) {
  STRATA_ASSIGN_OR_RETURN(int64_t n, checked_mul(source.rows(), source.cols()));
  std::vector<double> out(static_cast<size_t>(n));
  STRATA_RETURN_NOT_OK(source.read_block(0, source.rows(), out.data()));
  return out;
}

}  // namespace strata::linalg
