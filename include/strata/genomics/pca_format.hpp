#pragma once
/// \file
/// Numbers as `strata pca` writes them in its text outputs (`PREFIX.eigenval`, `.eigenvec`,
/// `.eigenvec.var`): printf's "%.9g", plink2's precision, independent of the locale.
///
/// \code
/// STRATA_ASSIGN_OR_RETURN(auto pcs, genomics::pca(view, opt));
/// std::cout << genomics::format_eigenval(pcs.eigenvalues);  // the bytes of PREFIX.eigenval
/// \endcode

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace strata::genomics {

/// \brief `x` as "%.9g" text written into `buf` (no allocation: loadings run to millions of
/// values). Returns a view of `buf`.
std::string_view format_pca_value(double x, std::span<char, 32> buf);

/// \brief `x` as "%.9g" text.
std::string format_pca_value(double x);

/// \brief The contents of `PREFIX.eigenval`: one eigenvalue per line.
std::string format_eigenval(const std::vector<double>& eigenvalues);

}  // namespace strata::genomics
