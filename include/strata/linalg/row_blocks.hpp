#pragma once
/// \file
/// RowBlockSource: how the streaming linear algebra reads a matrix. An algorithm never holds
/// the matrix; it asks for blocks of whole rows, as many times as it needs passes.
///
/// **Layout.** A block of rows [row0, row0 + nrows) is written **row-major** (C order, like a
/// Zarr region): element (i, j) of the block at `out[i * cols() + j]`. The same memory is the
/// column-major cols() × nrows matrix Aᵀ, which is how kernels hand it to BLAS without a copy.
///
/// **Threads.** `read_block` must be safe to call concurrently for different (or equal) row
/// ranges: passes read several blocks at once on the Context's thread pool. An implementation
/// that parallelizes internally must do so on that pool (nested calls then run inline).
///
/// Adapters: in-memory dense (tests, embedding), counter-based random matrices (benchmarks),
/// 2-D numeric Zarr arrays (any dtype, cast on read; zarr_row_blocks.cpp) and the
/// standardized genotype view of PCA (src/genomics/pca_source.cpp).
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto src, linalg::open_zarr_source("data.zarr/x"));
/// std::vector<double> block(100 * src->cols());
/// STRATA_RETURN_NOT_OK(src->read_block(0, 100, block.data()));
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/dtype.hpp"
#include "strata/core/result.hpp"

namespace strata::io {
class ZarrArray;
}
namespace strata::backend {
class Backend;
template <class T>
struct MatrixView;
}  // namespace strata::backend

namespace strata::linalg {

class RowBlockSource;
using RowBlockSourcePtr = std::shared_ptr<const RowBlockSource>;

/// \brief Products with blocks of a source's rows that a backend computes without the rows ever
/// reaching the host (a generated matrix multiplied where it is generated): what
/// RowBlockSource::generated_products offers. Block b is rows [r0, r0 + rows); float64.
class GeneratedProducts {
 public:
  virtual ~GeneratedProducts() = default;
  /// out (rows × x.cols) = A_b·x, x cols() × l.
  virtual Status times(int64_t r0, int64_t rows, backend::MatrixView<const double> x,
                       backend::MatrixView<double> out) const = 0;
  /// out (cols() × q.cols) = A_bᵀ·(A_b·q), A_b·q rounded to float64 in between.
  virtual Status gram(int64_t r0, int64_t rows, backend::MatrixView<const double> q,
                      backend::MatrixView<double> out) const = 0;
};

/// \brief A read-only rows × cols matrix that hands out blocks of whole rows.
class RowBlockSource {
 public:
  virtual ~RowBlockSource() = default;

  virtual int64_t rows() const = 0;
  virtual int64_t cols() const = 0;
  /// \brief The natural row granularity (storage chunk rows); 0 = any. A hint only: pass
  /// block grids come from the data and the memory budget, never from the storage chunking.
  virtual int64_t preferred_block_rows() const { return 0; }
  /// \brief The element type the data is stored in (algorithms compute in float32 when the
  /// data is 32-bit or narrower and the caller asks for automatic precision).
  virtual ScalarType natural_type() const { return ScalarType::Float64; }
  /// \brief What the data is, for messages ("store.zarr/x", "dense 100 x 20").
  virtual std::string describe() const = 0;

  /// \brief Write rows [row0, row0 + nrows) as a row-major nrows × cols() block.
  virtual Status read_block(int64_t row0, int64_t nrows, double* out) const = 0;
  /// \brief The same in float32 (default: read as double and round).
  virtual Status read_block(int64_t row0, int64_t nrows, float* out) const;

  /// \brief For sources already in memory as row-major float64: a pointer to rows
  /// [row0, row0 + nrows) that stays valid while the source lives, so passes can skip the
  /// copy. nullptr (the default) means "use read_block".
  virtual const double* direct_rows(int64_t row0, int64_t nrows) const { return nullptr; }

  /// \brief Products that `be` computes from this source's definition without reading rows
  /// (an untransposed RandInt3 random source on a backend that generates it where it
  /// multiplies: backend::BenchSource::fused_randint3); null (the default) when passes must read
  /// rows. The result refers to `be`, which must outlive it.
  virtual std::unique_ptr<const GeneratedProducts> generated_products(const backend::Backend& be) const {
    return nullptr;
  }

  /// \brief A source over the transpose (cols × rows), for short-and-fat matrices; it reads
  /// column panels of this one. Unsupported when the adapter cannot.
  virtual Result<RowBlockSourcePtr> transposed() const;
};

/// \brief A non-owning view of a row-major rows × cols array (the caller keeps it alive).
/// `block_rows` is the preferred block height reported to passes (0 = any).
RowBlockSourcePtr make_dense_source(const double* data, int64_t rows, int64_t cols,
                                    int64_t block_rows = 0);
/// \brief An owning dense source (data.size() must equal rows * cols).
Result<RowBlockSourcePtr> make_dense_source(std::vector<double> data, int64_t rows, int64_t cols,
                                            int64_t block_rows = 0);

/// \brief Distribution of a counter-based random matrix.
enum class RandomDistribution : uint8_t {
  Uniform01,  ///< float64 uniform in [0, 1) (random::uniform_f64)
  RandInt3,   ///< integers 0, 1, 2 ("genotype-like"; P = 86/256, 85/256, 85/256 from one byte)
  Normal,     ///< standard normal (random::normal_at, the ziggurat)
};

/// \brief A rows × cols random matrix generated on demand: element (i, j) depends only on
/// (seed, i, j) through strata/core/random.hpp keyed by the element index i·cols + j, so any
/// block, in any order, on any thread count, gives the same values, and Uniform01 / Normal equal
/// Array::random_uniform / random_normal({rows, cols}, chunks, 0, 1, seed) bit for bit.
/// Nothing is stored.
/// `block_rows` is the preferred block height (0 = any).
Result<RowBlockSourcePtr> make_random_source(int64_t rows, int64_t cols, RandomDistribution dist,
                                             uint64_t seed, int64_t block_rows = 0);

/// \brief A source over a 2-D numeric Zarr array (integer, unsigned, float16/32/64; bool is
/// refused). Values are cast to the requested float type; non-finite values are an error
/// naming the row. Preferred block rows = the array's chunk rows.
Result<RowBlockSourcePtr> make_zarr_source(const io::ZarrArray& array);
/// \brief Open "store.zarr/path/to/array" and wrap it.
Result<RowBlockSourcePtr> open_zarr_source(const std::string& path);

/// \brief Read the whole source into a row-major vector (tests and small matrices).
Result<std::vector<double>> read_all(const RowBlockSource& source);

}  // namespace strata::linalg
