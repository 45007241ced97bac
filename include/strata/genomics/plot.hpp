#pragma once
/// \file
/// strata's plots: PCA scatter panels with a scree panel, Manhattan and QQ plots of a gwas
/// result, KING kinship against IBS0. Each is a self-contained SVG (no scripts, no external
/// fonts, the same bytes on every run) and, when libcairo is present, a PNG of the same drawing.

#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/result.hpp"

namespace strata {
class OutputSet;
}

namespace strata::genomics {

/// \brief Which files a plot is written as.
struct PlotFormats {
  bool svg = true;
  bool png = false;
  /// "svg", "png", "svg,png" (also "none"). Invalid for anything else.
  static Result<PlotFormats> parse(const std::string& list);
  /// SVG, and PNG where libcairo can be loaded.
  static PlotFormats defaults();
  /// What a command writes: none when `write_plot` is false, else `list` ("" = defaults());
  /// Unsupported (check_plot_formats) when PNG is asked for and cannot be written.
  static Result<PlotFormats> choose(bool write_plot, const std::string& list);
  bool any() const { return svg || png; }
};

/// \brief Whether PNG plots can be written here (libcairo found at build and run time).
bool png_supported();

/// \brief Unsupported with a clear message when `formats` asks for PNG and png_supported() is false.
Status check_plot_formats(const PlotFormats& formats);

/// \brief What a PCA plot shows.
struct PcaPlotData {
  int64_t num_samples = 0;
  int64_t num_components = 0;         ///< columns of `scores` (≥ 2 to plot)
  std::vector<double> scores;         ///< num_samples × num_components, row-major (sample i, PC j)
  std::vector<std::string> labels;    ///< population per sample; empty or "" = "unknown"
  std::vector<double> variance_ratio; ///< fraction of variance per PC, every PC computed (axis titles, scree); may be empty
  std::string title = "PCA";
};

/// \brief PC1 vs PC2 as the main panel with ticks and numbers; when ≥ 3 components, the other
/// pairs up to PC4; a scree panel (% variance per PC); a legend sorted by name with counts.
/// Colours are Okabe–Ito's 8, then marker shapes; the largest groups are drawn first, so small
/// ones stay visible on top. Invalid when fewer than 2 components or sizes disagree.
Result<std::string> render_pca_svg(const PcaPlotData& data);

/// \brief The PCA plot written to `svg_path` and/or `png_path` (empty: skipped).
Status write_pca_plot(const PcaPlotData& data, const std::string& svg_path, const std::string& png_path);

/// \brief render_pca_svg() written to `path` atomically (strata/core/output.hpp rules).
Status write_pca_svg(const std::string& path, const PcaPlotData& data);

/// \brief Genomic control λ of p-values: median χ²(1) quantile of the p-values / 0.4549364
/// (the median of χ²(1)). NaN when there are none.
double lambda_gc(std::vector<double> p_values);

/// \brief Where a gwas result's plots go (each empty: skipped).
struct GwasPlotPaths {
  std::string manhattan_svg, manhattan_png, qq_svg, qq_png;
};

/// \brief Declare a phenotype's plot files in `out`: `stem`.manhattan.svg/.png and
/// `stem`.qq.svg/.png as `formats` asks; their staged paths go to `paths`.
Status declare_gwas_plots(OutputSet& out, const std::string& stem, const PlotFormats& formats, GwasPlotPaths& paths);

/// \brief Manhattan plot (−log10 P by chromosome position, genome-wide 5e-8 and suggestive 1e-5
/// lines) and QQ plot (with λ_GC printed) of a plink2-style result table (`#CHROM POS ... TEST
/// ... P`, ADD rows), read from `result_path`. Points with P > 0.01 are drawn once per pixel.
Status write_gwas_plots(const std::string& result_path, const std::string& title, const GwasPlotPaths& paths);

/// \brief KING kinship against the fraction of IBS0 sites of each pair, read from a `.kin0`
/// table, with the degree thresholds 0.354 / 0.177 / 0.0884 / 0.0442 drawn. Pairs are drawn
/// once per pixel, so the file stays small for any number of pairs.
Status write_kinship_plot(const std::string& kin0_path, const std::string& title, const std::string& svg_path,
                          const std::string& png_path);

}  // namespace strata::genomics
