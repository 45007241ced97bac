// BGEN files written by plink2 (`--export bgen-1.1|1.2|1.3`) read through open_genotypes:
// hard calls against the .bed / plink2's `--make-bed` import, dosages against plink2's
// `--bgen F ref-first --export A`, sample IDs, and `strata freq` against `plink2 --freq`.
#include <cmath>
#include <filesystem>
#include <sstream>

#include "strata/io/genotype.hpp"
#include "testing/testing.hpp"

namespace strata::io {
namespace {

namespace fs = std::filesystem;
using strata::testing::read_file;
using strata::testing::run_command;
using strata::testing::TempDir;

const char* kPlink2 = "/usr/bin/plink2";

void plink2(const TempDir& tmp, const std::string& args) {
  auto r = run_command("cd " + tmp.str() + " && " + kPlink2 + " " + args + " --threads 1 --seed 7");
  ASSERT_EQ(r.exit_code, 0) << args << "\n" << r.output;
}

std::vector<std::vector<int>> all_codes(const GenotypeView& view) {
  auto block = read_genotype_block(view, 0, view.num_variants());
  EXPECT_TRUE(block.ok()) << block.status().to_string();
  std::vector<std::vector<int>> out;
  if (!block.ok()) return out;
  for (int64_t v = 0; v < view.num_variants(); ++v) {
    out.emplace_back();
    for (int64_t j = 0; j < view.num_samples(); ++j) out.back().push_back(code_at(block->row(v), j));
  }
  return out;
}

std::vector<std::vector<float>> all_dosages(const GenotypeView& view) {
  const int64_t m = view.num_variants(), n = view.num_samples();
  std::vector<float> d(static_cast<size_t>(m * n));
  const Status s = view.read_dosages(0, m, 0, n, d.data(), n);
  EXPECT_TRUE(s.ok()) << s.to_string();
  std::vector<std::vector<float>> out;
  for (int64_t v = 0; v < m; ++v) out.emplace_back(d.begin() + v * n, d.begin() + (v + 1) * n);
  return out;
}

// `plink2 --export A` (.raw): per variant, (counted allele, per-sample text).
struct Raw {
  std::vector<std::string> counted;
  std::vector<std::vector<std::string>> values;  // [variant][sample]
};
Raw read_raw(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  Raw raw;
  {
    std::istringstream hs(line);
    std::string c;
    for (int i = 0; hs >> c; ++i)
      if (i >= 6) raw.counted.push_back(c.substr(c.rfind('_') + 1));
  }
  raw.values.resize(raw.counted.size());
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string c;
    for (int i = 0; ls >> c; ++i)
      if (i >= 6) raw.values[static_cast<size_t>(i - 6)].push_back(c);
  }
  return raw;
}

TEST(BgenPlink2, HardCallExportsEqualTheBed) {
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--dummy 37 301 0.05 acgt --make-bed --out base");
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str("base")));
  const auto want = all_codes(*bed);
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed_info, bed->variants(0, bed->num_variants()));
  for (const std::string spec : {"bgen-1.1", "bgen-1.2 bits=8", "bgen-1.3 bits=16", "bgen-1.3 bits=3"}) {
    SCOPED_TRACE(spec);
    plink2(tmp, "--bfile base --export " + spec + " ref-first --out e");
    STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("e.bgen")));
    EXPECT_TRUE(view->has_dosages());
    EXPECT_EQ(view->samples().id, bed->samples().id);  // from e.sample (ID_2)
    STRATA_ASSERT_OK_AND_ASSIGN(auto info, view->variants(0, view->num_variants()));
    EXPECT_EQ(info.id, bed_info.id);
    EXPECT_EQ(info.position, bed_info.position);
    EXPECT_EQ(info.ref, bed_info.ref);
    EXPECT_EQ(info.alt, bed_info.alt);
    EXPECT_EQ(all_codes(*view), want);
    const auto dosage = all_dosages(*view);
    for (size_t v = 0; v < want.size(); ++v)
      for (size_t j = 0; j < want[v].size(); ++j)
        if (want[v][j] == 3) EXPECT_TRUE(std::isnan(dosage[v][j]));
        else EXPECT_EQ(dosage[v][j], static_cast<float>(want[v][j]));
  }
  // Without ref-first plink2 writes ALT first: strata (the first allele is REF) counts the
  // .bim's REF, 2 − the .bed's ALT count.
  plink2(tmp, "--bfile base --export bgen-1.2 bits=8 --out flipped");
  STRATA_ASSERT_OK_AND_ASSIGN(auto flipped, open_genotypes(tmp.str("flipped.bgen")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto finfo, flipped->variants(0, 1));
  EXPECT_EQ(finfo.ref[0], bed_info.alt[0]);
  const auto got = all_codes(*flipped);
  for (size_t v = 0; v < want.size(); ++v)
    for (size_t j = 0; j < want[v].size(); ++j) EXPECT_EQ(got[v][j], want[v][j] == 3 ? 3 : 2 - want[v][j]);
}

