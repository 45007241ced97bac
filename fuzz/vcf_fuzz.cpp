// Fuzzes VCF → VCF Zarr and VCF → .bed conversion (htslib parsing plus strata's call mapping,
// ordering checks and writers) with arbitrary VCF text. A failed conversion must leave no
// output behind.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "core/test_context.hpp"
#include "strata/core/config.hpp"
#include "strata/io/genotype_convert.hpp"

using strata::testing::test_ctx;

namespace {

const std::string& work_dir() {
  static const std::string dir = [] {
    std::string d = std::filesystem::temp_directory_path() / ("strata-vcf-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (!STRATA_HAVE_HTSLIB || size == 0) return 0;
  namespace fs = std::filesystem;
  const std::string in = work_dir() + "/in.vcf";
  FILE* f = std::fopen(in.c_str(), "wb");
  if (!f) __builtin_trap();
  std::fwrite(data + 1, 1, size - 1, f);
  std::fclose(f);
  strata::io::ConvertOptions o;
  o.overwrite = true;
  o.variants_chunk = 1 + data[0] % 7;  // small chunks exercise the block hand-off
  const bool to_bed = data[0] & 0x80;
  const std::string out = work_dir() + (to_bed ? "/out.bed" : "/out.vcz");
  auto r = strata::io::convert_genotypes(test_ctx(), in, out, o);
  if (!r.ok() && fs::exists(out)) __builtin_trap();
  std::error_code ec;
  fs::remove_all(work_dir() + "/out.vcz", ec);
  for (const char* ext : {".bed", ".bim", ".fam"}) fs::remove(work_dir() + "/out" + ext, ec);
  return 0;
}
