#pragma once
// Readers of the PCA text outputs (.eigenval, .rel, .eigenvec) shared by the plink2 PCA tests.
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "testing/testing.hpp"

namespace strata::pca_files {

// One unit in the 6th significant digit of x (plink2's printed precision).
inline double last_digit(double x) {
  return x == 0 ? 1e-6 : std::pow(10.0, std::floor(std::log10(std::fabs(x))) - 5);
}

// Every whitespace-separated number of a file.
inline std::vector<double> numbers(const std::string& path) {
  std::vector<double> out;
  std::istringstream ss(strata::testing::read_file(path));
  for (std::string w; ss >> w;) out.push_back(std::stod(w));
  return out;
}

// The values of an .eigenvec file (header and the ID columns dropped: #IID, or #FID IID),
// samples × k.
inline std::vector<std::vector<double>> eigenvec(const std::string& path) {
  std::vector<std::vector<double>> rows;
  std::istringstream ss(strata::testing::read_file(path));
  std::string line;
  std::getline(ss, line);
  const int ids = line.rfind("#FID", 0) == 0 ? 2 : 1;
  while (std::getline(ss, line)) {
    std::istringstream ls(line);
    std::string id;
    for (int i = 0; i < ids; ++i) ls >> id;
    std::vector<double> r;
    for (double x; ls >> x;) r.push_back(x);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace strata::pca_files
