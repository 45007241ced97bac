// pca_example BED_PREFIX K: the top K eigenvalues of a PLINK 1 fileset's genotype PCA, one per
// line, in the digits `strata pca` writes to PREFIX.eigenval.
#include <cstdlib>
#include <iostream>
#include <string>

#include "strata/strata.hpp"

namespace {

strata::Status run(const std::string& prefix, int64_t k) {
  STRATA_ASSIGN_OR_RETURN(auto view, strata::io::open_genotypes(prefix));
  strata::genomics::PcaParams params;
  params.k = k;
  const strata::Context ctx;
  STRATA_ASSIGN_OR_RETURN(auto pcs, strata::genomics::pca(ctx, view, params));
  std::cout << strata::genomics::format_eigenval(pcs.eigenvalues);
  return strata::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: pca_example BED_PREFIX K\n";
    return 2;
  }
  char* end = nullptr;
  const long k = std::strtol(argv[2], &end, 10);
  if (*argv[2] == '\0' || *end != '\0' || k < 1) {
    std::cerr << "pca_example: K must be a positive integer\n";
    return 2;
  }
  const strata::Status st = run(argv[1], k);
  if (!st.ok()) {
    std::cerr << "pca_example: " << st.to_string() << "\n";
    return 1;
  }
  return 0;
}
