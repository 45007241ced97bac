#pragma once
/// \file
/// `strata grm` as a library call: compute_grm() streamed into the files plink2 writes, as one
/// OutputSet (strata/core/output.hpp: declared before the pass, staged, committed together;
/// a failed run leaves nothing). Each finished tile is written as soon as the format allows,
/// so memory stays within the budget for any N:
///
/// | format    | files | layout |
/// |-----------|-------|--------|
/// | `rel`     | `P.rel`, `P.rel.id` | plink2 `--make-rel`: lower triangle with the diagonal, tab-separated, 6 significant digits (a tile row is buffered, then its lines emitted) |
/// | `rel-bin` | `P.rel.bin`, `P.rel.id` | plink2 `--make-rel bin`: N × N float64, square, row-major (tiles and their mirrors written in place) |
/// | `grm-bin` | `P.grm.bin`, `P.grm.N.bin`, `P.grm.id` | GCTA / plink2 `--make-grm-bin`: float32 lower triangle with the diagonal, row-major; `.N.bin` the variants each pair observes |
/// | `zarr`    | `P.zarr` | Zarr v2 group: `grm` (N × N float64, chunks of one tile), `sample_id`, `pair_count` (N × N float32, only when counts vary per pair); attributes with the settings |
///
/// `.rel.id` has plink2's header (`#FID IID`, or `#IID` when the source has no family IDs);
/// `.grm.id` is `FID IID` without a header (FID 0 when the source has none), as plink2 writes.

#include <string>
#include <vector>

#include "strata/core/result.hpp"
#include "strata/genomics/grm.hpp"
#include "strata/genomics/selection.hpp"

namespace strata::genomics {

enum class GrmFormat : uint8_t { Rel, RelBin, GrmBin, Zarr };
/// \brief "rel", "rel-bin", "grm-bin" or "zarr"; Invalid otherwise (the message lists them).
Result<GrmFormat> parse_grm_format(const std::string& name);
const char* grm_format_name(GrmFormat format);

/// \brief Options of run_grm_to_files().
struct GrmRunOptions {
  GrmParams grm;
  /// Samples and variants to use (plink2's --keep, --maf, …), applied before the GRM.
  SelectionOptions selection;
  GrmFormat format = GrmFormat::Rel;
  /// Replace an existing `P.zarr` (a Zarr store). Files are replaced without it.
  bool overwrite = false;
};

/// \brief What run_grm_to_files() did.
struct GrmRunSummary {
  GrmInfo info;
  SelectionReport selection;       ///< what the selection removed
  std::vector<std::string> files;  ///< outputs written
  Summary report;                  ///< the report fields (the CLI's --report, Python's dict)
};

/// \brief `x` as plink2 prints GRM entries (printf "%g": 6 significant digits) into `out`
/// (at least 16 bytes); returns the end of the text.
char* format_grm_value(double x, char* out);

/// \brief Compute the GRM of `input` (anything io::open_genotypes() reads) and write it for
/// `prefix` in `options.format`. Errors name the input or output and the problem.
/// \code
/// genomics::GrmRunOptions o;
/// o.format = genomics::GrmFormat::GrmBin;
/// STRATA_ASSIGN_OR_RETURN(auto s, genomics::run_grm_to_files(ctx, "cohort.bed", "out/cohort", o));
/// \endcode
Result<GrmRunSummary> run_grm_to_files(const Context& ctx, const std::string& input, const std::string& prefix,
                                       const GrmRunOptions& options);

}  // namespace strata::genomics
