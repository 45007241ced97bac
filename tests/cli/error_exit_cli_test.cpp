// Exit codes and messages of bad inputs, one case per class: usage errors exit 2 with a message a
// person can read; input-file and data errors exit 1, name the file, leave no output, and
// strata's own line comes first (no htslib "[E::...]" lines).
#include <filesystem>

#include "strata/core/config.hpp"
#include "testing/testing.hpp"

namespace strata {
namespace {

namespace fs = std::filesystem;
using strata::testing::run_command;
using strata::testing::TempDir;
using strata::testing::write_file;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string cli() { return strata::testing::strata_cli_path(); }

class ErrorExit : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
    auto r = run_command(cli() + " simulate -q --samples 20 --variants 50 --seed 3 --out " + tmp_.str("sim"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  // Runs `args`; expects `code` and a first line "strata: error: ..." containing `message`.
  void expect_error(const std::string& args, int code, const std::string& message) {
    SCOPED_TRACE(args);
    auto r = run_command(cli() + " " + args);
    EXPECT_EQ(r.exit_code, code) << r.output;
    EXPECT_THAT(r.output, StartsWith("strata: error: ")) << r.output;
    EXPECT_THAT(r.output.substr(0, r.output.find('\n')), HasSubstr(message)) << r.output;
    EXPECT_THAT(r.output, Not(HasSubstr("[E::")));
    EXPECT_THAT(r.output, Not(HasSubstr(" to 1797")));  // CLI11's "not in range 0.000000 to 1797…" (temp paths may hold digits)
  }
  TempDir tmp_;
};

TEST_F(ErrorExit, UnknownSubcommandIsNamedWithTheChoices) {
  expect_error("zarr frobnicate", 2, "unknown command 'frobnicate' for strata zarr (expected one of: info, export, import, verify)");
  expect_error("frobnicate", 2, "unknown command 'frobnicate' for strata (expected one of: zarr, ");
  expect_error("zarr", 2, "strata zarr needs a command: one of info, export, import, verify");
}

TEST_F(ErrorExit, SimulateSizeOverflowNamesTheOptions) {
  expect_error("simulate -q --samples 1000000000000 --variants 1000000000000 --out " + tmp_.str("big"), 2,
               "--variants 1000000000000 x --samples 1000000000000 genotypes do not fit in 64-bit sizes");
}

TEST_F(ErrorExit, UsageErrorsExit2WithReadableRanges) {
  const std::string pca = "pca -q " + tmp_.str("sim") + " --out " + tmp_.str("p");
  expect_error(pca + " -k 2 --tolerance -1", 2, "--tolerance: must be a positive number such as 1e-6, got -1");
  expect_error(pca + " -k 2 --iterations 0", 2, "--iterations: must be an integer from 1 to 100,000, got 0");
  expect_error("pca -q " + tmp_.str("sim") + " -k 2 --out ''", 2, "--out: must not be empty");
  expect_error(pca + " -k 0", 2, "-k: must be an integer from 1 to 1,000,000, got 0");
  expect_error(pca + " -k 2 --maf -0.1", 2, "--maf: must be a number from 0 to 0.5, got -0.1");
  expect_error(pca + " -k 2 --geno 1.5", 2, "--geno: must be a number from 0 to 1, got 1.5");
  expect_error(pca + " -k 2 --memory 1.2.3G", 2, "--memory: must be a memory size such as 2G");
  expect_error(pca + " -k 2 --memory 12X", 2, "got '12X'");
  expect_error(pca + " -k 2 --threads -1", 2, "--threads: must be 0 (all cores) or 1–1024, got -1");
  expect_error(pca + " -k 2 --threads 100000", 2, "--threads: must be 0 (all cores) or 1–1024, got 100000");
  expect_error("svd " + tmp_.str("x.zarr") + " -k 2 --oversampling -1 --out " + tmp_.str("s"), 2,
               "--oversampling: must be an integer from 0 to 100,000, got -1");
  expect_error("simulate -q --samples 10 --variants 5 --missing 2 --out " + tmp_.str("q"), 2,
               "--missing: must be a number from 0 to 1, got 2");
  expect_error("convert -q " + tmp_.str("sim") + " " + tmp_.str("c.vcz") + " --samples-chunk 0", 2,
               "--samples-chunk: must be an integer from 1 to 100,000,000, got 0");
  expect_error("bench svd --threads 0", 2, "--threads: must be comma-separated thread counts, each 1–1024");
  EXPECT_FALSE(fs::exists(tmp_.str("p.eigenvec")));
  EXPECT_FALSE(fs::exists(tmp_.str("c.vcz")));
}

TEST_F(ErrorExit, DataErrorsExit1AndNameTheFile) {
  write_file(tmp_.str("text.vcf"), "this is not a VCF\n");
  expect_error("convert -q " + tmp_.str("text.vcf") + " " + tmp_.str("t.vcz"), 1, "text.vcf: not a VCF or BCF file");
  write_file(tmp_.str("nogt.vcf"),
             "##fileformat=VCFv4.2\n#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\n1\t5\t.\tA\tC\t.\t.\t.\t.\t.\n");
  expect_error("convert -q " + tmp_.str("nogt.vcf") + " " + tmp_.str("n.bed"), 1, "nogt.vcf: no GT field");
  write_file(tmp_.str("junk.txt"), "x");
  expect_error("freq -q " + tmp_.str("junk.txt") + " --out " + tmp_.str("f"), 1, "junk.txt: not a genotype source");
  expect_error("freq -q " + tmp_.str("absent") + " --out " + tmp_.str("f"), 1, "absent: no such file");
  EXPECT_FALSE(fs::exists(tmp_.str("t.vcz")));
  EXPECT_FALSE(fs::exists(tmp_.str("n.bed")));
}

TEST_F(ErrorExit, DuplicateSampleIdsAndNulBytes) {
  fs::copy_file(tmp_.str("sim.bed"), tmp_.str("d.bed"));
  fs::copy_file(tmp_.str("sim.bim"), tmp_.str("d.bim"));
  std::string fam = strata::testing::read_file(tmp_.str("sim.fam"));
  // Line 5 repeats line 2's FID and IID.
  std::vector<std::string> lines;
  for (size_t p = 0, q; p < fam.size(); p = q + 1) {
    q = fam.find('\n', p);
    lines.push_back(fam.substr(p, q - p));
  }
  ASSERT_EQ(lines.size(), 20u);
  lines[4] = lines[1];
  std::string dup;
  for (auto& l : lines) dup += l + "\n";
  write_file(tmp_.str("d.fam"), dup);
  expect_error("freq -q " + tmp_.str("d") + " --out " + tmp_.str("f"), 1, "d.fam line 5: duplicate sample ID '");
  expect_error("freq -q " + tmp_.str("d") + " --out " + tmp_.str("f"), 1, "first on line 2");
  EXPECT_FALSE(fs::exists(tmp_.str("f.afreq")));

  lines[4] = std::string("x y") + '\0' + "z 0 0 0 -9";
  std::string nul;
  for (auto& l : lines) nul += l + "\n";
  write_file(tmp_.str("d.fam"), nul);
  expect_error("freq -q " + tmp_.str("d") + " --out " + tmp_.str("f"), 1, "d.fam line 5: contains a NUL byte");
  write_file(tmp_.str("d.fam"), fam);
  std::string bim = strata::testing::read_file(tmp_.str("sim.bim"));
  bim[bim.find('\n') + 2] = '\0';
  write_file(tmp_.str("d.bim"), bim);
  expect_error("freq -q " + tmp_.str("d") + " --out " + tmp_.str("f"), 1, "d.bim line 2: contains a NUL byte");

  if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib: the duplicate VCF sample ID case did not run";
  write_file(tmp_.str("dup.vcf"),
             "##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"G\">\n"
             "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\ta\tb\ta\n1\t5\t.\tA\tC\t.\t.\t.\tGT\t0/1\t0/0\t1/1\n");
  expect_error("convert -q " + tmp_.str("dup.vcf") + " " + tmp_.str("dup.vcz"), 1,
               "dup.vcf: duplicate sample ID 'a' in the VCF header");
  EXPECT_FALSE(fs::exists(tmp_.str("dup.vcz")));
}

TEST_F(ErrorExit, TruncatedBgzippedVcfFailsAtEveryOffset) {
  if (!STRATA_HAVE_HTSLIB) GTEST_SKIP() << "built without htslib";
  if (run_command("bgzip --version").exit_code != 0) GTEST_SKIP() << "bgzip not installed";
  std::string vcf =
      "##fileformat=VCFv4.2\n##contig=<ID=1>\n##FORMAT=<ID=GT,Number=1,Type=String,Description=\"G\">\n"
      "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT";
  for (int s = 0; s < 16; ++s) vcf += "\ts" + std::to_string(s);
  vcf += "\n";
  uint32_t x = 12345;
  const char* gts[4] = {"0/0", "0/1", "1/1", "./."};
  for (int v = 0; v < 4000; ++v) {  // several BGZF blocks (64 KiB of text each)
    vcf += "1\t" + std::to_string(10 * v + 1) + "\t.\tA\tC\t.\t.\t.\tGT";
    for (int s = 0; s < 16; ++s) {
      x = x * 1103515245u + 12345u;
      vcf += std::string("\t") + gts[(x >> 16) & 3];
    }
    vcf += "\n";
  }
  write_file(tmp_.str("x.vcf"), vcf);
  auto r = run_command("bgzip -f " + tmp_.str("x.vcf"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(cli() + " convert -q " + tmp_.str("x.vcf.gz") + " " + tmp_.str("ok.vcz"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string gz = strata::testing::read_file(tmp_.str("x.vcf.gz"));
  const size_t n = gz.size();
  ASSERT_GT(n, 10000u);
  int case_no = 0;
  for (size_t cut : {size_t{200}, n / 3, n / 2, n - 29, n - 28, n - 1}) {  // n - 28: just the EOF block gone
    for (const char* threads : {"1", "4"}) {
      for (const char* out : {"o.vcz", "o.bed"}) {
        SCOPED_TRACE("cut at " + std::to_string(cut) + ", --threads " + threads + ", " + out);
        const std::string in = tmp_.str("t" + std::to_string(case_no++) + ".vcf.gz");
        write_file(in, gz.substr(0, cut));
        expect_error("convert -q --threads " + std::string(threads) + " " + in + " " + tmp_.str(out), 1,
                     ": truncated or malformed BGZF block");
        EXPECT_FALSE(fs::exists(tmp_.str("o.vcz")));
        EXPECT_FALSE(fs::exists(tmp_.str("o.bed")));
        EXPECT_FALSE(fs::exists(tmp_.str("o.bim")));
      }
    }
  }
}

TEST_F(ErrorExit, ThreadsThatCannotStartDoNotHang) {
  // Thread stacks (8 MiB of address space each) run into a small address-space limit: the pool
  // keeps the threads that started; with none, the command fails with the reason. OpenBLAS is
  // kept to one thread (its own threads spin when they cannot allocate under the limit).
  const std::string base = "export OPENBLAS_NUM_THREADS=1; ulimit -v ";
  auto r = run_command("bash -c '" + base + "200000; timeout 120 " + cli() +
                       " simulate -q --samples 20 --variants 50 --threads 1024 --out " + tmp_.str("u") + "'");
  if (r.exit_code == 127) GTEST_SKIP() << "the binary does not load under a 200 MB address-space limit";
  if (r.output.find("Sanitizer") != std::string::npos)
    GTEST_SKIP() << "a sanitizer runtime cannot reserve its shadow memory under ulimit -v: " << r.output.substr(0, 200);
  ASSERT_NE(r.exit_code, 124) << "hung: " << r.output;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("of 1024 worker threads"));
  EXPECT_TRUE(fs::exists(tmp_.str("u.bed")));
}

}  // namespace
}  // namespace strata