TEST(BgenPlink2, DosagesAndHardCallsEqualPlink2Import) {
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  // Dosages on half the calls, phase on a quarter: every BGEN block kind plink2 writes.
  plink2(tmp, "--dummy 41 240 0.05 acgt dosage-freq=0.5 phase-freq=0.25 --make-pgen --out d");
  for (const std::string spec : {"bgen-1.1", "bgen-1.2 bits=8", "bgen-1.3 bits=16", "bgen-1.3 bits=5"}) {
    SCOPED_TRACE(spec);
    plink2(tmp, "--pfile d --export " + spec + " ref-first --out e");
    plink2(tmp, "--bgen e.bgen ref-first --sample e.sample --export A --out a");
    plink2(tmp, "--bgen e.bgen ref-first --sample e.sample --make-bed --out hc");
    STRATA_ASSERT_OK_AND_ASSIGN(auto view, open_genotypes(tmp.str("e.bgen")));
    STRATA_ASSERT_OK_AND_ASSIGN(auto hc, open_genotypes(tmp.str("hc")));
    EXPECT_EQ(all_codes(*view), all_codes(*hc));  // plink2's hard calls (threshold 0.1)
    const Raw raw = read_raw(tmp.str("a.raw"));
    STRATA_ASSERT_OK_AND_ASSIGN(auto info, view->variants(0, view->num_variants()));
    const auto dosage = all_dosages(*view);
    ASSERT_EQ(raw.values.size(), dosage.size());
    int64_t fractional = 0;
    for (size_t v = 0; v < dosage.size(); ++v) {
      ASSERT_EQ(raw.counted[v], info.ref[v]);  // --export A counts REF; strata ALT = 2 − that
      for (size_t j = 0; j < dosage[v].size(); ++j) {
        const std::string& t = raw.values[v][j];
        if (t == "NA") {
          EXPECT_TRUE(std::isnan(dosage[v][j])) << "variant " << v << " sample " << j;
          continue;
        }
        // plink2 prints the shortest decimal that names its 1/16384 value.
        const long want = 32768 - std::lround(std::stod(t) * 16384.0);
        EXPECT_EQ(std::lround(dosage[v][j] * 16384.0f), want) << "variant " << v << " sample " << j << ": " << t;
        fractional += dosage[v][j] != std::round(dosage[v][j]);
      }
    }
    EXPECT_GT(fractional, 100);  // the dosages were really fractional
  }
}

TEST(BgenPlink2, SampleIdsFromSampleFileThenEmbeddedThenIndex) {
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  TempDir tmp;
  plink2(tmp, "--dummy 9 5 --make-bed --out base");
  plink2(tmp, "--bfile base --export bgen-1.2 bits=8 ref-first --out e12");
  plink2(tmp, "--bfile base --export bgen-1.1 ref-first --out e11");
  fs::remove(tmp.str("e12.sample"));
  fs::remove(tmp.str("e11.sample"));
  STRATA_ASSERT_OK_AND_ASSIGN(auto bed, open_genotypes(tmp.str("base")));
  STRATA_ASSERT_OK_AND_ASSIGN(auto e12, open_genotypes(tmp.str("e12.bgen")));
  EXPECT_EQ(e12->samples().id, bed->samples().id);  // embedded in the v1.2 file
  STRATA_ASSERT_OK_AND_ASSIGN(auto e11, open_genotypes(tmp.str("e11.bgen")));
  EXPECT_EQ(e11->samples().id, (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8"}));
}

std::string cli() { return strata::testing::strata_cli_path(); }

TEST(BgenPlink2, StrataFreqEqualsPlink2Freq) {
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  TempDir tmp;
  plink2(tmp, "--dummy 57 400 0.05 acgt --make-bed --out base");
  plink2(tmp, "--bfile base --export bgen-1.3 bits=8 ref-first --out e");
  plink2(tmp, "--bgen e.bgen ref-first --freq --out p");
  auto r = run_command(cli() + " freq -q " + tmp.str("e.bgen") + " --out " + tmp.str("f"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_file(tmp.str("f.afreq")), read_file(tmp.str("p.afreq")));
}

TEST(BgenPlink2, CorruptBgenFailsTheCommandWithoutOutput) {
  if (!fs::exists(kPlink2)) GTEST_SKIP() << strata::testing::kSkipNoPlink2;
  if (!fs::exists(cli())) GTEST_SKIP() << "strata CLI not built";
  TempDir tmp;
  plink2(tmp, "--dummy 20 30 --make-bed --out base");
  plink2(tmp, "--bfile base --export bgen-1.2 bits=8 ref-first --out e");
  fs::resize_file(tmp.str("e.bgen"), fs::file_size(tmp.str("e.bgen")) - 5);
  auto r = run_command(cli() + " freq -q " + tmp.str("e.bgen") + " --out " + tmp.str("f"));
  STRATA_EXPECT_CLI_ERROR(r, 1, "e.bgen: variant 29 (snp29): its");
  EXPECT_FALSE(fs::exists(tmp.str("f.afreq")));
}

}  // namespace
}  // namespace strata::io
