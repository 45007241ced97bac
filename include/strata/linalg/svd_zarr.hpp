#pragma once
/// \file
/// SVD of a 2-D numeric Zarr array written to a Zarr group: what `strata svd` runs.

#include <string>
#include <vector>

#include "strata/core/job.hpp"
#include "strata/core/result.hpp"
#include "strata/linalg/svd.hpp"

namespace strata::linalg {

/// \brief Output options of svd_to_zarr().
struct SvdZarrOptions {
  /// Replace an existing output instead of failing with AlreadyExists.
  bool overwrite = false;
  /// Codec of the output arrays (io::parse_codec_spec syntax).
  std::string codec = "blosc:zstd:5:shuffle";
};

/// \brief What svd_to_zarr() did.
struct SvdZarrSummary {
  SvdResult result;
  std::vector<std::string> files;  ///< the output store
  Summary report;                  ///< the report fields (the CLI's --report)
};

/// \brief Decompose the 2-D numeric array at `input` ("store.zarr" or "store.zarr/path") and
/// write a Zarr v2 group at `output` holding `U` (rows × k), `S` (k) and `Vt` (k × cols), all
/// float64, plus group attributes (method, passes, residual norms, error estimates).
///
/// Validation happens before any output exists (k < min(rows, cols), numeric dtype, 2-D,
/// output absent unless `overwrite`). The group is built under a temporary sibling name and
/// renamed into place only when complete, so a failure (zero matrix, I/O error, ...) leaves
/// no output that looks complete. The streamed factor goes straight from the pass to disk.
/// \code
/// linalg::SvdParams opt;
/// opt.k = 10;
/// STRATA_ASSIGN_OR_RETURN(auto r, linalg::svd_to_zarr("x.zarr", "x_svd.zarr", opt, {}));
/// \endcode
Result<SvdZarrSummary> svd_to_zarr(const Context& ctx, const std::string& input, const std::string& output,
                                   const SvdParams& options, const SvdZarrOptions& zarr_options);

}  // namespace strata::linalg
