// Fuzzes the PLINK 1 reader with arbitrary .bed/.bim/.fam contents. Input layout: bytes 0-1
// and 2-3 give the .fam and .bim lengths (little-endian), then the .fam, the .bim and the
// rest is the .bed. Besides "no crash, no sanitizer report", every fileset that opens must
// decode fully, with counts that add up to the number of samples.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/test_context.hpp"
#include "strata/genomics/qc.hpp"
#include "strata/io/plink.hpp"

using strata::testing::test_ctx;

namespace {

const std::string& work_dir() {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path() / ("strata-bed-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

void put(const std::string& path, const uint8_t* data, size_t n) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) __builtin_trap();
  if (n) std::fwrite(data, 1, n, f);
  std::fclose(f);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  const size_t fam = data[0] | (size_t{data[1]} << 8), bim = data[2] | (size_t{data[3]} << 8);
  if (4 + fam + bim > size) return 0;
  const std::string prefix = work_dir() + "/x";
  put(prefix + ".fam", data + 4, fam);
  put(prefix + ".bim", data + 4 + fam, bim);
  put(prefix + ".bed", data + 4 + fam + bim, size - 4 - fam - bim);
  auto bed = strata::io::BedReader::open(prefix);
  if (!bed.ok()) return 0;
  auto counts = strata::genomics::compute_variant_counts(test_ctx(), **bed);
  if (!counts.ok()) __builtin_trap();
  for (const auto& c : *counts)
    if (c.total() != (*bed)->num_samples()) __builtin_trap();
  return 0;
}
