// PCA text numbers (see strata/genomics/pca_format.hpp).
#include "strata/genomics/pca_format.hpp"

#include <charconv>

namespace strata::genomics {

// std::to_chars with precision 9 promises printf's "%.9g" text, without the locale machinery.
std::string_view format_pca_value(double x, std::span<char, 32> buf) {
  const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), x, std::chars_format::general, 9);
  return std::string_view(buf.data(), static_cast<size_t>(r.ptr - buf.data()));
}

std::string format_pca_value(double x) {
  char buf[32];
  return std::string(format_pca_value(x, buf));
}

std::string format_eigenval(const std::vector<double>& eigenvalues) {
  std::string out;
  char buf[32];
  for (double x : eigenvalues) {
    out += format_pca_value(x, buf);
    out += '\n';
  }
  return out;
}

}  // namespace strata::genomics
