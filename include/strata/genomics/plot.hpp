#pragma once
/// \file
/// SVG scatter plots of principal components, coloured by population. Self-contained SVG
/// (no scripts, no external fonts) that any browser or document tool renders.

#include <string>
#include <vector>

#include "strata/core/result.hpp"

namespace strata::genomics {

/// \brief What a PCA plot shows.
struct PcaPlotData {
  int64_t num_samples = 0;
  int64_t num_components = 0;         ///< columns of `scores` (≥ 2 to plot)
  std::vector<double> scores;         ///< num_samples × num_components, row-major (sample i, PC j)
  std::vector<std::string> labels;    ///< population per sample; empty or "" = "unknown"
  std::vector<double> variance_ratio; ///< fraction of variance per PC (for axis titles); may be empty
  std::string title = "PCA";
};

/// \brief Render PC1 vs PC2 as the main panel and, when ≥ 3 components exist, a grid of the
/// other pairs up to PC4, with a legend of populations (largest first) and "% variance" on the
/// axes. Invalid when fewer than 2 components or sizes disagree.
Result<std::string> render_pca_svg(const PcaPlotData& data);

/// \brief render_pca_svg() written to `path` atomically (strata/core/output.hpp rules).
Status write_pca_svg(const std::string& path, const PcaPlotData& data);

}  // namespace strata::genomics
