#pragma once
/// \file
/// Distances between the rows of a 2-D numeric Zarr array (`strata distance` on such an
/// array): rows are the observations, columns the coordinates; integer and float dtypes.
///
/// **Missing values.** NaN (floats) marks a missing coordinate. Each pair uses only the
/// coordinates both rows have (as sgkit's `pairwise_distance`), without rescaling; a pair with
/// none gets NaN. On complete data every metric equals `scipy.spatial.distance.pdist` (1e-9
/// relative): euclidean, sqeuclidean, cityblock, chebyshev, minkowski:P, cosine, correlation
/// (each row centred by its mean, as scipy does; with NaN, Pearson's r over the pair's common
/// coordinates) and hamming (the fraction of common coordinates that differ). `ibs` and
/// `allele-sharing` are genotype metrics and refused.
///
/// **Kernels.** euclidean, sqeuclidean, cosine and correlation come from Gram products on the
/// backend (`gemm`) with row norms; a pair whose squared distance is at most 10⁻³ of its norms
/// (where the Gram form loses digits) is recomputed directly. The other metrics run the
/// backend's direct row-pair kernels (`row_pair_reduce`).
///
/// **Streaming and determinism.** Rows are read in bands of whole 64-row blocks that fit the
/// memory budget; each block pair is computed by one call per product with shapes fixed by the
/// data, so the values are the same bits for any thread count and band size. Bands are handed
/// out in row order as they finish.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "strata/core/context.hpp"
#include "strata/genomics/distance.hpp"
#include "strata/io/zarr.hpp"

namespace strata::genomics {

/// \brief Rows of the fixed block grid every product runs on.
inline constexpr int64_t kRowDistanceBlock = 64;

struct RowDistanceOptions {
  /// Rows per band (rounded up to whole blocks); 0 = as many as the memory budget allows.
  /// Results do not depend on it; tests vary it.
  int64_t band = 0;
};

/// \brief A finished band: the distances of rows [row0, row0 + rows) to every row j ≤ that row,
/// at values[r·ld + j] (r < rows).
struct RowDistanceBand {
  int64_t row0 = 0, rows = 0;
  const double* values = nullptr;
  int64_t ld = 0;
};

/// \brief A 2-D numeric matrix read in whole rows: a Zarr array, or memory (the bindings'
/// numpy arrays). The distances read it only through `read`.
struct RowMatrix {
  int64_t rows = 0, cols = 0;
  DType dtype;
  std::string description;  ///< for messages
  /// Rows [row0, row0 + count) as C-order values of `dtype` into `dst`.
  std::function<Status(int64_t row0, int64_t count, void* dst, ThreadPool* pool)> read;

  static RowMatrix of(const io::ZarrArray& array);
  /// \brief A C-order rows × cols array at `data` (not copied: the caller keeps it alive and
  /// unchanged during the call). InvalidData for a non-numeric dtype or fewer than two rows.
  static Result<RowMatrix> in_memory(const void* data, int64_t rows, int64_t cols, DType dtype);
  /// \brief Some bands of a rows × cols matrix in memory (C-order, not copied), as a cluster
  /// task holds them: reads outside the bands are Invalid. The description is in_memory's.
  struct Band {
    int64_t row0 = 0, rows = 0;
    const void* data = nullptr;
  };
  static Result<RowMatrix> of_bands(int64_t rows, int64_t cols, DType dtype, std::vector<Band> bands);
};

/// \brief The array at `path` when `path` names a Zarr array that is not a 3-D genotype call
/// array (nullopt otherwise: a genotype source). Errors (InvalidData naming the path) for an
/// array that is not 2-D, not integer or float, or has fewer than two rows.
Result<std::optional<io::ZarrArray>> open_row_matrix(const std::string& path);

/// \brief Run the distances of `array`'s rows and hand each band to `on_band`, serially, in
/// row order. Invalid for ibs / allele-sharing; OutOfMemory when one block of rows does not fit.
Status for_each_row_distance_band(const Context& ctx, const RowMatrix& matrix, const DistanceSpec& spec,
                                  const RowDistanceOptions& options,
                                  const std::function<Status(const RowDistanceBand&)>& on_band);
inline Status for_each_row_distance_band(const Context& ctx, const io::ZarrArray& array, const DistanceSpec& spec,
                                         const RowDistanceOptions& options,
                                         const std::function<Status(const RowDistanceBand&)>& on_band) {
  return for_each_row_distance_band(ctx, RowMatrix::of(array), spec, options, on_band);
}

/// \brief Invalid (naming the matrix) for a genotype metric (ibs, allele-sharing).
Status check_row_distance_metric(const RowMatrix& matrix, const DistanceSpec& spec);

/// \brief One tile of the lower triangle: the distances of rows [row0, row0 + row_count) to rows
/// [col0, col0 + col_count), at out[r·col_count + c], as the whole-matrix run computes them
/// (the same bits: each 64-row block pair is one kernel call on those two blocks alone). Only
/// entries with col0 + c ≤ row0 + r are meaningful (the rest are NaN or the upper part of a
/// diagonal block). row0 and col0 are on the 64-row grid with col0 ≤ row0, and each range is
/// whole blocks or ends at the last row; `matrix.read` is called for those rows only (a Dask
/// task's two row bands: python/strata/_dask_rows.py). Invalid off the grid; OutOfMemory when
/// the two bands and the tile do not fit the budget.
Result<std::vector<double>> row_distance_tile(const Context& ctx, const RowMatrix& matrix, int64_t row0,
                                              int64_t row_count, int64_t col0, int64_t col_count,
                                              const DistanceSpec& spec);

/// \brief The rows × rows distance matrix (row-major, symmetric, zero diagonal except where a
/// row has no observed coordinate: NaN), as `strata distance` writes it for a numeric array.
Result<std::vector<double>> row_distance_matrix(const Context& ctx, const RowMatrix& matrix, const DistanceSpec& spec,
                                                const RowDistanceOptions& options = {});

}  // namespace strata::genomics
