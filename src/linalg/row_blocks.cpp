// In-memory and counter-based random RowBlockSources, and the interface's defaults.
#include "strata/linalg/row_blocks.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <type_traits>

#include "linalg/philox_internal.hpp"
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

// Element e = i * cols + j of the untransposed matrix:
//  Uniform01 — words 2(e mod 2), 2(e mod 2)+1 of Philox block e/2;
//  RandInt3  — byte e mod 16 of block e/16, value (byte * 3) >> 8;
//  Normal    — Box–Muller normal e mod 4 of block e/4.
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

 private:
  static constexpr uint64_t kStream = 0;

  double value_at(uint64_t e) const {
    switch (dist_) {
      case RandomDistribution::Uniform01: {
        const auto w = detail::philox_block(seed_, kStream, e / 2);
        return e % 2 ? detail::uniform_f64(w[2], w[3]) : detail::uniform_f64(w[0], w[1]);
      }
      case RandomDistribution::RandInt3: {
        const auto w = detail::philox_block(seed_, kStream, e / 16);
        const uint32_t byte = (w[(e % 16) / 4] >> (8 * (e % 4))) & 0xFFu;
        return static_cast<double>((byte * 3u) >> 8);
      }
      case RandomDistribution::Normal:
        return detail::normal_at(seed_, kStream, e);
    }
    return 0.0;
  }

  // Fill out[0 .. n) with elements e0 .. e0+n, decoding each Philox block once. PER values
  // come from one block; `emit(words, slot)` turns a block into its value at `slot`.
  template <uint64_t PER, class T, class Emit>
  void fill_run_as(uint64_t e0, int64_t n, T* out, Emit emit) const {
    uint64_t e = e0;
    const uint64_t end = e0 + static_cast<uint64_t>(n);
    while (e < end) {
      const uint64_t blk = e / PER;
      const auto w = detail::philox_block(seed_, kStream, blk);
      const uint64_t first = e - blk * PER;
      const uint64_t last = std::min<uint64_t>(PER, end - blk * PER);
      for (uint64_t slot = first; slot < last; ++slot) *out++ = static_cast<T>(emit(w, slot));
      e = (blk + 1) * PER;
    }
  }

  template <class T>
  void fill_run(uint64_t e0, int64_t n, T* out) const {
    switch (dist_) {
      case RandomDistribution::Uniform01:
        fill_run_as<2>(e0, n, out, [](const std::array<uint32_t, 4>& w, uint64_t slot) {
          return slot ? detail::uniform_f64(w[2], w[3]) : detail::uniform_f64(w[0], w[1]);
        });
        break;
      case RandomDistribution::RandInt3:
        fill_run_as<16>(e0, n, out, [](const std::array<uint32_t, 4>& w, uint64_t slot) {
          const uint32_t byte = (w[slot / 4] >> (8 * (slot % 4))) & 0xFFu;
          return static_cast<double>((byte * 3u) >> 8);
        });
        break;
      case RandomDistribution::Normal:
        fill_run_as<4>(e0, n, out, [](const std::array<uint32_t, 4>& w, uint64_t slot) {
          double z[4];
          detail::normal_pair(w[0], w[1], z[0], z[1]);
          detail::normal_pair(w[2], w[3], z[2], z[3]);
          return z[slot];
        });
        break;
    }
  }

  template <class T>
  Status read(int64_t row0, int64_t nrows, T* out) const {
    STRATA_RETURN_NOT_OK(check_range(*this, row0, nrows));
    if (!transposed_) {
      fill_run(static_cast<uint64_t>(row0) * static_cast<uint64_t>(cols_), nrows * cols_, out);
      return Status::OK();
    }
    for (int64_t r = 0; r < nrows; ++r)
      for (int64_t i = 0; i < rows_; ++i)
        out[r * rows_ + i] = static_cast<T>(value_at(static_cast<uint64_t>(i) * cols_ + (row0 + r)));
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
